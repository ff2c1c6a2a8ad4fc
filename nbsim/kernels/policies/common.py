"""Helpers shared by the policies (Numba): natural counts, tile usefulness,
and the value policy's targets (open hand, flushes, all pungs) with their
shanten and estimated worth.

Encodings as in ``nbsim.kernels.hand``: ``nat`` int8[34] natural counts
(wilds removed), group indices from ``hand.group_indices``. The target
machinery is shared by ``value`` and ``defend`` (docs/rules.md §5, §6 and §8:
the items a target scores are read from the variant's tai or fan table).
"""

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels.jit import njit, nrt_free

# value-policy targets
TG_OPEN = 0
TG_FULL_FLUSH = 1       # + suit (0 m, 1 p, 2 s)
TG_HALF_FLUSH = 4       # + suit
TG_ALL_PUNGS = 7
N_TARGETS = 8

BIG = 1 << 30
NO_ITEM = np.int64(-1)   # _item: the unit has no such item (not a literal -1)

# ------------------------------------------------------------------ basics
@njit(cache=True, inline="always")
def split_hand(hand, wild, nat):
    """Natural counts of ``hand`` into ``nat`` (int8[34]); returns the number
    of wild tiles held (wild flowers included)."""
    w = np.int64(0)     # not a literal: see hand._group
    for k in range(C.N_PLAY):
        if wild[k]:
            nat[k] = 0
            w += hand[k]
        else:
            nat[k] = hand[k]
    for k in range(C.N_PLAY, C.N_KINDS):
        if wild[k]:
            w += hand[k]
    return w


@njit(cache=True, inline="always")
def suit_of(kind):
    """0 m, 1 p, 2 s, 3 honors (kinds 0..33)."""
    return kind // 9 if kind < C.HONOR0 else 3


@nrt_free(kernel_only=True)
def usefulness(nat, kind, visible):
    """How much a natural tile of ``kind`` helps the hand ``nat`` (int8[34]):
    other copies held (pair/pung potential) weigh 4, a neighbour 2 ranks
    away 1, an adjacent rank 2; honors and terminals connect less. Copies
    already visible make a tile less useful. Higher: keep; lower: discard."""
    u = 4 * (nat[kind] - 1)
    if kind < C.HONOR0:
        r = kind % 9
        for d in range(-2, 3):
            if d == 0:
                continue
            rr = r + d
            if 0 <= rr < 9:
                w = 2 if (d == 1 or d == -1) else 1
                u += w * nat[kind + d]
        if r == 0 or r == 8:
            u -= 1
        elif r >= 2 and r <= 6:
            u += 1
    else:
        u -= 2
    left = 4 - visible[kind] - nat[kind]
    if left <= 0:
        u -= 2
    return u


# ------------------------------------------------------------------ targets
@njit(cache=True, inline="always")
def _top_pungs(k, c1, c2, c3):
    """Most naturals in k pungs when c_v kinds offer v tiles (v = 1..3)."""
    t3 = min(k, c3)
    t2 = min(k - t3, c2)
    t1 = min(k - t3 - t2, c1)
    return 3 * t3 + 2 * t2 + t1


@nrt_free(kernel_only=True)
def pungs_shanten(nat, n_wilds, n_declared):
    """Shanten toward an all-pungs hand (pungs/kongs + pair only) of the
    natural counts ``nat``: ``pungs_shanten_counts`` of how many kinds hold
    1, 2 and 3+ tiles."""
    c1, c2, c3 = held_counts(nat)
    return pungs_shanten_counts(c1, c2, c3, n_wilds, n_declared)


@njit(cache=True, inline="always")
def held_counts(nat):
    """How many natural kinds of ``nat`` (int8[34]) hold 1, 2 and 3 or more
    tiles."""
    c1 = np.int64(0)
    c2 = np.int64(0)
    c3 = np.int64(0)
    for q in range(C.N_PLAY):
        c = nat[q]
        if c == 1:
            c1 += 1
        elif c == 2:
            c2 += 1
        elif c >= 3:
            c3 += 1
    return c1, c2, c3


@njit(cache=True, inline="always")
def held_counts_less(c1, c2, c3, c):
    """``held_counts`` after one tile of a kind held ``c`` times is taken out
    (c = 0: nothing changes, e.g. a wild goes)."""
    return c1 - (c == 1) + (c == 2), c2 - (c == 2) + (c == 3), c3 - (c == 3)


