"""A slow, independent reference scorer (plain Python, docs/rules.md §3,
§5-§8 and §10), used by the differential tests against the Numba kernels.

It shares no code with ``nbsim.kernels``: it parses the notation itself,
computes the wild kinds itself, reads the variant only as plain data
(``RuleSet.to_dict()``), and enumerates readings by brute force:

* tile level for the natural tiles: the lowest natural tile left goes into
  every group identity (pair, pung, chow) that holds its kind, and every other
  slot of that group is filled, in turn, by every kind of tile that can sit
  there (a natural of the slot's kind, the winning tile, a wild, the winning
  wild), memoised on the tiles left;
* identities for the groups made only of wilds: every kind, grouped into
  classes that no tai, fan or fu item can tell apart (a suit pung of rank 1
  stands for the terminal pungs 1 and 9 of that suit, rank 2 for the simple
  ones; one chow per suit for a chow without the winning tile; chows starting
  at ranks 1, 2 and 7 for a chow holding the winning wild, since only the edge
  shapes 12-3 and 89-7 depend on the rank; honors each on their own);
* the wait set of the 13-tile hand by trying every kind with a plain
  recursive complete-hand check.

Every reading is scored straight from the item definitions; the counted one
is the best by (tai, legal, item vector in TAI_ITEMS order, presence vector:
which items apply, 0-tai items included) for the tai systems and (points,
fan, fu, legal, item fan vector before the cap in FAN_ITEMS order, item fu
vector in FU_ITEMS order) for Ninghai (docs/rules.md §10.3, §10.4).

``reference_score(rules_dict, **situation)`` returns the same fields as
``nbsim.rules.scorer.ScoreResult.to_dict()`` (without ``config``): also
``present`` (the ids of the tai items that apply, in TAI_ITEMS order) and
``fan_items`` / ``fu_items`` (Ninghai: id -> fan before the cap / fu, the
non-zero ones), or ``{"error": name}`` for the invalid inputs of docs/rules.md
§10.
"""
from __future__ import annotations

import re
from functools import cache

# ---------------------------------------------------------------- tiles
SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27, "f": 34}
SUIT_RANKS = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 8}
EAST, WHITE, GREEN, RED = 27, 31, 32, 33
SEATS = ("E", "S", "W", "N")
TAI_ITEMS = (
    "self_drawn", "chicken_hand", "all_chows", "edge_wait", "closed_wait",
    "single_wait", "dual_pung_wait", "big_single_wait", "all_pungs",
    "out_with_replacement", "no_wilds", "three_wilds", "robbing_the_kong",
    "last_tile_draw", "heavenly_hand", "earthly_hand", "full_flush",
    "half_flush", "all_honors", "seat_flower", "flower_set", "all_flowers",
    "dragon_pung", "seat_wind_pung", "prevalent_wind_pung",
    "wild_single_wait", "wild_drawn",
)
FAN_ITEMS = ("seat_flower", "flower_set", "dragon_pung", "full_flush", "all_honors",
             "half_flush", "all_pungs")
FU_ITEMS = ("exposed_pung_terminal", "exposed_pung_simple", "concealed_pung_terminal",
            "concealed_pung_simple", "exposed_kong_terminal", "exposed_kong_simple",
            "concealed_kong_terminal", "concealed_kong_simple", "flower", "self_drawn",
            "closed_wait")
WAIT_ITEMS = ("chicken_hand", "all_chows", "edge_wait", "closed_wait", "single_wait",
              "dual_pung_wait")
SCHEMES = ("yao_ban_san", "yao_ban_liu", "yao_er_liu", "tui_dao_ba")
SCHEME_BASE = {"yao_ban_san": 30, "yao_ban_liu": 60, "yao_er_liu": 100, "tui_dao_ba": 100}
SCHEME_CAP = {"yao_ban_san": 300, "yao_ban_liu": 500, "yao_er_liu": 1000, "tui_dao_ba": 800}


