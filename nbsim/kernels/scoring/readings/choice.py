"""Scoring one complete reading and keeping the best (Numba; docs/rules.md
§5, §6, §8, §10.3 and §10.4): ``consider`` computes a reading's wait item,
its tai (or fan, fu and points), its legality, and compares it with the best
reading so far, kept in the scratch iw[O_ST:] (``scratch.ST_*``).

Choosing the counted reading
----------------------------
Ningbo (``system = "tai"``): most total tai; among equal tai a legal reading
(min_tai without three_wilds, allowed_patterns, discard restriction); among
those, the lexicographically largest vector of item tai in ``codes.TAI_ITEMS``
order (a deterministic tie-break that does not depend on the enumeration
order), then the lexicographically largest presence vector (which items
apply, in that order: it only separates readings that differ in items worth 0
tai, such as ``chicken_hand`` in ningbo-3baida). Ninghai (``"fan_fu"``): most
points under ``points_scheme``, then fan, then fu, then legal (docs/rules.md
§10), then the lexicographically largest vector of item fan (before
the cap, ``codes.FAN_ITEMS`` order) and then of item fu (``codes.FU_ITEMS``
order). Readings that tie on every key are equal item by item, so the items
reported (tai, presence, fan and fu) never depend on the enumeration order
(docs/rules.md §10.3 and §10.4).

Wait items (docs/rules.md §6 and §10): the winning slot's shape is single
(pair), dual-pung (pung), edge (3 of 123, 7 of 789), closed (middle of a chow)
or two-sided (other chow ends). With ``wait_needs_single_kind`` the edge,
closed and single items need the 13-tile wait set (``hand.wait_mask``: wild
kinds and kinds with 4 copies in hand, melds or the indicator skipped) to be
exactly {the winning slot's kind}, and dual_pung exactly {winning kind, the
reading's pair kind}. A reading whose winning wild sits in a free group (or
that keeps any free group) leaves two wilds or a lone wild in the 13-tile hand,
so that hand waits on every kind and these items never apply to it.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.scoring.payments import scheme_points
from nbsim.kernels.scoring.readings.descriptor import (
    FLUSH_FULL,
    FLUSH_HALF,
    FLUSH_HONORS,
    FLUSH_NONE,
    SUIT_HONORS,
    encode_desc,
    fill_fan_fu,
    fill_items,
    fu_desc,
    has_item,
    item_tai,
    reading_present,
    set_fu,
)
from nbsim.kernels.scoring.scratch import (
    HC_CONST_TAI,
    HC_FAN_CONST,
    HC_FU_CONST,
    HC_HEAVENLY,
    HC_N_MELDS,
    HC_NEEDS_SINGLE_KIND,
    HC_ROUND_KIND,
    HC_SEAT_KIND,
    HC_SYSTEM,
    HC_THREE_WILDS,
    HC_WAIT_KIND0,
    HC_WAIT_KIND1,
    HC_WAIT_N,
    HC_WIN_BY,
    O_BEST_FANFU,
    O_BEST_ITEMS,
    O_CAND_FANFU,
    O_CAND_ITEMS,
    O_HC,
    O_ST,
    SH_CLOSED,
    SH_DUAL,
    SH_EDGE,
    SH_SINGLE,
    SH_TWO,
    ST_ANY_LEGAL,
    ST_ANY_MIN,
    ST_ANY_MINPAT,
    ST_DESC,
    ST_FAN,
    ST_FU,
    ST_FU_SETS,
    ST_HAVE,
    ST_KEY1,
    ST_KEY2,
    ST_KEY3,
    ST_LEGAL,
    ST_TAI_MIN,
)


@nrt_free(kernel_only=True)
def compare_vectors(iw, a, b, n):
    """Lexicographic comparison of iw[a:a + n] with iw[b:b + n]: 1, 0 or -1."""
    for i in range(n):
        if iw[a + i] != iw[b + i]:
            return 1 if iw[a + i] > iw[b + i] else -1
    return 0


@njit(cache=True, inline="always")
def reading_shape(groups):
    """(full_flush, half_flush, all_honors, all_pungs) of a reading whose
    groups are ``groups`` (``Groups``): bools (docs/rules.md §6, §8)."""
    suits = groups.suits & 7
    honors = (groups.suits & SUIT_HONORS) != 0
    one_suit = suits == 1 or suits == 2 or suits == 4
    full_flush = one_suit and not honors
    half_flush = one_suit and honors
    all_honors = suits == 0 and honors
    all_pungs = groups.pungs == 4
    return full_flush, half_flush, all_honors, all_pungs


@njit(cache=True, inline="always")
def wait_item(rules, iw, groups, win):
    """The wait item of a reading (docs/rules.md §6, §10.1): (item, closed_ok,
    big_single). item: the one wait item of ``codes.TAI_ITEMS`` that applies
    (``all_chows``, ``edge_wait``, ``closed_wait``, ``single_wait``,
    ``dual_pung_wait``, else ``chicken_hand``), -1 for none (the heavenly
    hand, or items the variant lacks); closed_ok: the winning slot is a
    closed wait that counts (Ninghai's closed-wait fu); big_single: bool,
    ``big_single_wait`` applies too. groups: ``Groups``; win: ``WinSlot``."""
    pair_kind = groups.pair_kind
    item = -1
    closed_ok = False
    if iw[O_HC + HC_HEAVENLY] == 0:
        if win.shape == SH_TWO:
            wind_pair = pair_kind >= 0 and (pair_kind == iw[O_HC + HC_SEAT_KIND]
                                            or pair_kind == iw[O_HC + HC_ROUND_KIND])
            if groups.chows == 4 and not wind_pair and has_item(rules, C.T_ALL_CHOWS):
                item = C.T_ALL_CHOWS
        else:
            if iw[O_HC + HC_NEEDS_SINGLE_KIND]:
                wait_n = iw[O_HC + HC_WAIT_N]
                wait0 = iw[O_HC + HC_WAIT_KIND0]
                wait1 = iw[O_HC + HC_WAIT_KIND1]
                if win.shape == SH_DUAL:
                    ok = (wait_n == 2 and win.kind >= 0 and pair_kind >= 0 and
                          ((win.kind == wait0 and pair_kind == wait1)
                           or (win.kind == wait1 and pair_kind == wait0)))
                else:
                    ok = wait_n == 1 and win.kind == wait0
            else:
                ok = True
            if win.shape == SH_CLOSED:
                closed_ok = ok
            if ok:
                if win.shape == SH_SINGLE:
                    cand = C.T_SINGLE_WAIT
                elif win.shape == SH_DUAL:
                    cand = C.T_DUAL_PUNG_WAIT
                elif win.shape == SH_EDGE:
                    cand = C.T_EDGE_WAIT
                else:
                    cand = C.T_CLOSED_WAIT
                if has_item(rules, cand):
                    item = cand
        if item < 0 and has_item(rules, C.T_CHICKEN_HAND):
            item = C.T_CHICKEN_HAND
    big_single = (item == C.T_SINGLE_WAIT and iw[O_HC + HC_N_MELDS] == 4
                  and has_item(rules, C.T_BIG_SINGLE_WAIT))
    return item, closed_ok, big_single


@njit(cache=True, inline="always")
def reading_tai(rules, iw, groups, full_flush, half_flush, all_honors, all_pungs, item,
                big_single):
    """Total tai of a Ningbo reading (docs/rules.md §6): the hand items (hand
    constants HC_CONST_TAI and HC_THREE_WILDS) plus the reading's items."""
    tai = iw[O_HC + HC_CONST_TAI] + iw[O_HC + HC_THREE_WILDS]
    if full_flush:
        tai += item_tai(rules, C.T_FULL_FLUSH)
    if half_flush:
        tai += item_tai(rules, C.T_HALF_FLUSH)
    if all_honors:
        tai += item_tai(rules, C.T_ALL_HONORS)
    if all_pungs:
        tai += item_tai(rules, C.T_ALL_PUNGS)
    tai += groups.dragon_pungs * item_tai(rules, C.T_DRAGON_PUNG)
    if groups.seat_pung:
        tai += item_tai(rules, C.T_SEAT_WIND_PUNG)
    if groups.round_pung:
        tai += item_tai(rules, C.T_PREVALENT_WIND_PUNG)
    if item >= 0:
        tai += item_tai(rules, item)
    if big_single:
        tai += item_tai(rules, C.T_BIG_SINGLE_WAIT)
    return tai


@njit(cache=True, inline="always")
def reading_fan_fu(rules, iw, groups, full_flush, half_flush, all_honors, all_pungs,
                   closed_ok):
    """(fan capped at ``fan_cap``, fu, fu descriptor) of a Ninghai reading
    (docs/rules.md §8): the hand's fan and fu (HC_FAN_CONST, HC_FU_CONST)
    plus the reading's."""
    fan = iw[O_HC + HC_FAN_CONST] + groups.dragon_pungs * rules[C.R_FAN + C.F_DRAGON_PUNG]
    if full_flush:
        fan += rules[C.R_FAN + C.F_FULL_FLUSH]
    if half_flush:
        fan += rules[C.R_FAN + C.F_HALF_FLUSH]
    if all_honors:
        fan += rules[C.R_FAN + C.F_ALL_HONORS]
    if all_pungs:
        fan += rules[C.R_FAN + C.F_ALL_PUNGS]
    fan = min(fan, rules[C.R_FAN_CAP])
    fu = set_fu(rules, groups.fu_sets) + iw[O_HC + HC_FU_CONST]
    if closed_ok:
        fu += rules[C.R_FU + C.FU_CLOSED_WAIT]
    return fan, fu, fu_desc(groups.fu_sets, closed_ok)


@njit(cache=True, inline="always")
def reading_legal(rules, iw, win, for_min, full_flush, half_flush, all_honors, all_pungs):
    """Whether a reading is a legal win (docs/rules.md §5, §10.3): 1 or 0.
    It meets ``min_tai`` (``for_min``: tai without three_wilds, or fan), a
    pattern of ``allowed_patterns`` and the discard rule on wilds
    (``discard_win_wild_rule``). Marks in iw[O_ST:] which of these any
    reading met (ST_ANY_MIN, ST_ANY_MINPAT, ST_ANY_LEGAL: the reason a
    complete hand is not a legal win)."""
    meets_min = for_min >= rules[C.R_MIN_TAI]
    patterns = rules[C.R_ALLOWED_PATTERNS]
    pattern_ok = (patterns == 0 or (full_flush and (patterns & C.PAT_FULL_FLUSH) != 0)
                  or (half_flush and (patterns & C.PAT_HALF_FLUSH) != 0)
                  or (all_honors and (patterns & C.PAT_ALL_HONORS) != 0)
                  or (all_pungs and (patterns & C.PAT_ALL_PUNGS) != 0))
    discard_ok = True
    if iw[O_HC + HC_WIN_BY] == C.WIN_DISCARD:
        wild_rule = rules[C.R_DISCARD_WIN_WILD_RULE]
        if wild_rule == C.DWW_FORBID_WILD_PAIR:
            discard_ok = not win.pairs_with_wild
        elif wild_rule == C.DWW_FORBID_ANY_WILD_USE:
            discard_ok = not win.holds_wild
    legal = 1 if (meets_min and pattern_ok and discard_ok) else 0
    if meets_min:
        iw[O_ST + ST_ANY_MIN] = 1
        if pattern_ok:
            iw[O_ST + ST_ANY_MINPAT] = 1
    if legal:
        iw[O_ST + ST_ANY_LEGAL] = 1
    return legal


@njit(cache=True, inline="always")
def beats_best(rules, iw, key1, key2, key3, legal, desc, fud):
    """Whether a reading with these keys beats the best one so far in
    iw[O_ST:] (module doc: the keys, then legal, then the item vectors)."""
    if iw[O_ST + ST_HAVE] == 0:
        return True
    if key1 != iw[O_ST + ST_KEY1]:
        return key1 > iw[O_ST + ST_KEY1]
    if key2 != iw[O_ST + ST_KEY2]:
        return key2 > iw[O_ST + ST_KEY2]
    if key3 != iw[O_ST + ST_KEY3]:
        return key3 > iw[O_ST + ST_KEY3]
    if legal != iw[O_ST + ST_LEGAL]:
        return legal > iw[O_ST + ST_LEGAL]
    if iw[O_HC + HC_SYSTEM] == C.SYSTEM_TAI:
        # item tai vector, then presence vector (0-tai items)
        if desc == iw[O_ST + ST_DESC]:
            return False
        # offsets as int64, not literals: each callee compiles once
        fill_items(rules, iw, np.int64(O_CAND_ITEMS), desc)
        fill_items(rules, iw, np.int64(O_BEST_ITEMS), iw[O_ST + ST_DESC])
        cmp = compare_vectors(iw, np.int64(O_CAND_ITEMS), np.int64(O_BEST_ITEMS),
                              np.int64(C.N_TAI))
        if cmp == 0:
            pc = reading_present(rules, desc)
            pb = reading_present(rules, iw[O_ST + ST_DESC])
            if pc != pb:
                low = (pc ^ pb) & -(pc ^ pb)     # the first item that differs
                cmp = 1 if pc & low else -1
        return cmp > 0
    # Ninghai: item fan vector, then item fu vector
    if desc == iw[O_ST + ST_DESC] and fud == iw[O_ST + ST_FU_SETS]:
        return False
    fill_fan_fu(rules, iw, np.int64(O_CAND_FANFU), desc, fud)
    fill_fan_fu(rules, iw, np.int64(O_BEST_FANFU), iw[O_ST + ST_DESC], iw[O_ST + ST_FU_SETS])
    return compare_vectors(iw, np.int64(O_CAND_FANFU), np.int64(O_BEST_FANFU),
                           np.int64(C.N_FAN + C.N_FU)) > 0


@nrt_free(kernel_only=True)
def consider(rules, iw, groups, win):
    """Score one complete reading and keep it in iw[O_ST:] if it beats the
    best so far.

    groups: ``Groups`` of all the reading's groups (pair_kind -1: a free
    pair class); win: its ``WinSlot``."""
    full_flush, half_flush, all_honors, all_pungs = reading_shape(groups)
    item, closed_ok, big_single = wait_item(rules, iw, groups, win)
    if iw[O_HC + HC_SYSTEM] == C.SYSTEM_TAI:
        tai = reading_tai(rules, iw, groups, full_flush, half_flush, all_honors, all_pungs,
                          item, big_single)
        for_min = tai - iw[O_HC + HC_THREE_WILDS]
        key1 = tai
        key2 = 0
        key3 = 0
        fan = 0
        fu = 0
        fud = 0
    else:
        fan, fu, fud = reading_fan_fu(rules, iw, groups, full_flush, half_flush, all_honors,
                                      all_pungs, closed_ok)
        key1 = scheme_points(rules, rules[C.R_POINTS_SCHEME], fan, fu)
        key2 = fan
        key3 = fu
        for_min = fan
    legal = reading_legal(rules, iw, win, for_min, full_flush, half_flush, all_honors,
                          all_pungs)
    flush = (FLUSH_FULL if full_flush else (FLUSH_HALF if half_flush
                                            else (FLUSH_HONORS if all_honors else FLUSH_NONE)))
    desc = encode_desc(flush, all_pungs, groups.dragon_pungs, groups.seat_pung,
                       groups.round_pung, item, big_single)
    if not beats_best(rules, iw, key1, key2, key3, legal, desc, fud):
        return
    iw[O_ST + ST_HAVE] = 1
    iw[O_ST + ST_KEY1] = key1
    iw[O_ST + ST_KEY2] = key2
    iw[O_ST + ST_KEY3] = key3
    iw[O_ST + ST_LEGAL] = legal
    iw[O_ST + ST_DESC] = desc
    iw[O_ST + ST_TAI_MIN] = for_min
    iw[O_ST + ST_FAN] = fan
    iw[O_ST + ST_FU] = fu
    iw[O_ST + ST_FU_SETS] = fud