@njit(cache=True, inline="always")
def pungs_shanten_counts(c1, c2, c3, n_wilds, n_declared):
    """Shanten toward all pungs when c_v kinds hold v tiles (v = 1, 2, 3 or
    more): 3k + 1 - wilds - (most naturals fitting k pungs + 1 pair), k = 4 -
    n_declared. The pair comes from a kind holding 1, 2 or 3+ tiles (or
    from wilds)."""
    k = 4 - n_declared
    best = _top_pungs(k, c1, c2, c3)
    if c1 > 0:
        best = max(best, 1 + _top_pungs(k, c1 - 1, c2, c3))
    if c2 > 0:
        best = max(best, 2 + _top_pungs(k, c1, c2 - 1, c3))
    if c3 > 0:
        # a kind of 3 (or 4) as the pair: 2 tiles fit
        best = max(best, 2 + _top_pungs(k, c1, c2, c3 - 1))
    return 3 * k + 1 - n_wilds - best


@nrt_free
def target_ok(target, melds, n_melds):
    """Are the declared melds compatible with the target?"""
    for i in range(n_melds):
        t = melds[i, C.MELD_TYPE]
        s = suit_of(melds[i, C.MELD_KIND])
        full = TG_FULL_FLUSH <= target < TG_HALF_FLUSH
        half = TG_HALF_FLUSH <= target < TG_ALL_PUNGS
        if ((target == TG_ALL_PUNGS and t == C.MELD_CHOW)
                or (full and s != target - TG_FULL_FLUSH)
                or (half and s != 3 and s != target - TG_HALF_FLUSH)):
            return False
    return True


@njit(cache=True, inline="always")
def kind_in_target(target, kind):
    """Does a tile of ``kind`` (0..33) belong to the target's tile set?"""
    if target >= TG_FULL_FLUSH and target < TG_HALF_FLUSH:
        return suit_of(kind) == target - TG_FULL_FLUSH
    if target >= TG_HALF_FLUSH and target < TG_ALL_PUNGS:
        s = suit_of(kind)
        return s == 3 or s == target - TG_HALF_FLUSH
    return True


@njit(cache=True, inline="always")
def target_fit(target, i0, i1, i2, i3, n_wilds, n_declared, tables):
    """Shanten toward a target other than all pungs, from the hand's group
    indices: off-target groups are dropped (their tiles count as tiles to
    replace). ``target_fit_classes`` of the groups' fit classes."""
    scls = tables.suit_fit_class
    hcls = tables.honor_fit_class
    return target_fit_classes(target, np.int64(scls[i0]), np.int64(scls[i1]),
                              np.int64(scls[i2]), np.int64(hcls[i3]), np.int64(scls[0]),
                              np.int64(hcls[0]), n_wilds, n_declared, tables)


@njit(cache=True, inline="always")
def target_fit_classes(target, a0, a1, a2, a3, z, zh, n_wilds, n_declared, tables):
    """``target_fit`` from the fit classes a0..a3 of the four groups (m, p,
    s, honors; ``hand.group_class``); ``z`` and ``zh``: the classes of an
    empty suit and an empty honor group (index 0), which stand for a
    dropped group. For callers that try many hands differing in one group
    (only that group's class has to be looked up)."""
    k = 4 - n_declared
    if target == TG_OPEN:
        f = H.best_fit_classes(a0, a1, a2, a3, k, tables)
    else:
        if target < TG_HALF_FLUSH:
            s = target - TG_FULL_FLUSH
            h = zh
        else:
            s = target - TG_HALF_FLUSH
            h = a3
        f = H.best_fit_classes(a0 if s == 0 else z, a1 if s == 1 else z, a2 if s == 2 else z,
                               h, k, tables)
    return 3 * k + 1 - n_wilds - f


@nrt_free
def target_shanten(target, nat, n_wilds, n_declared, tables, tmp):
    """Shanten toward ``target`` (TG_*): off-target tiles count as tiles to
    replace. nat: int8[34] natural counts; tmp: int8[34] scratch (unused)."""
    if target == TG_ALL_PUNGS:
        return pungs_shanten(nat, n_wilds, n_declared)
    i0, i1, i2, i3 = H.group_indices(nat)
    return target_fit(target, i0, i1, i2, i3, n_wilds, n_declared, tables)