def parse(text: str) -> list[int]:
    """'123m55z1f' -> kind ids (0-8 m, 9-17 p, 18-26 s, 27-33 z, 34-41 f)."""
    out = []
    for digits, suit in re.findall(r"(\d+)([mpszf])", text or ""):
        for d in digits:
            r = int(d)
            if not 1 <= r <= SUIT_RANKS[suit]:
                raise ValueError(f"bad rank {d}{suit}")
            out.append(SUIT_BASE[suit] + r - 1)
    if re.sub(r"(\d+)([mpszf])", "", (text or "").replace(" ", "")):
        raise ValueError(f"bad notation {text!r}")
    return out


def suit_of(k: int) -> str:
    return "mpsz"[k // 9] if k < 27 else "z"


def is_terminal_or_honor(k: int) -> bool:
    return k >= 27 or k % 9 in (0, 8)


def next_kind(k: int, dragon_cycle: list[int]) -> int:
    """7-baida successor (docs/rules.md §3)."""
    if k < 27:
        return (k // 9) * 9 + (k % 9 + 1) % 9
    if k <= 30:
        return 27 + (k - 27 + 1) % 4
    i = dragon_cycle.index(k)
    return dragon_cycle[(i + 1) % 3]


def wild_kinds(rules: dict, indicator: int | None) -> set[int]:
    mode = rules["wilds"]["wilds"]
    if mode == "none" or indicator is None:
        return set()
    if indicator >= 34:
        f = indicator - 34
        if mode == "3baida":
            group = range(34 + (f // 4) * 4, 34 + (f // 4) * 4 + 4)
            return {k for k in group if k != indicator}
        return {k for k in range(34, 42) if k != indicator}
    if mode == "3baida":
        return {indicator}
    return {indicator, next_kind(indicator, parse(rules["wilds"]["dragon_successor"]))}


# ---------------------------------------------------------------- groups
# A group identity: ("pair"|"pung"|"chow", base kind); a declared meld:
# ("chow"|"pung"|"kong"|"ckong", kind).

def group_kinds(g) -> list[int]:
    t, b = g
    if t == "chow":
        return [b, b + 1, b + 2]
    return [b] * (2 if t == "pair" else 3)


def identities_with(i: int):
    """Every group identity holding kind i."""
    yield ("pair", i)
    yield ("pung", i)
    if i < 27:
        r = i % 9
        for start in (r - 2, r - 1, r):
            if 0 <= start <= 6:
                yield ("chow", i - (r - start))


def complete(nat: tuple, wilds: int, melds: int, pairs: int) -> bool:
    """Can the natural counts (34) plus wilds form exactly melds + pairs groups?"""
    return _complete(nat, wilds, melds, pairs)


@cache
def _complete(nat, wilds, melds, pairs):
    i = next((k for k in range(34) if nat[k]), None)
    if i is None:
        return wilds == 3 * melds + 2 * pairs
    for t, b in identities_with(i):
        if t == "pair" and pairs == 0 or t != "pair" and melds == 0:
            continue
        ks = group_kinds((t, b))
        apos = ks.index(i)
        others = [ks[p] for p in range(len(ks)) if p != apos]
        # each other slot: a natural of its kind or a wild
        for choice in range(1 << len(others)):
            n = list(nat)
            n[i] -= 1
            used_w = 0
            ok = True
            for q, j in enumerate(others):
                if choice >> q & 1:
                    used_w += 1
                elif n[j] > 0:
                    n[j] -= 1
                else:
                    ok = False
            if ok and used_w <= wilds and _complete(tuple(n), wilds - used_w,
                                                    melds - (t != "pair"), pairs - (t == "pair")):
                return True
    return False


# ---------------------------------------------------------------- readings
# Tiles left: regular naturals (counts), the winning natural (pending flag),
# regular wilds (count), the winning wild (pending flag). A reading outcome:
# (sorted tuple of the other concealed groups, winning descriptor) with the
# winning descriptor (group, position of the winning tile in its kinds,
# winning tile is a wild, the winning group holds another wild).

NONHOST_MELD_REPS = ([("pung", s * 9) for s in range(3)] + [("pung", s * 9 + 1) for s in range(3)]
                     + [("pung", k) for k in range(27, 34)]
                     + [("chow", s * 9 + 1) for s in range(3)])
HOST_MELD_REPS = ([("pung", s * 9) for s in range(3)] + [("pung", s * 9 + 1) for s in range(3)]
                  + [("pung", k) for k in range(27, 34)]
                  + [("chow", s * 9 + r) for s in range(3) for r in (0, 1, 6)])
PAIR_REPS = [("pair", s * 9) for s in range(3)] + [("pair", k) for k in range(27, 34)]


def _wild_groups(n_melds: int, n_pairs: int, host: bool):
    """Outcomes for groups made only of wilds (identities by class)."""
    out = set()

    # place the pair first so the meld list stays sorted
    def rec_pair_first():
        if n_pairs:
            for p in PAIR_REPS:
                rec2(n_melds, [p], None)
            if host:
                for p in PAIR_REPS:
                    rec2(n_melds, [], (p, 0, True, True))
        else:
            rec2(n_melds, [], None)

    def rec2(melds_left, acc, win):
        if melds_left == 0:
            if host and win is None:
                return
            out.add((tuple(sorted(acc)), win))
            return
        last = [g for g in acc if g[0] != "pair"]
        floor = max(last) if last else None
        for m in NONHOST_MELD_REPS:
            if floor is not None and m < floor:
                continue
            rec2(melds_left - 1, acc + [m], win)
        if host and win is None:
            for m in HOST_MELD_REPS:
                for pos in range(3):
                    if m[0] == "pung" and pos > 0:
                        continue
                    rec2(melds_left - 1, acc, (m, pos, True, True))

    rec_pair_first()
    return out


@cache
def readings(nat: tuple, kwin: int, win_nat: bool, wilds: int, win_wild: bool,
             melds: int, pairs: int) -> frozenset:
    """All outcomes for the tiles left (see above)."""
    kinds = [k for k in range(34) if nat[k]]
    if win_nat:
        kinds.append(kwin)
    if not kinds:
        total = wilds + (1 if win_wild else 0)
        if total != 3 * melds + 2 * pairs:
            return frozenset()
        return frozenset(_wild_groups(melds, pairs, win_wild))
    i = min(kinds)
    out = set()
    anchors = []
    if nat[i]:
        anchors.append("n")
    if win_nat and kwin == i:
        anchors.append("*")
    for anchor in anchors:
        for g in identities_with(i):
            t, b = g
            if t == "pair" and pairs == 0 or t != "pair" and melds == 0:
                continue
            ks = group_kinds(g)
            apos = ks.index(i)
            # fill the other slots with every kind of tile that fits
            others = [p for p in range(len(ks)) if p != apos]
            for fills in _fills(ks, others, nat, kwin, win_nat, wilds, win_wild, anchor, i):
                n2 = list(nat)
                wn = win_nat
                wl = wilds
                ww = win_wild
                if anchor == "n":
                    n2[i] -= 1
                else:
                    wn = False
                host_pos = apos if anchor == "*" else None
                host_wild = False
                has_wild = False
                for p, f in zip(others, fills, strict=True):
                    if f == "n":
                        n2[ks[p]] -= 1
                    elif f == "*":
                        wn = False
                        host_pos = p
                    elif f == "w":
                        wl -= 1
                        has_wild = True
                    else:  # "@": the winning wild
                        ww = False
                        host_pos = p
                        host_wild = True
                rest = readings(tuple(n2), kwin, wn, wl, ww, melds - (t != "pair"),
                                pairs - (t == "pair"))
                for others_groups, win in rest:
                    if host_pos is not None:
                        if win is not None:
                            continue
                        # does the winning group hold a wild besides the winning tile?
                        other_wild = has_wild
                        out.add((others_groups, (g, host_pos, host_wild, other_wild)))
                    else:
                        out.add((tuple(sorted(others_groups + (g,))), win))
    return frozenset(out)


def _fills(ks, others, nat, kwin, win_nat, wilds, win_wild, anchor, i):
    """Every way to fill the slots ``others`` of a group of kinds ``ks``."""
    res = []

    def rec(idx, n, wn, wl, ww, acc):
        if idx == len(others):
            res.append(tuple(acc))
            return
        j = ks[others[idx]]
        if n[j] > 0:
            n[j] -= 1
            rec(idx + 1, n, wn, wl, ww, acc + ["n"])
            n[j] += 1
        if wn and j == kwin:
            rec(idx + 1, n, False, wl, ww, acc + ["*"])
        if wl > 0:
            rec(idx + 1, n, wn, wl - 1, ww, acc + ["w"])
        if ww:
            rec(idx + 1, n, wn, wl, False, acc + ["@"])

    n0 = list(nat)
    wn0 = win_nat
    if anchor == "n":
        n0[i] -= 1
    else:
        wn0 = False
    rec(0, n0, wn0, wilds, win_wild, [])
    return res


# ---------------------------------------------------------------- scoring
def _shape(g, pos):
    t, b = g
    if t == "pair":
        return "single"
    if t == "pung":
        return "dual"
    if pos == 1:
        return "closed"
    if pos == 0 and b % 9 == 6:
        return "edge"      # 7 completing 89
    if pos == 2 and b % 9 == 0:
        return "edge"      # 3 completing 12
    return "two_sided"


def _points(scheme, fan, fu):
    cap = SCHEME_CAP[scheme]
    if fan >= 3:
        return cap
    base = SCHEME_BASE[scheme]
    if scheme == "tui_dao_ba":
        p = base * 2 ** fan
    else:
        p = (base + fu) * 2 ** fan
        p = -(-p // 10) * 10
    return min(p, cap)


def _silver(rules, scheme, pts):
    if rules["scoring"]["points"]["silver_rounding"] and scheme in ("yao_ban_liu", "yao_er_liu"):
        h, r = divmod(pts, 100)
        r = 0 if r <= 20 else (50 if r <= 60 else 100)
        return h * 100 + r
    return pts


def reference_score(rules: dict, *, hand: str, win_tile: str, melds=(), win_by="discard",
                    seat="E", round_wind="E", indicator=None, flowers="", context=(),
                    discarder=None, fed=None, fed_by_winner=None, kong_from=None,
                    enumerator=None) -> dict:
    """Score a situation by brute force. rules: ``RuleSet.to_dict()``.

    enumerator: the reading enumerator (default ``readings``; the tests also
    plug in a substitution brute force with the same signature)."""
    tai_tab = rules["scoring"]["tai"]
    win_r = rules["win"]
    fan_fu = rules["scoring"]["system"] == "fan_fu"
    hand_k = parse(hand)
    wt = parse(win_tile)[0]
    ind = parse(indicator)[0] if indicator else None
    wild = wild_kinds(rules, ind)
    s = SEATS.index(seat)
    rw = SEATS.index(round_wind)
    seat_k, round_k = EAST + s, EAST + rw
    fl = parse(flowers)
    fed = {SEATS.index(k): v for k, v in (fed or {}).items()}
    fbw = {SEATS.index(k): v for k, v in (fed_by_winner or {}).items()}
    decl = []
    for m in melds:
        typ, tiles = m.split(":")
        ks = sorted(parse(tiles))
        decl.append((typ, ks[0]))
    ctx = set(context)
    selfd = win_by == "self_draw"

    # ---- invalid input (docs/rules.md §10)
    copies = [0] * 42
    for k in hand_k + [wt] + ([ind] if ind is not None else []) + fl:
        copies[k] += 1
    if rules["wilds"]["wilds"] == "none" and ind is not None:
        return {"error": "indicator_no_wilds"}
    if rules["wilds"]["wilds"] != "none" and ind is None:
        return {"error": "no_indicator"}
    for t, b in decl:
        if t == "chow" and not rules["claims"]["allow_chow"]:
            return {"error": "chow_not_allowed"}
        for j in ([b, b + 1, b + 2] if t == "chow" else [b] * (3 if t == "pung" else 4)):
            copies[j] += 1
            if j in wild:
                return {"error": "wild_in_meld"}
    if len(hand_k) + 3 * len(decl) != 13:
        return {"error": "tile_count"}
    if any(k >= 34 and k not in wild for k in hand_k + [wt]):
        return {"error": "flower_in_hand"}
    if any(k in wild or k == ind for k in fl):
        return {"error": "bad_flower"}
    if any(copies[k] > (4 if k < 34 else 1) for k in range(42)):
        return {"error": "five_copies"}
    if win_by == "robbing_kong" and wt in wild:
        return {"error": "rob_wild"}
    if "after_kong" in ctx and not selfd:
        return {"error": "bad_after_kong"}
    if "heavenly" in ctx and (s != 0 or not selfd or decl):
        return {"error": "bad_heavenly"}
    if "earthly" in ctx:
        if s == 0 or decl:
            return {"error": "bad_earthly"}
        if win_r["earthly_hand_rule"] == "dealer_first_discard":
            if win_by != "discard" or discarder not in (None, "E"):
                return {"error": "bad_earthly"}
        elif not selfd:
            return {"error": "bad_earthly"}
    if discarder is not None and (selfd or SEATS.index(discarder) == s):
        return {"error": "bad_seat"}
    if fed.get(s) or fbw.get(s):
        return {"error": "bad_seat"}
    if sum(fed.values()) > sum(1 for t, _ in decl if t != "ckong"):
        return {"error": "bad_fed"}
    if kong_from is not None and (SEATS.index(kong_from) == s or not selfd
                                  or "after_kong" not in ctx
                                  or not any(t == "kong" for t, _ in decl)):
        return {"error": "bad_kong_from"}

    # ---- the 14 concealed tiles
    nat14 = [0] * 34
    n_wild = 0
    for k in hand_k:
        if k in wild:
            n_wild += 1
        else:
            nat14[k] += 1
    win_is_wild = wt in wild
    nat13 = tuple(nat14)
    w13 = n_wild
    if not win_is_wild:
        nat14[wt] += 1
    w14 = n_wild + (1 if win_is_wild else 0)
    n_melds = len(decl)
    heav = "heavenly" in ctx
    in_play = 0
    for k in wild:
        in_play += 4 if k < 34 else 1
    if ind is not None and ind in wild:
        in_play -= 1
    holds_all3 = w14 == 3 and in_play == 3

    def val(item):
        return tai_tab.get(item, 0)

    # ---- hand properties
    wsw = (w13 >= 1 and not heav and
           complete(nat13, w13 - 1, 4 - n_melds, 0))
    waits = None
    if win_r["wait_needs_single_kind"] and not heav:
        visible = [0] * 34
        for k in hand_k:
            if k < 34:
                visible[k] += 1
        for t, b in decl:
            for j in ([b, b + 1, b + 2] if t == "chow" else [b] * (3 if t == "pung" else 4)):
                visible[j] += 1
        if ind is not None and ind < 34:
            visible[ind] += 1
        waits = set()
        for x in range(34):
            if x in wild or visible[x] >= 4:
                continue
            n = list(nat13)
            n[x] += 1
            if complete(tuple(n), w13, 4 - n_melds, 1):
                waits.add(x)

    hand_items = dict.fromkeys(TAI_ITEMS, 0)
    hand_present = set()

    def applies(item, times=1):
        """A hand item applies ``times`` times: its tai, and its presence when
        the variant has it (also at 0 tai)."""
        hand_items[item] += times * val(item)
        if item in tai_tab:
            hand_present.add(item)

    hand_fan = dict.fromkeys(FAN_ITEMS, 0)
    hand_fu = dict.fromkeys(FU_ITEMS, 0)
    seat_fl = [parse(f)[0] for f in rules["flowers"]["seat_flowers"][seat]]
    groups_fl = [[k for k in fl if k < 38], [k for k in fl if k >= 38]]
    if not fan_fu:
        if len(fl) == 8 and "all_flowers" in tai_tab:
            applies("all_flowers")
        else:
            for gfl in groups_fl:
                if len(gfl) == 4 and "flower_set" in tai_tab:
                    applies("flower_set")
                elif any(k in seat_fl for k in gfl):
                    applies("seat_flower", sum(k in seat_fl for k in gfl))
        if selfd:
            applies("self_drawn")
            if "after_kong" in ctx:
                applies("out_with_replacement")
            if "last_tile" in ctx:
                applies("last_tile_draw")
            if holds_all3:
                applies("three_wilds")
            if win_is_wild and not heav:
                applies("wild_drawn")
        if w14 == 0:
            applies("no_wilds")
        if win_by == "robbing_kong":
            applies("robbing_the_kong")
        if heav:
            applies("heavenly_hand")
        if "earthly" in ctx:
            applies("earthly_hand")
        if wsw:
            applies("wild_single_wait")
    else:
        fan_tab = rules["scoring"]["fan"]
        fu_tab = rules["scoring"]["fu"]
        for gfl in groups_fl:
            if len(gfl) == 4:
                hand_fan["flower_set"] += fan_tab.get("flower_set", 0)
            else:
                hand_fan["seat_flower"] += (fan_tab.get("seat_flower", 0)
                                            * sum(k in seat_fl for k in gfl))
        hand_fu["flower"] = fu_tab.get("flower", 0) * len(fl)
        if selfd:
            hand_fu["self_drawn"] = fu_tab.get("self_drawn", 0)
        for t, b in decl:
            if t == "chow":
                continue
            kind = "terminal" if is_terminal_or_honor(b) else "simple"
            name = {"pung": "exposed_pung", "kong": "exposed_kong",
                    "ckong": "concealed_kong"}[t]
            hand_fu[f"{name}_{kind}"] += fu_tab.get(f"{name}_{kind}", 0)

    # ---- every reading
    outs = (enumerator or readings)(nat13, -1 if win_is_wild else wt, not win_is_wild, n_wild,
                                    win_is_wild, 4 - n_melds, 1)
    base = dict(complete=False, win=False, why="not_complete", tai=None, tai_for_min=None,
                items={}, present=[], fan=None, fu=None, points=None, silver=None,
                payments=None, fan_items={}, fu_items={}, wilds=w14)
    if not outs:
        return base
    best = None
    any_min = any_minpat = any_legal = False
    pats = set(win_r["allowed_patterns"])
    for others_groups, win in outs:
        g_win, pos, win_wild_tile, other_wild = win
        concealed = list(others_groups) + [g_win]
        melds_all = [("pung" if t in ("pung", "kong", "ckong") else "chow", b) for t, b in decl]
        melds_all += [g for g in concealed if g[0] != "pair"]
        pair = next(g for g in concealed if g[0] == "pair")
        tiles_kinds = [k for g in concealed for k in group_kinds(g)]
        for t, b in decl:
            tiles_kinds += [b, b + 1, b + 2] if t == "chow" else [b]
        suits = {suit_of(k) for k in tiles_kinds if k < 27}
        honors = any(k >= 27 for k in tiles_kinds)
        ff = len(suits) == 1 and not honors
        hf = len(suits) == 1 and honors
        ah = not suits and honors
        pungs = [b for t, b in melds_all if t == "pung"]
        allp = len(pungs) == 4
        alls = all(t == "chow" for t, _ in melds_all)
        ndrag = sum(1 for b in pungs if b >= WHITE)
        seatp = seat_k in pungs
        roundp = round_k in pungs
        ident = group_kinds(g_win)[pos]
        shape = _shape(g_win, pos)
        # wait item
        item = None
        closed_fu = False
        if not heav:
            if shape == "two_sided":
                if alls and pair[1] not in (seat_k, round_k) and "all_chows" in tai_tab:
                    item = "all_chows"
            else:
                name = {"single": "single_wait", "dual": "dual_pung_wait", "edge": "edge_wait",
                        "closed": "closed_wait"}[shape]
                if waits is None:
                    ok = True
                elif shape == "dual":
                    ok = waits == {ident, pair[1]} and ident != pair[1]
                else:
                    ok = waits == {ident}
                closed_fu = shape == "closed" and ok
                if ok and name in tai_tab:
                    item = name
            if item is None and "chicken_hand" in tai_tab:
                item = "chicken_hand"
        big = item == "single_wait" and n_melds == 4 and "big_single_wait" in tai_tab
        items = dict(hand_items)
        present = set(hand_present)
        fan_items = fu_items = None
        if not fan_fu:
            for flag, name in ((ff, "full_flush"), (hf, "half_flush"), (ah, "all_honors"),
                               (allp, "all_pungs"), (ndrag > 0, "dragon_pung"),
                               (seatp, "seat_wind_pung"), (roundp, "prevalent_wind_pung"),
                               (big, "big_single_wait")):
                if flag and name in tai_tab:
                    present.add(name)
            if item:
                present.add(item)
            if ff:
                items["full_flush"] += val("full_flush")
            if hf:
                items["half_flush"] += val("half_flush")
            if ah:
                items["all_honors"] += val("all_honors")
            if allp:
                items["all_pungs"] += val("all_pungs")
            items["dragon_pung"] += ndrag * val("dragon_pung")
            if seatp:
                items["seat_wind_pung"] += val("seat_wind_pung")
            if roundp:
                items["prevalent_wind_pung"] += val("prevalent_wind_pung")
            if item:
                items[item] += val(item)
            if big:
                items["big_single_wait"] += val("big_single_wait")
            tai = sum(items.values())
            tmin = tai - items["three_wilds"]
            fan = fu = pts = None
        else:
            fan_tab = rules["scoring"]["fan"]
            fu_tab = rules["scoring"]["fu"]
            fan_items = dict(hand_fan)
            fan_items["dragon_pung"] += ndrag * fan_tab.get("dragon_pung", 0)
            for flag, name in ((ff, "full_flush"), (hf, "half_flush"), (ah, "all_honors"),
                               (allp, "all_pungs")):
                if flag:
                    fan_items[name] += fan_tab.get(name, 0)
            fan = min(sum(fan_items.values()), rules["scoring"]["points"]["fan_cap"])
            fu_items = dict(hand_fu)
            for idx, g in enumerate(concealed):
                if g[0] != "pung":
                    continue
                kind = "terminal" if is_terminal_or_honor(g[1]) else "simple"
                # the winning group is the last one: completed by a discard -> exposed
                exposed = idx == len(concealed) - 1 and not selfd
                name = f"{'exposed' if exposed else 'concealed'}_pung_{kind}"
                fu_items[name] += fu_tab.get(name, 0)
            if closed_fu:
                fu_items["closed_wait"] += fu_tab.get("closed_wait", 0)
            fu = sum(fu_items.values())
            pts = _points(rules["scoring"]["points"]["points_scheme"], fan, fu)
            tai = None
            tmin = fan
        okmin = tmin >= win_r["min_tai"]
        okpat = (not pats or (ff and "full_flush" in pats) or (hf and "half_flush" in pats)
                 or (ah and "all_honors" in pats) or (allp and "all_pungs" in pats))
        okdis = True
        if win_by == "discard":
            rule = win_r["discard_win_wild_rule"]
            if rule == "forbid_wild_pair":
                okdis = not (g_win[0] == "pair" and (win_wild_tile or other_wild))
            elif rule == "forbid_any_wild_use":
                okdis = not (win_wild_tile or other_wild)
        legal = okmin and okpat and okdis
        any_min |= okmin
        any_minpat |= okmin and okpat
        any_legal |= legal
        if not fan_fu:
            key = (tai, legal, tuple(items[n] for n in TAI_ITEMS),
                   tuple(n in present for n in TAI_ITEMS))
        else:
            key = (pts, fan, fu, legal, tuple(fan_items[n] for n in FAN_ITEMS),
                   tuple(fu_items[n] for n in FU_ITEMS))
        if best is None or key > best[0]:
            best = (key, tai, tmin, items, present, fan, fu, fan_items, fu_items)
    key, tai, tmin, items, present, fan, fu, fan_items, fu_items = best
    out = dict(base, complete=True)
    if not fan_fu:
        out["tai"] = tai
        out["tai_for_min"] = tmin
        out["items"] = {k: v for k, v in items.items() if v}
        out["present"] = [n for n in TAI_ITEMS if n in present]
    else:
        out["fan"] = fan
        out["fu"] = fu
        out["fan_items"] = {k: v for k, v in fan_items.items() if v}
        out["fu_items"] = {k: v for k, v in fu_items.items() if v}
        out["points"] = {sc: _points(sc, fan, fu) for sc in SCHEMES}
        scheme = rules["scoring"]["points"]["points_scheme"]
        out["silver"] = _silver(rules, scheme, out["points"][scheme])
    # ---- legal-win decision
    if win_r["self_draw_only"] and win_by == "discard":
        why = "self_draw_only"
    elif win_by == "robbing_kong" and not win_r["wild_single_wait_can_rob"] and wsw:
        why = "wild_single_cannot_rob"
    elif win_r["three_wilds_self_draw_only"] and holds_all3 and not selfd:
        why = "three_wilds_self_draw_only"
    elif not any_min:
        why = "below_min_tai"
    elif not any_minpat:
        why = "pattern_not_allowed"
    elif not any_legal:
        why = "wild_discard_rule"
    else:
        why = "legal"
    out["why"] = why
    out["win"] = why == "legal"
    if not out["win"] or (not selfd and discarder is None):
        return out
    # ---- payments (docs/rules.md §7, §8, §10)
    pay = rules["payments"]
    rule = pay["payment_rule"]
    T = (tai + pay["base_points"]) if not fan_fu else out["silver"]
    disc = SEATS.index(discarder) if discarder is not None else None
    feeder = SEATS.index(kong_from) if (kong_from is not None and "after_kong" in ctx) else None
    shares = {}
    for x in range(4):
        if x == s:
            continue
        bound = fed.get(x, 0) >= 3 or fbw.get(x, 0) >= 3
        mutual = fed.get(x, 0) >= 3 and fbw.get(x, 0) >= 3
        if rule == "ninghai":
            share = T
        elif win_by == "robbing_kong":
            share = 5 * T if x == disc else 0
        elif rule == "ningbo":
            if selfd:
                special = feeder is not None or any(
                    fed.get(y, 0) >= 3 or fbw.get(y, 0) >= 3 for y in range(4) if y != s)
                if not special:
                    share = T
                else:
                    share = (10 * T if mutual else 5 * T) if bound else 0
                    if x == feeder:
                        share = max(share, 10 * T if fed.get(x, 0) >= 3 else 5 * T)
            else:
                if x == disc:
                    share = (pay["bound_discarder_pays"] * T + (2 * T if mutual else 0)
                             if bound else 2 * T)
                else:
                    share = (4 * T if mutual else 2 * T) if bound else 0
        else:  # ningbo_5x
            if selfd:
                share = 5 * T if (bound or x == feeder) else T
            else:
                if x == disc:
                    share = pay["bound_discarder_pays"] * T if bound else 2 * T
                else:
                    share = 2 * T if bound else 0
        shares[x] = share
    total = sum(shares.values())
    cap = pay["cap"]
    if rule != "ninghai" and cap and total > cap:
        scaled = {x: v * cap // total for x, v in shares.items()}
        rem = cap - sum(scaled.values())
        order = [(s + d) % 4 for d in (1, 2, 3)]
        payers = [x for x in order if shares[x] > 0]
        while rem > 0:
            for x in payers:
                if rem == 0:
                    break
                scaled[x] += 1
                rem -= 1
        shares = scaled
        total = cap
    payments = {SEATS[x]: -v for x, v in shares.items()}
    payments[SEATS[s]] = total
    out["payments"] = {k: payments[k] for k in SEATS}
    return out
