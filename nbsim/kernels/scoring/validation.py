"""Input checks of the scorer and the compact wild set (docs/rules.md §3 and
§10, and the tile counts).

* ``wild_set(rules, indicator) -> (kind a, kind b, flower bits, wild tiles
  in play)``: the wild kinds of an indicator in a form that needs no array.
* ``is_wild(kind, a, b, flower_bits) -> bool``.
* ``validate(rules, tiles, win, iw) -> (E_* code, wild tiles in play, a, b, flower bits)``:
  every check of ``score.score_win``'s arguments; also fills the meld tile
  counts of the scratch (``scratch.O_MELD_COUNT``).
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit
from nbsim.kernels.scoring.scratch import O_MELD_COUNT
from nbsim.kernels.wilds import next_kind


@njit(cache=True, inline="always")
def wild_set(rules, indicator):
    """Wild kinds of an indicator as (kind a, kind b, flower bit mask, wild
    tiles in play): docs/rules.md §3, the same sets as ``wilds.wild_mask``
    (tests/test_score_errors.py checks every indicator), without filling a
    42-entry mask on every call."""
    mode = rules[C.R_WILDS]
    if mode == C.WILDS_NONE or indicator < 0:
        return -1, -1, 0, 0
    if indicator >= C.FLOWER0:
        f = indicator - C.FLOWER0
        if mode == C.WILDS_3BAIDA:
            return -1, -1, (15 << ((f // 4) * 4)) & ~(1 << f), 3
        return -1, -1, 255 & ~(1 << f), 7
    if mode == C.WILDS_7BAIDA:
        return indicator, next_kind(rules, indicator), 0, 7
    return indicator, -1, 0, 3


@njit(cache=True, inline="always")
def is_wild(kind, wild_a, wild_b, wild_flowers):
    """True when ``kind`` (0..41) is wild for the set ``wild_set`` returned."""
    if kind >= C.FLOWER0:
        return ((wild_flowers >> (kind - C.FLOWER0)) & 1) != 0
    return kind == wild_a or kind == wild_b


@njit(cache=True, inline="always")
def validate(rules, tiles, win, iw):
    """Check the input (docs/rules.md §10 and the tile counts).

    rules: int64[R_LEN]; tiles and win: the ``score.HandTiles`` and
    ``score.Win`` records of ``score.score_win`` (tile counts per kind,
    seats 0..3, kinds 0..41); iw: the scorer's scratch (int64[IW_LEN]).
    Returns (E_* code, wild tiles in play, wild kind a, wild kind b, wild
    flower bits; see ``wild_set``) and fills the tiles per kind of the
    declared melds into iw[O_MELD_COUNT:O_MELD_COUNT + N_PLAY]."""
    hand, melds, n_melds, flowers = tiles
    (win_kind, win_by, ctx, seat, round_wind, indicator, discarder, fed, fed_by_winner,
     kong_from, liable) = win
    if win_by < 0 or win_by > 2 or ctx < 0 or ctx > 15:
        return C.E_BAD_ARG, 0, -1, -1, 0
    if seat < 0 or seat > 3 or round_wind < 0 or round_wind > 3:
        return C.E_BAD_SEAT, 0, -1, -1, 0
    if n_melds < 0 or n_melds > C.MAX_MELDS:
        return C.E_BAD_MELD, 0, -1, -1, 0
    if win_kind < 0 or win_kind >= C.N_KINDS:
        return C.E_BAD_ARG, 0, -1, -1, 0
    if rules[C.R_WILDS] == C.WILDS_NONE:
        if indicator != -1:
            return C.E_INDICATOR_NO_WILDS, 0, -1, -1, 0
    else:
        if indicator == -1:
            return C.E_NO_INDICATOR, 0, -1, -1, 0
        if indicator < 0 or indicator >= C.N_KINDS:
            return C.E_BAD_ARG, 0, -1, -1, 0
    wild_a, wild_b, wild_flowers, n_in_play = wild_set(rules, indicator)
    for k in range(C.N_PLAY):
        iw[O_MELD_COUNT + k] = 0
    n_claimed = 0
    has_kong = False
    for m in range(n_melds):
        meld_type = np.int64(melds[m, C.MELD_TYPE])
        kind = np.int64(melds[m, C.MELD_KIND])
        if meld_type < 0 or meld_type > 3 or kind < 0 or kind >= C.N_PLAY:
            return C.E_BAD_MELD, 0, -1, -1, 0
        if meld_type == C.MELD_CHOW:
            if kind >= C.HONOR0 or kind % 9 > 6:
                return C.E_BAD_MELD, 0, -1, -1, 0
            if rules[C.R_ALLOW_CHOW] == 0:
                return C.E_CHOW_NOT_ALLOWED, 0, -1, -1, 0
            for s in range(3):
                if is_wild(kind + s, wild_a, wild_b, wild_flowers):
                    return C.E_WILD_IN_MELD, 0, -1, -1, 0
                iw[O_MELD_COUNT + kind + s] += 1
        else:
            if is_wild(kind, wild_a, wild_b, wild_flowers):
                return C.E_WILD_IN_MELD, 0, -1, -1, 0
            iw[O_MELD_COUNT + kind] += 3 if meld_type == C.MELD_PUNG else 4
            if meld_type == C.MELD_KONG:
                has_kong = True
        if meld_type != C.MELD_CKONG:
            n_claimed += 1
    total = 0
    five = False
    for k in range(C.N_PLAY):
        n = np.int64(hand[k])
        if n < 0 or n > 4:
            return C.E_BAD_ARG, 0, -1, -1, 0
        total += n
        if n + iw[O_MELD_COUNT + k] > 2:
            if win_kind == k:
                n += 1
            if indicator == k:
                n += 1
            if n + iw[O_MELD_COUNT + k] > 4:
                five = True
    flower_in_hand = win_kind >= C.FLOWER0 and not is_wild(win_kind, wild_a, wild_b, wild_flowers)
    bad_flower = False
    for f in range(C.N_FLOWERS):
        k = C.FLOWER0 + f
        n = np.int64(hand[k])
        fl = np.int64(flowers[f])
        if n < 0 or n > 1 or fl < 0 or fl > 1:
            return C.E_BAD_ARG, 0, -1, -1, 0
        total += n
        if n > 0 and not is_wild(k, wild_a, wild_b, wild_flowers):
            flower_in_hand = True
        if fl == 1 and (is_wild(k, wild_a, wild_b, wild_flowers) or indicator == k):
            bad_flower = True
        if n + fl + (1 if win_kind == k else 0) + (1 if indicator == k else 0) > 1:
            five = True
    if total + 3 * n_melds != 13:
        return C.E_TILE_COUNT, 0, -1, -1, 0
    if flower_in_hand:
        return C.E_FLOWER_IN_HAND, 0, -1, -1, 0
    if bad_flower:
        return C.E_BAD_FLOWER, 0, -1, -1, 0
    if five:
        return C.E_FIVE_COPIES, 0, -1, -1, 0
    if win_by == C.WIN_ROBBING_KONG and is_wild(win_kind, wild_a, wild_b, wild_flowers):
        return C.E_ROB_WILD, 0, -1, -1, 0
    if (ctx & C.CTX_AFTER_KONG) and win_by != C.WIN_SELF_DRAW:
        return C.E_BAD_AFTER_KONG, 0, -1, -1, 0
    if (ctx & C.CTX_HEAVENLY) and (seat != 0 or win_by != C.WIN_SELF_DRAW or n_melds != 0):
        return C.E_BAD_HEAVENLY, 0, -1, -1, 0
    if ctx & C.CTX_EARTHLY:
        if seat == 0 or n_melds != 0:
            return C.E_BAD_EARTHLY, 0, -1, -1, 0
        if rules[C.R_EARTHLY_RULE] == C.EARTHLY_DEALER_FIRST_DISCARD:
            if win_by != C.WIN_DISCARD or (discarder != -1 and discarder != 0):
                return C.E_BAD_EARTHLY, 0, -1, -1, 0
        elif win_by != C.WIN_SELF_DRAW:
            return C.E_BAD_EARTHLY, 0, -1, -1, 0
    if discarder != -1 and (win_by == C.WIN_SELF_DRAW or discarder < 0 or discarder > 3
                            or discarder == seat):
        return C.E_BAD_SEAT, 0, -1, -1, 0
    n_fed = 0
    for s in range(4):
        if (fed[s] < 0 or fed_by_winner[s] < 0 or fed[s] > C.MAX_MELDS
                or fed_by_winner[s] > C.MAX_MELDS):
            return C.E_BAD_FED, 0, -1, -1, 0
        if s == seat and (fed[s] != 0 or fed_by_winner[s] != 0):
            return C.E_BAD_SEAT, 0, -1, -1, 0
        n_fed += np.int64(fed[s])
    if n_fed > n_claimed:
        return C.E_BAD_FED, 0, -1, -1, 0
    if kong_from != -1:
        if kong_from < 0 or kong_from > 3 or kong_from == seat:
            return C.E_BAD_KONG_FROM, 0, -1, -1, 0
        if win_by != C.WIN_SELF_DRAW or (ctx & C.CTX_AFTER_KONG) == 0 or not has_kong:
            return C.E_BAD_KONG_FROM, 0, -1, -1, 0
    if liable != -1 and (liable < 0 or liable > 3 or liable == seat
                         or rules[C.R_PAYMENT_RULE] != C.PAY_NINGHAI
                         or rules[C.R_THREE_MELDS_LIABILITY] == 0):
        return C.E_BAD_LIABLE, 0, -1, -1, 0
    return C.OK, n_in_play, wild_a, wild_b, wild_flowers