@nrt_free(kernel_only=True)
def _item(rules, system, tai_item, fan_item):
    """Value of an item in the variant's units (tai or fan); 0 if absent."""
    if system == C.SYSTEM_TAI:
        if tai_item < 0:
            return 0.0
        v = rules[C.R_TAI + tai_item]
        return 0.0 if v < 0 else float(v)
    if fan_item < 0:
        return 0.0
    return float(rules[C.R_FAN + fan_item])


@nrt_free(kernel_only=True)
def estimate_value(rules, target, nat, n_wilds, melds, n_melds, seat, round_wind,
                   flowers):
    """Estimated tai (or fan) of a win reached through ``target``: the
    target's own item, the seat flowers set aside, dragon and seat/round
    wind pairs and pungs held, and the chance items (self-drawn, a wait item,
    no wilds) at rough odds (``estimate_values``)."""
    v_open, v_full, v_half, v_pungs = estimate_values(rules, nat, n_wilds, melds, n_melds,
                                                      seat, round_wind, flowers)
    return _pick_value(target, v_open, v_full, v_half, v_pungs)


@njit(cache=True, inline="always")
def _pick_value(target, v_open, v_full, v_half, v_pungs):
    """The value of ``target`` among ``estimate_values``' four."""
    if target >= TG_FULL_FLUSH and target < TG_HALF_FLUSH:
        return v_full
    if target >= TG_HALF_FLUSH and target < TG_ALL_PUNGS:
        return v_half
    if target == TG_ALL_PUNGS:
        return v_pungs
    return v_open


@njit(cache=True, inline="always")
def _add4(a, b, c, d, x):
    return a + x, b + x, c + x, d + x


@nrt_free(kernel_only=True)
def honor_pung_value(rules, k, seat, round_wind):
    """What a pung of honour kind ``k`` scores for ``seat`` (tai, or fan in
    Ninghai; docs/rules.md §6): the dragon pung item for a dragon,
    the seat wind and prevalent wind items for a wind that is the seat's or
    the round's, 0 for another wind."""
    system = rules[C.R_SYSTEM]
    if k >= C.WHITE:
        return _item(rules, system, C.T_DRAGON_PUNG, C.F_DRAGON_PUNG)
    v = 0.0
    if k - C.EAST == seat:
        v += _item(rules, system, C.T_SEAT_WIND_PUNG, NO_ITEM)
    if k - C.EAST == round_wind:
        v += _item(rules, system, C.T_PREVALENT_WIND_PUNG, NO_ITEM)
    return v


