"""Slow, obviously-correct references for the hand kernels (plain Python).

Nothing here uses the lookup tables or nbsim.kernels.hand. Kinds: 0-8 m,
9-17 p, 18-26 s, 27-33 honors; counts are natural tiles, wilds a number.

* ``naive_complete``: recursive decomposition. The lowest natural tile left
  must sit in some group; try every group that can hold it (pair, pung, each
  chow through it), taking each other tile of the group either as a natural
  tile (when one is left) or as a wild. When no natural tile is left, the
  leftover wilds must make whole melds (plus the pair if still missing).
  Wilds are never limited to 4 copies of a kind (docs/rules.md §3).
* ``naive_waits``: every kind k tried by ``naive_complete(counts + k)``.
* ``naive_fit`` / ``naive_shanten``: the max-overlap definition of shanten:
  enumerate target hands (m melds + p pairs, at most 4 copies of a kind) that
  touch the hand, count the natural tiles they cover, take the best.
"""
from __future__ import annotations

from functools import cache

N_PLAY = 34
HONOR0 = 27


def _is_suited(k: int) -> bool:
    return k < HONOR0


def _chow_starts(k: int) -> list[int]:
    """Lowest kinds of the chows (same suit, ranks r..r+2, r <= 7) holding k."""
    if not _is_suited(k):
        return []
    suit0 = (k // 9) * 9
    return [a for a in (k - 2, k - 1, k) if a >= suit0 and a - suit0 <= 6]


@cache
def _decompose(c: tuple, w: int, need_pair: bool) -> bool:
    lo = next((k for k in range(N_PLAY) if c[k] > 0), None)
    if lo is None:
        if need_pair:
            return w >= 2 and (w - 2) % 3 == 0
        return w % 3 == 0
    cl = list(c)

    def rec(cl2, w2, pair2):
        return w2 >= 0 and _decompose(tuple(cl2), w2, pair2)

    # the pair
    if need_pair:
        for nat in (1, 2):
            if c[lo] >= nat:
                cl2 = cl.copy()
                cl2[lo] -= nat
                if rec(cl2, w - (2 - nat), False):
                    return True
    # a pung of lo: 1..3 natural copies, the rest wilds
    for nat in (1, 2, 3):
        if c[lo] >= nat:
            cl2 = cl.copy()
            cl2[lo] -= nat
            if rec(cl2, w - (3 - nat), need_pair):
                return True
    # a chow through lo: each other member natural (if present) or wild
    for a in _chow_starts(lo):
        others = [j for j in (a, a + 1, a + 2) if j != lo]
        for use0 in (False, True):
            for use1 in (False, True):
                cl2 = cl.copy()
                cl2[lo] -= 1
                wilds = 0
                ok = True
                for j, use in zip(others, (use0, use1), strict=True):
                    if use:
                        if cl2[j] <= 0:
                            ok = False
                            break
                        cl2[j] -= 1
                    else:
                        wilds += 1
                if ok and rec(cl2, w - wilds, need_pair):
                    return True
    return False


def naive_complete(counts, n_wilds: int) -> bool:
    """True when counts (natural, kinds 0..33) + n_wilds wilds form melds + 1 pair."""
    c = tuple(int(x) for x in list(counts)[:N_PLAY])
    if n_wilds < 0 or (sum(c) + n_wilds) % 3 != 2:
        return False
    return _decompose(c, int(n_wilds), True)


def naive_need(counts, with_pair: bool, max_w: int = 40) -> int:
    """Fewest wilds making counts decompose into melds (+ one pair if with_pair),
    the wild count fixed by the arithmetic (tiles a multiple of 3, or 3n + 2)."""
    c = tuple(int(x) for x in list(counts)[:N_PLAY])
    for w in range(max_w + 1):
        if (sum(c) + w) % 3 == (2 if with_pair else 0) and _decompose(c, w, with_pair):
            return w
    raise AssertionError("no wild count found")


def naive_waits(counts, n_wilds: int, excluded) -> list[int]:
    """Kinds k (not excluded, fewer than 4 held) with counts + k complete."""
    out = []
    for k in range(N_PLAY):
        if excluded[k] or counts[k] >= 4:
            continue
        c2 = [int(x) for x in list(counts)[:N_PLAY]]
        c2[k] += 1
        if naive_complete(c2, n_wilds):
            out.append(k)
    return out


def _groups(c) -> list[tuple[int, ...]]:
    """Melds that share a kind with the hand (pungs and chows)."""
    held = [k for k in range(N_PLAY) if c[k] > 0]
    gs = set()
    for k in held:
        gs.add((k, k, k))
        for a in _chow_starts(k):
            gs.add((a, a + 1, a + 2))
    return sorted(gs)


def naive_fit(counts, n_melds: int, n_pairs: int) -> int:
    """Most natural tiles of counts covered by a target of n_melds melds +
    n_pairs pairs (n_pairs 0 or 1), at most 4 copies of a kind in the target.

    Melds sharing no kind with the hand cover nothing and can always be
    placed elsewhere, so only melds touching the hand are enumerated (as a
    multiset, in non-decreasing order), then the pair."""
    c = [int(x) for x in list(counts)[:N_PLAY]]
    groups = _groups(c)
    n_nat = sum(c)
    best = 0
    target = [0] * N_PLAY

    def pair_gain() -> int:
        if not n_pairs:
            return 0
        g = 0
        for k in range(N_PLAY):
            if c[k] > target[k] and target[k] <= 2:
                g = max(g, min(c[k], target[k] + 2) - target[k])
        return g

    def dfs(start: int, left: int, cov: int) -> None:
        nonlocal best
        if min(n_nat, cov + 3 * left + 2 * n_pairs) <= best:
            return
        # the remaining melds placed away from the hand, the pair anywhere
        best = max(best, cov + pair_gain())
        if left == 0:
            return
        for gi in range(start, len(groups)):
            g = groups[gi]
            if all(target[j] + g.count(j) <= 4 for j in set(g)):
                gain = 0
                for j in g:
                    if target[j] < c[j]:
                        gain += 1
                    target[j] += 1
                dfs(gi, left - 1, cov + gain)
                for j in g:
                    target[j] -= 1

    dfs(0, n_melds, 0)
    return best


def naive_shanten(counts, n_wilds: int, n_declared: int) -> int:
    """Shanten by the max-overlap definition: 3k + 1 - wilds - fit with
    k = 4 - n_declared melds to make; -1 exactly for a complete hand (a wild
    may then be a fifth copy). Needs 3k + 1 or 3k + 2 tiles."""
    k = 4 - n_declared
    t = sum(int(x) for x in list(counts)[:N_PLAY]) + n_wilds
    assert t in (3 * k + 1, 3 * k + 2), "bad tile total"
    s = 3 * k + 1 - n_wilds - naive_fit(counts, k, 1)
    if t == 3 * k + 2 and naive_complete(counts, n_wilds):
        return -1
    return s
