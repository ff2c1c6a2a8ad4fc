"""Random winning situations for the differential tests (plain Python).

``random_situation(rng, rules_dict)`` builds a complete hand from random
groups (4 melds + a pair), declares some of them, turns random concealed
tiles into wilds (0-7), picks the winning tile among the 14 concealed tiles
and a random but valid context: win kind, seat, round wind, indicator (flower
indicators and 7-baida wraps included), flowers, discarder, fed counts,
kong feeder. About one situation in ten gets one concealed tile swapped so
that it is usually not complete. The result is a dict of ``score_hand``
keyword arguments in notation.
"""
from __future__ import annotations

SEATS = ("E", "S", "W", "N")
SUITS = "mpsz"


def name(k: int) -> str:
    if k >= 34:
        return f"{k - 33}f"
    return f"{k % 9 + 1}{SUITS[k // 9]}" if k < 27 else f"{k - 26}z"


def notation(kinds) -> str:
    return "".join(name(k) for k in sorted(kinds))


def _wilds(rules, ind):
    mode = rules["wilds"]["wilds"]
    if mode == "none" or ind is None:
        return set()
    if ind >= 34:
        f = ind - 34
        if mode == "3baida":
            return {k for k in range(34 + f // 4 * 4, 38 + f // 4 * 4) if k != ind}
        return {k for k in range(34, 42) if k != ind}
    out = {ind}
    if mode == "7baida":
        if ind < 27:
            out.add(ind // 9 * 9 + (ind % 9 + 1) % 9)
        elif ind <= 30:
            out.add(27 + (ind - 27 + 1) % 4)
        else:
            cyc = [int(c) + 26 for c in rules["wilds"]["dragon_successor"][::2]]
            out.add(cyc[(cyc.index(ind) + 1) % 3])
    return out


def random_situation(rng, rules: dict, *, max_wilds: int = 7, wild_weights=None,
                     honors_only: bool = False) -> dict:
    """One random situation (see the module doc). rng: random.Random.

    wild_weights: relative weights of 0, 1, 2, ... wilds (then exactly that
    many, as far as the wild tiles allow); default: natural groups may hold
    wild kinds and 0..max_wilds more tiles become wilds. honors_only: every
    group is an honor pung or pair (all-honors hands, with wilds)."""
    allow_chow = rules["claims"]["allow_chow"]
    mode = rules["wilds"]["wilds"]
    for _attempt in range(200):
        ind = None
        if mode != "none":
            ind = rng.randrange(42) if rng.random() < 0.85 else rng.randrange(34, 42)
        wild = _wilds(rules, ind)
        used = [0] * 42
        if ind is not None:
            used[ind] += 1
        n_decl = rng.choice([0, 0, 0, 1, 1, 2, 3, 4])
        groups = []
        ok = True
        for g in range(5):
            for _t in range(30):
                is_pair = g == 4
                if honors_only:
                    b = rng.randrange(27, 34)
                    ks = [b] * (2 if is_pair else 3)
                    typ = "pair" if is_pair else "pung"
                elif not is_pair and allow_chow and rng.random() < 0.55:
                    s = rng.randrange(3)
                    b = s * 9 + rng.randrange(7)
                    ks = [b, b + 1, b + 2]
                    typ = "chow"
                else:
                    b = rng.randrange(34)
                    ks = [b] * (2 if is_pair else 3)
                    typ = "pair" if is_pair else "pung"
                decl = g < n_decl
                # declared melds never hold wilds; with wild_weights the wild
                # count is set exactly below, so no group holds a wild kind
                if (decl or wild_weights is not None) and any(k in wild for k in ks):
                    continue
                if decl and typ == "pung" and rng.random() < 0.3:
                    typ = rng.choice(["kong", "ckong"])
                    ks = [b] * 4
                if all(used[k] + ks.count(k) <= 4 for k in set(ks)):
                    for k in ks:
                        used[k] += 1
                    groups.append((typ, b, ks, decl))
                    break
            else:
                ok = False
                break
        if not ok:
            continue
        conc = [k for typ, b, ks, decl in groups if not decl for k in ks]
        melds = [f"{typ}:{notation(ks)}" for typ, b, ks, decl in groups if decl]
        # turn concealed tiles into wilds
        wild_pool = []
        for k in sorted(wild):
            left = (4 if k < 34 else 1) - used[k]
            wild_pool += [k] * left
        rng.shuffle(wild_pool)
        if wild_weights is not None:
            n_w = rng.choices(range(len(wild_weights)), weights=wild_weights)[0]
        else:
            n_w = rng.randrange(max_wilds + 1)
        n_w = min(n_w, len(wild_pool), len(conc))
        idx = list(range(len(conc)))
        rng.shuffle(idx)
        for j in idx[:n_w]:
            if conc[j] in wild:
                continue
            used[conc[j]] -= 1
            conc[j] = wild_pool.pop()
            used[conc[j]] += 1
        if rng.random() < 0.1:
            # perturb: swap one concealed tile for another kind (usually not complete)
            j = rng.randrange(len(conc))
            k = rng.randrange(34)
            if used[k] < 4:
                used[conc[j]] -= 1
                conc[j] = k
                used[k] += 1
        wpos = rng.randrange(len(conc))
        win = conc.pop(wpos)
        seat = rng.randrange(4)
        rnd = rng.randrange(4)
        r = rng.random()
        if r < 0.45:
            win_by = "self_draw"
        elif r < 0.9 or win in wild:
            win_by = "discard"
        else:
            win_by = "robbing_kong"
        ctx = []
        if win_by == "self_draw" and rng.random() < 0.15:
            ctx.append("after_kong")
        if rng.random() < 0.1:
            ctx.append("last_tile")
        if (rng.random() < 0.08 and win_by == "self_draw" and not melds):
            seat = 0
            ctx.append("heavenly")
        elif rng.random() < 0.08 and not melds and seat != 0:
            if rules["win"]["earthly_hand_rule"] == "first_draw":
                if win_by == "self_draw":
                    ctx.append("earthly")
            elif win_by == "discard":
                ctx.append("earthly")
        discarder = None
        if win_by != "self_draw" and rng.random() < 0.85:
            discarder = SEATS[(seat + rng.randrange(1, 4)) % 4]
            if "earthly" in ctx:
                discarder = "E"
        # flowers set aside: never wild, never the indicator, never in hand
        fl = [k for k in range(34, 42)
              if k not in wild and k != ind and used[k] == 0 and k != win and rng.random() < 0.2]
        if rng.random() < 0.03:
            fl = [k for k in range(34, 42)
                  if k not in wild and k != ind and used[k] == 0 and k != win]
        n_claimed = sum(1 for typ, b, ks, decl in groups if decl and typ != "ckong")
        fed = {}
        left = n_claimed
        for x in range(4):
            if x != seat and left > 0 and rng.random() < 0.4:
                v = rng.randint(1, left)
                fed[SEATS[x]] = v
                left -= v
        fbw = {}
        for x in range(4):
            if x != seat and rng.random() < 0.25:
                fbw[SEATS[x]] = rng.randint(1, 4)
        kong_from = None
        if ("after_kong" in ctx and any(m.startswith("kong:") for m in melds)
                and rng.random() < 0.6):
            kong_from = SEATS[(seat + rng.randrange(1, 4)) % 4]
        return dict(hand=notation(conc), win_tile=name(win), melds=melds, win_by=win_by,
                    seat=SEATS[seat], round_wind=SEATS[rnd],
                    indicator=None if ind is None else name(ind),
                    flowers=notation(fl), context=ctx, discarder=discarder,
                    fed=fed or None, fed_by_winner=fbw or None, kong_from=kong_from)
    raise RuntimeError("could not build a situation")