@nrt_free(kernel_only=True)
def estimate_values(rules, nat, n_wilds, melds, n_melds, seat, round_wind, flowers):
    """``estimate_value`` of the open hand, a full flush, a half flush and
    all pungs, in one pass: each starts from its target's own item (none
    for the open hand) and adds the same items in the same order, so each
    is exactly what a pass for that target alone gives."""
    system = rules[C.R_SYSTEM]
    v_open = 0.0
    v_full = 0.0 + _item(rules, system, C.T_FULL_FLUSH, C.F_FULL_FLUSH)
    v_half = 0.0 + _item(rules, system, C.T_HALF_FLUSH, C.F_HALF_FLUSH)
    v_pungs = 0.0 + _item(rules, system, C.T_ALL_PUNGS, C.F_ALL_PUNGS)
    # flowers set aside
    nf = 0
    for f in range(C.N_FLOWERS):
        if flowers & (1 << f) and rules[C.R_SEAT_FLOWERS + seat * 8 + f]:
            nf += 1
    v_open, v_full, v_half, v_pungs = _add4(v_open, v_full, v_half, v_pungs,
                                            nf * _item(rules, system, C.T_SEAT_FLOWER,
                                                       C.F_SEAT_FLOWER))
    # honor pungs: declared, or likely from pairs/pungs in hand
    dragon = _item(rules, system, C.T_DRAGON_PUNG, C.F_DRAGON_PUNG)
    seatw = _item(rules, system, C.T_SEAT_WIND_PUNG, NO_ITEM)
    roundw = _item(rules, system, C.T_PREVALENT_WIND_PUNG, NO_ITEM)
    for k in range(C.HONOR0, C.N_PLAY):
        have = 0.0
        if nat[k] >= 3:
            have = 1.0
        elif nat[k] == 2:
            have = 0.6
        for i in range(n_melds):
            if melds[i, C.MELD_TYPE] != C.MELD_CHOW and melds[i, C.MELD_KIND] == k:
                have = 1.0
        if have > 0.0:
            if k >= C.WHITE:
                v_open, v_full, v_half, v_pungs = _add4(v_open, v_full, v_half, v_pungs,
                                                        have * dragon)
            else:
                if k - C.EAST == seat:
                    v_open, v_full, v_half, v_pungs = _add4(v_open, v_full, v_half, v_pungs,
                                                            have * seatw)
                if k - C.EAST == round_wind:
                    v_open, v_full, v_half, v_pungs = _add4(v_open, v_full, v_half, v_pungs,
                                                            have * roundw)
    # chance items
    if rules[C.R_SELF_DRAW_ONLY]:
        x = _item(rules, system, C.T_SELF_DRAWN, NO_ITEM)
    else:
        x = 0.45 * _item(rules, system, C.T_SELF_DRAWN, NO_ITEM)
    v_open, v_full, v_half, v_pungs = _add4(v_open, v_full, v_half, v_pungs, x)
    if n_wilds == 0:
        v_open, v_full, v_half, v_pungs = _add4(v_open, v_full, v_half, v_pungs,
                                                0.5 * _item(rules, system, C.T_NO_WILDS,
                                                            NO_ITEM))
    v_open, v_full, v_half, v_pungs = _add4(v_open, v_full, v_half, v_pungs,
                                            0.4 * _item(rules, system, C.T_SINGLE_WAIT,
                                                        NO_ITEM))
    return v_open, v_full, v_half, v_pungs


@nrt_free(kernel_only=True)
def choose_target(rules, tables, nat, n_wilds, melds, n_melds, seat, round_wind,
                  flowers, tmp):
    """The value policy's target for the current hand: the feasible target
    with the lowest cost = shanten + 1.5 x the estimated shortfall below the
    tai minimum - 0.1 x the estimated value (``target_by_cost``)."""
    return target_by_cost(rules, tables, nat, n_wilds, melds, n_melds, seat, round_wind,
                          flowers, tmp, 1.5, 0.1)[0]


@nrt_free(kernel_only=True)
def target_by_cost(rules, tables, nat, n_wilds, melds, n_melds, seat, round_wind, flowers,
                   tmp, short_weight, value_weight):
    """(target, its estimated value): the feasible target (TG_*) with the
    lowest cost = shanten + ``short_weight`` x the estimated shortfall below
    the tai minimum - ``value_weight`` x the estimated value
    (``estimate_value``, tai or fan). Targets outside a variant's
    allowed_patterns are skipped (the open hand among them); TG_OPEN when
    none is feasible. The estimated values of all targets come from one
    pass (``estimate_values``), the fit classes of the hand's groups from
    one look-up each (``target_fit_classes``)."""
    min_tai = rules[C.R_MIN_TAI]
    allowed = rules[C.R_ALLOWED_PATTERNS]
    best = TG_OPEN
    best_cost = 1e9
    best_v = -1.0
    # every target's estimate_value, in one pass (a flush's is the same for
    # every suit)
    v_open, v_full, v_half, v_pungs = estimate_values(rules, nat, n_wilds, melds, n_melds,
                                                      seat, round_wind, flowers)
    # the same hand for every target: its groups' fit classes, looked up once
    i0, i1, i2, i3 = H.group_indices(nat)
    a0, a1, a2, a3, z, zh = H.hand_classes(i0, i1, i2, i3, tables)
    for t in range(N_TARGETS):
        if allowed != 0:
            if t == TG_OPEN:
                continue
            if t < TG_HALF_FLUSH and t >= TG_FULL_FLUSH and not (allowed & C.PAT_FULL_FLUSH):
                continue
            if t >= TG_HALF_FLUSH and t < TG_ALL_PUNGS and not (allowed & C.PAT_HALF_FLUSH):
                continue
            if t == TG_ALL_PUNGS and not (allowed & C.PAT_ALL_PUNGS):
                continue
        if not target_ok(t, melds, n_melds):
            continue
        if t == TG_ALL_PUNGS:
            s = pungs_shanten(nat, n_wilds, n_melds)
        else:
            s = target_fit_classes(t, a0, a1, a2, a3, z, zh, n_wilds, n_melds, tables)
        v = _pick_value(t, v_open, v_full, v_half, v_pungs)
        short = min_tai - v
        if short < 0.0:
            short = 0.0
        cost = s + short_weight * short - value_weight * v
        if cost < best_cost:
            best_cost = cost
            best = t
            best_v = v
    if best_v < 0.0:
        best_v = _pick_value(best, v_open, v_full, v_half, v_pungs)
    return best, best_v




