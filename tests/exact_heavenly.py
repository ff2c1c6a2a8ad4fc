"""Exact heavenly-hand (天胡) probabilities and dealer-wild distributions by
counting tile multisets. Shares no code with the simulator: plain Python, no
imports from ``nbsim`` (tests compare the two).

Why the dealer's final hand is a uniform subset
-----------------------------------------------
The wall is a uniform shuffle of the 144 tiles and the indicator's position is
fixed by the dice, which are independent of the shuffle; so the indicator is a
uniform tile, and given it, the other 143 tiles are in uniform random order.
The dealer reads a fixed sequence of positions (its 14 dealt positions, then
the tail positions from the end, skipping the indicator) and keeps every tile
that is not a non-wild flower, until it holds 14. Call the *pool* every tile
except the non-wild flowers and the indicator. The pool tiles appear along the
dealer's sequence in uniformly random order, so the dealer's final 14 tiles
are a uniform 14-subset of the pool, whatever the positions of the flowers
(the same argument, given the flowers' positions, makes the four final hands
a uniform ordered split of the pool: 14 / 13 / 13 / 13).

Mixing over the indicator (docs/rules.md §3):
  * suited/honor indicator of kind t (probability 4/144 for each of the 34
    kinds): 3baida: the 3 other copies of t are wild; 7baida: those and the 4
    copies of next(t), 7 wilds. All 8 flowers are non-wild. Pool: the 135
    suited/honor tiles other than the indicator (wilds included).
  * flower indicator (probability 8/144): 3baida: the other 3 flowers of its
    group are wild, the 4 of the other group are replaced; 7baida: the other
    7 flowers are wild. Pool: 136 suited/honor tiles + the wild flowers.
  * no wilds (Ninghai): pool = the 136 suited/honor tiles.

When is a hand complete?
------------------------
A hand of H = 3k + 2 tiles (naturals + w wilds) is complete (k melds + a pair,
a wild standing for any suited/honor tile, even a fifth copy; docs/rules.md
§3, §5) exactly when its natural tiles can be split into at most k
*partial melds* (1-3 naturals that are part of one pung {x,x,x} or one chow
{r, r+1, r+2} of a suit, the missing places taken by wilds) and at most one
*partial pair* (1-2 naturals of one kind). Proof: given such a split with m
partial melds and p partial pairs, the wilds needed are 3m + 2p - naturals
<= 3k + 2 - naturals = w, and the wilds left over, 3(k - m) + 2(1 - p), make
the missing whole melds and pair. Conversely a complete reading restricted to
the naturals is such a split.

Counting
--------
Per suit, ranks 1..9 are read left to right by a small automaton whose state
(y, x, pair used) counts the partial chows started one and two ranks back
that may still take a tile. At each rank the naturals are given to those
chows, to new chows (which may also start with a wild at this rank), to
partial pungs (ceil(tiles / 3) of them) and at most once to the partial pair.
The set of reachable states with their least number of melds (a
"profile") is a deterministic function of the counts read so far, so the
weighted number of suits with n tiles and profile P is a plain dynamic
programme over ranks (weight: product of C(copies available, count)). A
suit's profile gives M0 (least melds without a pair in the suit) and M1
(least melds allowing one partial pair in it). Honors are one-rank "suits"
without chows. Combining the groups: A = sum of M0, B = least sum with one
group using M1; complete iff min(A, B) <= k. The wilds multiply by
C(wilds in pool, w).

The closed form of the wilds held by the dealer is the same mixture of
hypergeometric laws: P(w) = sum over indicator cases of
P(case) * C(W, w) * C(pool - W, 14 - w) / C(pool, 14).

Run ``python tests/exact_heavenly.py`` to print the values (takes seconds).
"""
from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

N_SUITED = 27
N_HONORS = 7
N_KINDS = 34

# docs/rules.md §3: next() for 7-baida
DRAGON_CYCLE_DEFAULT = (33, 32, 31)   # Red -> Green -> White -> Red


def next_kind(kind: int, dragon_cycle=DRAGON_CYCLE_DEFAULT) -> int:
    """7-baida successor: 9 -> 1 within a suit, E S W N E, dragons by cycle."""
    if kind < N_SUITED:
        s, r = divmod(kind, 9)
        return s * 9 + (r + 1) % 9
    if kind < 31:
        return 27 + (kind - 27 + 1) % 4
    i = dragon_cycle.index(kind)
    return dragon_cycle[(i + 1) % 3]