# ------------------------------------------------------------------ claim codes
CLAIM_PASS = 0
CLAIM_PUNG = 1
CLAIM_KONG = 2
CLAIM_CHOW = 3          # + j, j = 0 (the discard is the lowest tile), 1 (middle), 2 (highest)


# ------------------------------------------------------------------ view helpers
@njit(cache=True, inline="always")
def own_wilds(view, nat):
    """Natural counts of the deciding seat's hand into ``nat``; returns its wilds."""
    return split_hand(view.hand, view.wild, nat)


@njit(cache=True, inline="always")
def view_target(view, nat, n_wilds, tmp):
    """The value policy's target (``choose_target``) for the deciding seat."""
    s = view.seat
    return choose_target(view.rules, view.tables, nat, n_wilds, view.own_melds,
                         view.n_melds[s], s, view.round_wind, view.flowers[s], tmp)


@nrt_free(inline="always")
def shanten_toward(target, nat, n_wilds, n_declared, i0, i1, i2, i3, tables):
    """Shanten toward ``target`` (TG_*) of the natural counts ``nat``, whose
    group indices are i0..i3, with ``n_wilds`` wilds: all pungs counts pungs
    and pairs (``pungs_shanten``), the others fit the target (``target_fit``)."""
    if target == TG_ALL_PUNGS:
        return pungs_shanten(nat, n_wilds, n_declared)
    return target_fit(target, i0, i1, i2, i3, n_wilds, n_declared, tables)


# ------------------------------------------------------------------ decisions toward a target
@nrt_free(kernel_only=True)
def discard_toward(view, allowed, target, nat):
    """The allowed kind whose discard leaves the lowest shanten toward
    ``target`` (TG_*), then the lowest open-hand shanten, then the least
    useful tile (``usefulness``; a tile outside the target counts as useless,
    a wild as the most useful). Returns the kind, or -1 if none is allowed.
    nat: int8[34] scratch."""
    hand = view.hand
    wild = view.wild
    n_melds = view.n_melds[view.seat]
    tables = view.tables
    w = split_hand(hand, wild, nat)
    i0, i1, i2, i3 = H.group_indices(nat)
    best_k = np.int64(-1)   # not literals: see hand._group
    best_s = np.int64(BIG)
    best_s2 = np.int64(BIG)
    best_u = np.int64(BIG)
    for k in range(C.N_KINDS):
        if hand[k] == 0 or not allowed[k]:
            continue
        if wild[k]:
            ww = w - 1
            j0, j1, j2, j3 = i0, i1, i2, i3
            u = 1000
        else:
            ww = w
            j0, j1, j2, j3 = H.step_indices(i0, i1, i2, i3, k, -1)
            u = usefulness(nat, k, view.visible)
            if target != TG_OPEN and not kind_in_target(target, k):
                u -= 100
        if not wild[k]:
            nat[k] -= 1
        s = shanten_toward(target, nat, ww, n_melds, j0, j1, j2, j3, tables)
        if not wild[k]:
            nat[k] += 1
        s2 = s
        if target != TG_OPEN:
            s2 = H.fit_shanten_idx(j0, j1, j2, j3, ww, n_melds, tables)
        if (s < best_s or (s == best_s and (s2 < best_s2 or (s2 == best_s2 and u < best_u)))):
            best_s = s
            best_s2 = s2
            best_u = u
            best_k = k
    return best_k


@nrt_free(kernel_only=True)
def kong_toward(view, options, n_options, target, in_target_only, nat, tmp):
    """The first kong option (rows (MELD_CKONG or MELD_KONG, kind) of
    ``options``) that does not raise the shanten toward ``target``; with
    ``in_target_only`` only kongs of a kind inside the target. -1: none."""
    w = split_hand(view.hand, view.wild, nat)
    n_melds = view.n_melds[view.seat]
    tables = view.tables
    s0 = target_shanten(target, nat, w, n_melds, tables, tmp)
    for j in range(n_options):
        k = options[j, 1]
        if options[j, 0] == C.MELD_CKONG:
            nat[k] -= 4
            s = target_shanten(target, nat, w, n_melds + 1, tables, tmp)
            nat[k] += 4
        else:
            nat[k] -= 1
            s = target_shanten(target, nat, w, n_melds, tables, tmp)
            nat[k] += 1
        if in_target_only and not kind_in_target(target, k):
            continue
        if s <= s0:
            return j
    return -1


@nrt_free(kernel_only=True)
def claim_pungs_target(nat, w, n_melds, tile, can_pung, can_kong):
    """A claim toward all pungs: a kong or pung if it does not raise the
    pungs shanten (a pung keeps the target whenever it fits); never a chow."""
    s0 = pungs_shanten(nat, w, n_melds)
    if can_kong:
        nat[tile] -= 3
        s = pungs_shanten(nat, w, n_melds + 1)
        nat[tile] += 3
        if s <= s0:
            return CLAIM_KONG
    if can_pung:
        nat[tile] -= 2
        s = pungs_shanten(nat, w, n_melds + 1)
        nat[tile] += 2
        if s <= s0:
            return CLAIM_PUNG
    return CLAIM_PASS


@nrt_free(kernel_only=True)
def claim_toward(view, tile, can_pung, can_kong, chow_ok, target, honor_pungs, keep_ok, nat):
    """The claim on ``tile`` that lowers the shanten toward ``target`` most
    (a kong if it does not raise it; with ``honor_pungs`` also a pung of a
    scoring honor (dragon, seat or round wind) that does not raise it; with
    ``keep_ok`` any pung or chow that does not raise it). Returns CLAIM_*;
    CLAIM_PASS when nothing helps."""
    seat = view.seat
    n_melds = view.n_melds[seat]
    tables = view.tables
    w = split_hand(view.hand, view.wild, nat)
    if target == TG_ALL_PUNGS:
        return claim_pungs_target(nat, w, n_melds, tile, can_pung, can_kong)
    # every option removes hand tiles of the claimed kind's group only: work
    # on the group indices (hand.kind_step) instead of recounting the hand
    i0, i1, i2, i3 = H.group_indices(nat)
    g, p = H.kind_step(tile)
    s0 = target_fit(target, i0, i1, i2, i3, w, n_melds, tables)
    best = CLAIM_PASS
    best_s = s0
    scoring_honor = tile >= C.HONOR0 and (tile >= C.WHITE or tile - C.EAST == seat
                                          or tile - C.EAST == view.round_wind)
    for take in (3, 2):
        if (take == 3 and not can_kong) or (take == 2 and not can_pung):
            continue
        d = take * p
        s = target_fit(target, i0 - d if g == 0 else i0, i1 - d if g == 1 else i1,
                       i2 - d if g == 2 else i2, i3 - d if g == 3 else i3, w, n_melds + 1,
                       tables)
        if take == 3:
            if s <= best_s:
                best_s = s
                best = CLAIM_KONG
        elif s < best_s or (s <= s0 and best == CLAIM_PASS
                            and (keep_ok or (honor_pungs and scoring_honor))):
            best_s = s
            best = CLAIM_PUNG
    for c in range(3):
        if not chow_ok[c]:
            continue
        # the two hand tiles of the chow: ranks (lo .. lo + 2) minus the tile
        lo = tile - c
        d = 0
        for e in range(3):
            if lo + e != tile:
                d += H.kind_step(lo + e)[1]
        s = target_fit(target, i0 - d if g == 0 else i0, i1 - d if g == 1 else i1,
                       i2 - d if g == 2 else i2, i3, w, n_melds + 1, tables)
        if s < best_s or (keep_ok and s <= s0 and best == CLAIM_PASS):
            best_s = s
            best = CLAIM_CHOW + c
    return best