# ---------------------------------------------------------------- automaton
def _step(profile: tuple, c: int, chow_ok: bool, kmax: int) -> tuple:
    """Read one rank holding c naturals. profile: sorted tuple of
    ((y, x, pair_used), melds). Returns the next profile (states whose melds
    exceed kmax are dropped: melds only grow)."""
    out: dict = {}
    for (y, x, pu), m in profile:
        for a in range(min(y, c) + 1):               # chows from two ranks back
            for b in range(min(x, c - a) + 1):       # chows from one rank back
                rem = c - a - b
                pair_opts = (0,) if pu else tuple(range(min(2, rem) + 1))
                for sp in pair_opts:
                    rem2 = rem - sp
                    z1_max = rem2 if chow_ok else 0
                    for z1 in range(z1_max + 1):     # new chows taking a natural here
                        pung_tiles = rem2 - z1
                        pungs = -(-pung_tiles // 3)
                        z0_max = (kmax if chow_ok else 0)
                        for z0 in range(z0_max + 1):  # new chows with a wild here
                            mm = m + z1 + z0 + pungs
                            if mm > kmax:
                                break
                            key = (x, z1 + z0, pu or sp > 0)
                            if out.get(key, 99) > mm:
                                out[key] = mm
    return tuple(sorted(out.items()))


def _finish(profile: tuple) -> tuple[int, int]:
    """(M0, M1) of a final profile; kmax + 1 style 'infinity' is 99."""
    m0 = m1 = 99
    for (y, x, pu), m in profile:
        if y or x:
            continue
        if not pu:
            m0 = min(m0, m)
        m1 = min(m1, m)
    return m0, m1


@cache
def group_gf(avail: tuple, chow_ok: bool, kmax: int, multiset: bool = False) -> dict:
    """Weighted count of a group's (suit or honor kind) natural tiles.

    avail: copies available per rank (e.g. (4,)*9 for a suit, (4,) for one
    honor kind; 0 for a wild or absent kind). Returns {(n, M0, M1): weight}
    where n is the number of naturals, weight the number of tile subsets
    (product of C(avail, count); or 1 per kind multiset if ``multiset``)."""
    start = (((0, 0, False), 0),)
    table = {(start, 0): 1}
    step_cache: dict = {}
    for r, av in enumerate(avail):
        ok = chow_ok and r <= len(avail) - 3
        new: dict = {}
        for (prof, n), w in table.items():
            for c in range(av + 1):
                key = (prof, c, ok)
                nxt = step_cache.get(key)
                if nxt is None:
                    nxt = _step(prof, c, ok, kmax)
                    step_cache[key] = nxt
                k2 = (nxt, n + c)
                new[k2] = new.get(k2, 0) + w * (1 if multiset else comb(av, c))
        table = new
    out: dict = {}
    for (prof, n), w in table.items():
        m0, m1 = _finish(prof)
        k = (n, min(m0, kmax + 1), min(m1, kmax + 1))
        out[k] = out.get(k, 0) + w
    return out


def hand_complete(counts34, n_wilds: int) -> bool:
    """One hand through the same automaton: True when the natural counts
    (kinds 0..33) plus n_wilds wilds are k melds + a pair (3k + 2 tiles)."""
    total = sum(counts34[:N_KINDS]) + n_wilds
    if total % 3 != 2:
        return False
    kmax = (total - 2) // 3
    inf = kmax + 1
    a, b = 0, inf
    groups = [(tuple(counts34[s * 9:(s + 1) * 9]), True) for s in range(3)]
    groups += [((counts34[h],), False) for h in range(27, 34)]
    for cs, chow_ok in groups:
        prof = (((0, 0, False), 0),)
        for r, c in enumerate(cs):
            prof = _step(prof, c, chow_ok and r <= len(cs) - 3, kmax)
        m0, m1 = _finish(prof)
        a, b = min(a + m0, inf), min(b + m0, a + m1, inf)
    return min(a, b) <= kmax


def complete_weights(avail34: tuple, hand_size: int = 14, multiset: bool = False) -> dict:
    """Weighted number of natural multisets by size n that are complete with
    hand_size - n wilds: {n: weight}, and the total weight by n.

    avail34: copies of each kind 0..33 in the pool (naturals only). Returns
    (complete: {n: weight}, total: {n: weight})."""
    assert (hand_size - 2) % 3 == 0
    kmax = (hand_size - 2) // 3
    inf = kmax + 1
    groups = [group_gf(tuple(avail34[s * 9:(s + 1) * 9]), True, kmax, multiset)
              for s in range(3)]
    groups += [group_gf((avail34[h],), False, kmax, multiset) for h in range(27, 34)]
    # state: (n, A, B) -> weight; A = melds with no pair group, B = with one
    state = {(0, 0, inf): 1}
    for g in groups:
        new: dict = {}
        for (n, a, b), w in state.items():
            for (gn, m0, m1), gw in g.items():
                nn = n + gn
                if nn > hand_size:
                    continue
                a2 = min(a + m0, inf)
                b2 = min(b + m0, a + m1, inf)
                k = (nn, a2, b2)
                new[k] = new.get(k, 0) + w * gw
        state = new
    complete: dict = {}
    total: dict = {}
    for (n, a, b), w in state.items():
        total[n] = total.get(n, 0) + w
        if min(a, b) <= kmax:
            complete[n] = complete.get(n, 0) + w
    return complete, total


def complete_probability(avail34: tuple, n_wilds: int, hand_size: int = 14) -> Fraction:
    """Probability that a uniform hand_size-subset of the pool (naturals with
    avail34 copies per kind + n_wilds wild tiles) is complete."""
    comp, total = complete_weights(tuple(avail34), hand_size)
    pool = sum(avail34) + n_wilds
    num = sum(comb(n_wilds, hand_size - n) * w for n, w in comp.items()
              if 0 <= hand_size - n <= n_wilds)
    return Fraction(num, comb(pool, hand_size))


# ---------------------------------------------------------------- variants
def indicator_cases(wilds: str, dragon_cycle=DRAGON_CYCLE_DEFAULT):
    """The indicator cases of a variant: list of (probability, avail34, wilds
    in pool). wilds: 'none', '3baida' or '7baida' (docs/rules.md §3)."""
    full = [4] * N_KINDS
    if wilds == "none":
        return [(Fraction(1), tuple(full), 0)]
    cases = []
    for t in range(N_KINDS):
        av = list(full)
        av[t] = 0                       # indicator + 3 wild copies
        w = 3
        if wilds == "7baida":
            av[next_kind(t, dragon_cycle)] = 0
            w = 7
        cases.append((Fraction(4, 144), tuple(av), w))
    # flower indicator: all 34 kinds natural; 3 (3baida) or 7 (7baida) wild flowers
    cases.append((Fraction(8, 144), tuple(full), 3 if wilds == "3baida" else 7))
    return cases


def heavenly_probability(wilds: str, dragon_cycle=DRAGON_CYCLE_DEFAULT) -> Fraction:
    """Exact probability that the dealer's 14 tiles after the flower
    replacement are complete (standard form), for wilds 'none' (Ninghai),
    '3baida' or '7baida'. A Fraction."""
    return sum((p * complete_probability(av, w)
                for p, av, w in indicator_cases(wilds, dragon_cycle)),
               Fraction(0))


def heavenly_by_dealer_wilds(wilds: str, dragon_cycle=DRAGON_CYCLE_DEFAULT) -> dict:
    """{w: (P(dealer holds w wilds), P(complete and w wilds))} as Fractions."""
    out: dict = {}
    for p, av, nw in indicator_cases(wilds, dragon_cycle):
        comp, _ = complete_weights(av)
        pool = sum(av) + nw
        denom = comb(pool, 14)
        for w in range(0, nw + 1):
            pw = p * Fraction(comb(nw, w) * comb(pool - nw, 14 - w), denom)
            pc = p * Fraction(comb(nw, w) * comp.get(14 - w, 0), denom)
            a, b = out.get(w, (Fraction(0), Fraction(0)))
            out[w] = (a + pw, b + pc)
    return out


def wilds_distribution(wilds: str, hand_size: int = 14) -> dict:
    """Closed form P(a seat holding hand_size tiles holds w wilds) after the
    flower replacement: a mixture of hypergeometric laws (dealer: 14; other
    seats: 13). {w: Fraction}."""
    out: dict = {}
    for p, av, nw in indicator_cases(wilds):
        pool = sum(av) + nw
        for w in range(0, min(nw, hand_size) + 1):
            out[w] = out.get(w, Fraction(0)) + p * Fraction(
                comb(nw, w) * comb(pool - nw, hand_size - w), comb(pool, hand_size))
    return out


if __name__ == "__main__":  # pragma: no cover
    import time

    for name in ("3baida", "7baida", "none"):
        t0 = time.perf_counter()
        p = heavenly_probability(name)
        print(f"{name:7s} P(heavenly) = {float(p):.10g}  (1 in {float(1 / p):,.0f})  "
              f"[{time.perf_counter() - t0:.1f} s]")
        if name != "none":
            d = wilds_distribution(name)
            print("        dealer wilds:", {w: round(float(v), 6) for w, v in d.items()})
