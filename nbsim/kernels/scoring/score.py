"""Hand evaluator and scorer: the tai items, Ninghai fan/fu/points, the
legal-win decision and payments of one winning situation (docs/rules.md §3,
§5, §6, §7, §8 and §10).

Public kernels (no allocation in the batch loop):

* ``score_win(rules, tables, tiles, win, res) -> int``: one winning
  situation, the winner's tiles as a ``HandTiles`` record and the win as a
  ``Win`` record; fills ``res`` (int64[RES_LEN], layout ``codes.RES_*``)
  and returns the ``E_*`` error code (0 = OK).
* ``score_one(rules, tables, tiles, win, res, iw)``: the same with a
  caller-owned scratch (``new_scratch()``, int64[IW_LEN]); the game engine
  calls it.
* ``score_batch(rules, tables, tiles, wins, res)``: the same over records
  of arrays, one situation per row (benchmarks, the engine's batch
  statistics).
* ``player_fu(rules, hand, melds, n_melds, flowers) -> int``: a Ninghai
  player's own fu (胡), for the settlement among non-winners.

``score_one`` is a sequence of named steps (small inlined kernels below):
check the situation (``validation.validate``), count the naturals and
wilds, read the declared melds, the hand-level items (``hand_items`` for
Ningbo, ``fan_fu_hand_items`` for Ninghai), the 13-tile wait set, find the
best reading (``readings.search``), write its items, decide whether the
win is legal, then the payments.

The work is split along its seams, one module each:

* ``validation``: the input checks and the compact wild set;
* ``items``: the item registry (plain Python), ``hand_items``: the
  hand-level tai items;
* ``readings`` and the ``reading_*`` modules: the search over readings, the
  free group classes and the choice of the counted reading (the method is
  in ``readings``' module doc);
* ``payments``: payments, Ninghai points, silver and a player's own fu;
* ``waits``: the 13-tile hand's wait set and the wild single wait;
* ``scratch``: the layout of the integer scratch they share.

The result holds the counted reading's total and item tai with the
presence mask of the items that apply (0-tai items included), or its
Ninghai fan and fu with the fan and fu of each item (docs/rules.md §6, §8,
§10.3, §10.4).
"""
from typing import NamedTuple

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.hand import is_complete
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.scoring.hand_items import HandFacts, flower_counts, tai_hand_items
from nbsim.kernels.scoring.payments import payments, pung_fu_item, scheme_points, silver
from nbsim.kernels.scoring.readings.descriptor import (
    fill_fan_fu,
    fill_items,
    has_item,
    reading_present,
    suit_bit,
)
from nbsim.kernels.scoring.readings.groups import fill_classes
from nbsim.kernels.scoring.readings.search import search
from nbsim.kernels.scoring.scratch import (
    HC_CONST_TAI,
    HC_FAN_CONST,
    HC_FU_CONST,
    HC_HEAVENLY,
    HC_MELD_CHOWS,
    HC_MELD_DRAGON_PUNGS,
    HC_MELD_PUNGS,
    HC_MELD_ROUND_PUNG,
    HC_MELD_SEAT_PUNG,
    HC_N_MELD_CLASSES,
    HC_N_MELDS,
    HC_N_PAIR_CLASSES,
    HC_NEEDS_SINGLE_KIND,
    HC_PRESENT,
    HC_ROUND,
    HC_ROUND_KIND,
    HC_SEAT,
    HC_SEAT_KIND,
    HC_SUITS,
    HC_SYSTEM,
    HC_THREE_WILDS,
    HC_WAIT_KIND0,
    HC_WAIT_KIND1,
    HC_WAIT_N,
    HC_WIN_BY,
    HC_WIN_KIND,
    IW_LEN,
    N_FANFU,
    O_BEST_FANFU,
    O_BEST_ITEMS,
    O_HAND_FANFU,
    O_HAND_ITEMS,
    O_HC,
    O_NAT,
    O_NAT0,
    O_NAT13,
    O_ST,
    ST_ANY_LEGAL,
    ST_ANY_MIN,
    ST_ANY_MINPAT,
    ST_DESC,
    ST_FAN,
    ST_FU,
    ST_FU_SETS,
    ST_HAVE,
    ST_KEY1,
    ST_LEN,
    ST_TAI_MIN,
)
from nbsim.kernels.scoring.validation import is_wild, validate
from nbsim.kernels.scoring.waits import melds_only, nat13, wait_info

# the engine and the wrappers use these names from here
__all__ = ["HandTiles", "Win", "score_win", "score_one", "score_batch"]


class HandTiles(NamedTuple):
    """The winner's tiles (docs/rules.md §3, §10). hand: int8[42] concealed
    tiles per kind BEFORE the winning tile, wilds counted at their own kind
    (a wild flower may be in hand); melds: int8[4, 3] declared meld rows
    (MELD_TYPE, MELD_KIND, MELD_FROM), n_melds (int, 0..4) of them used;
    concealed kongs (MELD_CKONG) are declared melds, kongs count 3 tiles;
    flowers: int8[8], 1 for each flower set aside (1f..8f). In
    ``score_batch`` each field has a leading axis of n situations."""
    hand: np.ndarray
    melds: np.ndarray
    n_melds: int
    flowers: np.ndarray


class Win(NamedTuple):
    """The win being scored (docs/rules.md §5-§8, §10); ints unless said.
    win_kind: kind 0..41 of the winning tile (a flower only when it is
    wild); win_by: WIN_SELF_DRAW / WIN_DISCARD / WIN_ROBBING_KONG; ctx:
    CTX_* bits; seat, round_wind: 0..3 (E S W N; the dealer is E);
    indicator: kind or -1; discarder: the discarding / robbed seat or -1 (-1
    on a discard or robbing win: no payments are computed); fed: int8[4]
    melds the winner claimed from each seat's discards; fed_by_winner:
    int8[4] melds each seat claimed from the winner's discards; kong_from:
    seat whose discard the winner konged before the winning replacement
    draw, or -1; liable: Ninghai three-melds liable seat (§8) or -1. In
    ``score_batch`` each field has a leading axis of n situations."""
    win_kind: int
    win_by: int
    ctx: int
    seat: int
    round_wind: int
    indicator: int
    discarder: int
    fed: np.ndarray
    fed_by_winner: np.ndarray
    kong_from: int
    liable: int


# ---------------------------------------------------------------- the steps of score_one
@njit(cache=True, inline="always")
def count_naturals(iw, hand, win_kind, win_wild, wild_a, wild_b, wild_flowers):
    """The natural tiles of the 14 concealed tiles per kind into iw[O_NAT0:]
    and the search's copy iw[O_NAT:] (docs/rules.md §3: a wild counts as a
    wild, also at its own kind). hand: int8[42] without the winning tile
    ``win_kind`` (a wild when ``win_wild``). Returns (wilds among the 13
    tiles, wilds among the 14, suit bits of the naturals)."""
    wilds = np.int64(0)      # not a literal: its callees compile once
    suits = 0
    for k in range(C.N_PLAY):
        n = np.int64(hand[k])
        if is_wild(k, wild_a, wild_b, wild_flowers):
            wilds += n
            n = 0
        iw[O_NAT0 + k] = n
        iw[O_NAT + k] = n
        if n > 0:
            suits |= suit_bit(k)
    for k in range(C.FLOWER0, C.N_KINDS):
        wilds += np.int64(hand[k])
    wilds13 = wilds
    if win_wild:
        wilds += 1
    else:
        iw[O_NAT0 + win_kind] += 1
        iw[O_NAT + win_kind] += 1
        suits |= suit_bit(win_kind)
    return wilds13, wilds, suits


@njit(cache=True, inline="always")
def declared_melds(rules, iw, melds, n_melds, seat_kind, round_kind, system):
    """The declared melds (int8[4, 3] rows, ``n_melds`` used) into the hand
    constants (HC_N_MELDS, HC_MELD_*) and, for Ninghai, their fu into
    iw[O_HAND_FANFU:] (zeroed here; docs/rules.md §8). Returns (their suit
    bits, their fu)."""
    meld_pungs = 0
    meld_chows = 0
    meld_dragon_pungs = 0
    meld_seat_pung = 0
    meld_round_pung = 0
    fu = 0
    suits = 0
    if system == C.SYSTEM_FAN_FU:
        for i in range(N_FANFU):
            iw[O_HAND_FANFU + i] = 0
    for m in range(n_melds):
        meld_type = np.int64(melds[m, C.MELD_TYPE])
        kind = np.int64(melds[m, C.MELD_KIND])
        suits |= suit_bit(kind)
        if meld_type == C.MELD_CHOW:
            meld_chows += 1
        else:
            meld_pungs += 1
            if kind >= C.WHITE:
                meld_dragon_pungs += 1
            if kind == seat_kind:
                meld_seat_pung = 1
            if kind == round_kind:
                meld_round_pung = 1
            if system == C.SYSTEM_FAN_FU:
                fu_item = pung_fu_item(kind, meld_type == C.MELD_CKONG, meld_type != C.MELD_PUNG)
                iw[O_HAND_FANFU + C.N_FAN + fu_item] += rules[C.R_FU + fu_item]
                fu += rules[C.R_FU + fu_item]
    iw[O_HC + HC_N_MELDS] = n_melds
    iw[O_HC + HC_MELD_PUNGS] = meld_pungs
    iw[O_HC + HC_MELD_CHOWS] = meld_chows
    iw[O_HC + HC_MELD_DRAGON_PUNGS] = meld_dragon_pungs
    iw[O_HC + HC_MELD_SEAT_PUNG] = meld_seat_pung
    iw[O_HC + HC_MELD_ROUND_PUNG] = meld_round_pung
    return suits, fu


@njit(cache=True, inline="always")
def wild_single_wait(rules, tables, iw, win_kind, win_by, win_wild, wilds13, heavenly):
    """The wild single wait (抛搭, docs/rules.md §6, §10.1): the 13 tiles less
    one wild are complete melds. Computed where the variant scores it or
    where it forbids robbing a kong (``wild_single_can_rob = false``)."""
    if wilds13 >= 1 and not heavenly and (
            has_item(rules, C.T_WILD_SINGLE_WAIT)
            or (win_by == C.WIN_ROBBING_KONG and rules[C.R_WILD_SINGLE_CAN_ROB] == 0)):
        nat13(iw, win_kind, win_wild)
        return melds_only(iw[O_NAT13:O_NAT13 + C.N_PLAY], wilds13 - 1, tables)
    return False


@njit(cache=True, inline="always")
def fan_fu_hand_items(rules, iw, flowers, seat, self_drawn):
    """The Ninghai hand items (docs/rules.md §8): flower fan (a full group is
    a flower set instead of its seat flowers), flower fu and self-drawn fu,
    into iw[O_HAND_FANFU:]. Returns (their fan, their fu)."""
    n_flowers, set_a, set_b, seat_a, seat_b = flower_counts(rules, flowers, seat)
    n_sets = (1 if set_a == 4 else 0) + (1 if set_b == 4 else 0)
    n_seat = (0 if set_a == 4 else seat_a) + (0 if set_b == 4 else seat_b)
    iw[O_HAND_FANFU + C.F_FLOWER_SET] = n_sets * rules[C.R_FAN + C.F_FLOWER_SET]
    iw[O_HAND_FANFU + C.F_SEAT_FLOWER] = n_seat * rules[C.R_FAN + C.F_SEAT_FLOWER]
    fan = iw[O_HAND_FANFU + C.F_FLOWER_SET] + iw[O_HAND_FANFU + C.F_SEAT_FLOWER]
    iw[O_HAND_FANFU + C.N_FAN + C.FU_FLOWER] = n_flowers * rules[C.R_FU + C.FU_FLOWER]
    fu = iw[O_HAND_FANFU + C.N_FAN + C.FU_FLOWER]
    if self_drawn:
        iw[O_HAND_FANFU + C.N_FAN + C.FU_SELF_DRAWN] = rules[C.R_FU + C.FU_SELF_DRAWN]
        fu += rules[C.R_FU + C.FU_SELF_DRAWN]
    return fan, fu


@njit(cache=True, inline="always")
def wait_set(tables, iw, hand, indicator, win_kind, win_wild, wild_a, wild_b, wild_flowers,
             wilds13, needs_single_kind, heavenly):
    """The 13-tile hand's wait set (docs/rules.md §10.1) into HC_WAIT_N,
    HC_WAIT_KIND0 and HC_WAIT_KIND1, when ``wait_needs_single_kind`` asks
    for it (none for the heavenly hand)."""
    wait_n = 0
    wait_kind0 = -1
    wait_kind1 = -1
    if needs_single_kind and not heavenly:
        nat13(iw, win_kind, win_wild)
        wait_n, wait_kind0, wait_kind1 = wait_info(iw, hand, indicator, wild_a, wild_b,
                                                    wild_flowers, wilds13, tables)
    iw[O_HC + HC_NEEDS_SINGLE_KIND] = 1 if needs_single_kind else 0
    iw[O_HC + HC_WAIT_N] = wait_n
    iw[O_HC + HC_WAIT_KIND0] = wait_kind0
    iw[O_HC + HC_WAIT_KIND1] = wait_kind1


@njit(cache=True, inline="always")
def best_reading(rules, tables, iw, wilds, n_melds, suits, seat_kind, round_kind):
    """Search every reading (``readings.search``) and keep the counted one
    in iw[O_ST:]: the free group classes first (only wilds make free
    groups), and with several wilds a table check that avoids a long search
    on a hand that is not complete. Returns True when the hand is complete."""
    if wilds >= 2:
        fill_classes(rules, iw, suits, seat_kind, round_kind)
    else:
        iw[O_HC + HC_N_PAIR_CLASSES] = 0
        iw[O_HC + HC_N_MELD_CLASSES] = 0
    for i in range(ST_LEN):
        iw[O_ST + i] = 0
    complete = True
    if wilds >= 2:
        complete = is_complete(iw[O_NAT0:O_NAT0 + C.N_PLAY], wilds, tables)
    if complete:
        search(rules, iw, wilds, 4 - n_melds, 1)
    return complete and iw[O_ST + ST_HAVE] != 0


@njit(cache=True, inline="always")
def tai_result(rules, iw, res):
    """The counted Ningbo reading into ``res``: total tai, tai for the
    minimum, item tai and the presence mask (docs/rules.md §6, §10.3)."""
    res[C.RES_TAI] = iw[O_ST + ST_KEY1]
    res[C.RES_TAI_FOR_MIN] = iw[O_ST + ST_TAI_MIN]
    fill_items(rules, iw, np.int64(O_BEST_ITEMS), iw[O_ST + ST_DESC])
    for t in range(C.N_TAI):
        res[C.RES_ITEMS + t] = iw[O_BEST_ITEMS + t]
    res[C.RES_PRESENT] = iw[O_HC + HC_PRESENT] | reading_present(rules, iw[O_ST + ST_DESC])


@njit(cache=True, inline="always")
def fan_fu_result(rules, iw, res):
    """The counted Ninghai reading into ``res``: fan, fu, the items' fan and
    fu, points per scheme and silver (docs/rules.md §8, §10.4)."""
    fan = iw[O_ST + ST_FAN]
    fu = iw[O_ST + ST_FU]
    res[C.RES_FAN] = fan
    res[C.RES_FU] = fu
    fill_fan_fu(rules, iw, np.int64(O_BEST_FANFU), iw[O_ST + ST_DESC], iw[O_ST + ST_FU_SETS])
    for i in range(C.N_FAN):
        res[C.RES_FAN_ITEMS + i] = iw[O_BEST_FANFU + i]
    for i in range(C.N_FU):
        res[C.RES_FU_ITEMS + i] = iw[O_BEST_FANFU + C.N_FAN + i]
    for s in range(C.N_SCHEMES):
        res[C.RES_POINTS + s] = scheme_points(rules, s, fan, fu)
    scheme = rules[C.R_POINTS_SCHEME]
    res[C.RES_SILVER] = silver(rules, scheme, res[C.RES_POINTS + scheme])


@njit(cache=True, inline="always")
def why_not_legal(rules, iw, win_by, self_drawn, holds_all3, wild_single):
    """The legal-win decision of a complete hand (docs/rules.md §5, §10.3):
    ``codes.WHY_LEGAL``, or the first reason it is not a legal win."""
    if rules[C.R_SELF_DRAW_ONLY] and win_by == C.WIN_DISCARD:
        return C.WHY_SELF_DRAW_ONLY
    if win_by == C.WIN_ROBBING_KONG and rules[C.R_WILD_SINGLE_CAN_ROB] == 0 and wild_single:
        return C.WHY_WILD_SINGLE_NO_ROB
    if rules[C.R_THREE_WILDS_SELF_DRAW_ONLY] and holds_all3 and not self_drawn:
        return C.WHY_THREE_WILDS_SELF_DRAW
    if iw[O_ST + ST_ANY_MIN] == 0:
        return C.WHY_BELOW_MIN_TAI
    if iw[O_ST + ST_ANY_MINPAT] == 0:
        return C.WHY_PATTERN_NOT_ALLOWED
    if iw[O_ST + ST_ANY_LEGAL] == 0:
        return C.WHY_WILD_DISCARD_RULE
    return C.WHY_LEGAL


# ---------------------------------------------------------------- main kernel
@nrt_free(kernel_only=True)
def score_one(rules, tables, tiles, win, res, iw):
    """``score_win`` with a caller-provided scratch ``iw`` (``new_scratch()``,
    int64[IW_LEN]); same arguments and result otherwise."""
    for i in range(C.RES_LEN):
        res[i] = 0
    err, n_in_play, wild_a, wild_b, wild_flowers = validate(rules, tiles, win, iw)
    if err != C.OK:
        res[C.RES_ERROR] = err
        return err
    hand, melds, n_melds, flowers = tiles
    (win_kind, win_by, ctx, seat, round_wind, indicator, discarder, fed, fed_by_winner,
     kong_from, liable) = win
    system = rules[C.R_SYSTEM]
    self_drawn = win_by == C.WIN_SELF_DRAW
    heavenly = (ctx & C.CTX_HEAVENLY) != 0
    seat_kind = C.EAST + seat
    round_kind = C.EAST + round_wind
    win_wild = is_wild(win_kind, wild_a, wild_b, wild_flowers)
    # the situation
    iw[O_HC + HC_SEAT] = seat
    iw[O_HC + HC_ROUND] = round_wind
    iw[O_HC + HC_WIN_BY] = win_by
    iw[O_HC + HC_WIN_KIND] = -1 if win_wild else win_kind
    iw[O_HC + HC_HEAVENLY] = 1 if heavenly else 0
    iw[O_HC + HC_SYSTEM] = system
    iw[O_HC + HC_SEAT_KIND] = seat_kind
    iw[O_HC + HC_ROUND_KIND] = round_kind
    # the tiles: naturals, wilds, declared melds
    wilds13, wilds, suits = count_naturals(iw, hand, win_kind, win_wild, wild_a, wild_b,
                                           wild_flowers)
    res[C.RES_WILDS] = wilds
    meld_suits, fu_const = declared_melds(rules, iw, melds, n_melds, seat_kind, round_kind,
                                          system)
    suits |= meld_suits
    iw[O_HC + HC_SUITS] = suits
    # the hand-level items
    for t in range(C.N_TAI):
        iw[O_HAND_ITEMS + t] = 0
    holds_all3 = wilds == 3 and n_in_play == 3
    wild_single = wild_single_wait(rules, tables, iw, win_kind, win_by, win_wild, wilds13,
                                   heavenly)
    fan_const = 0
    present = 0
    if system == C.SYSTEM_TAI:
        n_flowers, set_a, set_b, seat_a, seat_b = flower_counts(rules, flowers, seat)
        present = tai_hand_items(rules, iw, HandFacts(
            n_flowers, set_a, set_b, seat_a, seat_b, win_by, ctx, win_wild, wilds, holds_all3,
            wild_single))
    else:
        fan_const, fu_hand = fan_fu_hand_items(rules, iw, flowers, seat, self_drawn)
        fu_const += fu_hand
    const_tai = 0
    for t in range(C.N_TAI):
        const_tai += iw[O_HAND_ITEMS + t]
    iw[O_HC + HC_CONST_TAI] = const_tai - iw[O_HAND_ITEMS + C.T_THREE_WILDS]
    iw[O_HC + HC_THREE_WILDS] = iw[O_HAND_ITEMS + C.T_THREE_WILDS]
    iw[O_HC + HC_FU_CONST] = fu_const
    iw[O_HC + HC_FAN_CONST] = fan_const
    iw[O_HC + HC_PRESENT] = present
    wait_set(tables, iw, hand, indicator, win_kind, win_wild, wild_a, wild_b, wild_flowers,
             wilds13, rules[C.R_WAIT_NEEDS_SINGLE_KIND] != 0, heavenly)
    # the counted reading
    if not best_reading(rules, tables, iw, wilds, n_melds, suits, seat_kind, round_kind):
        res[C.RES_WHY] = C.WHY_NOT_COMPLETE
        return C.OK
    res[C.RES_COMPLETE] = 1
    if system == C.SYSTEM_TAI:
        tai_result(rules, iw, res)
    else:
        fan_fu_result(rules, iw, res)
    why = why_not_legal(rules, iw, win_by, self_drawn, holds_all3, wild_single)
    res[C.RES_WHY] = why
    if why != C.WHY_LEGAL:
        return C.OK
    res[C.RES_WIN] = 1
    # payments (none when a discard/robbing win names no discarder)
    if win_by != C.WIN_SELF_DRAW and discarder < 0:
        return C.OK
    T = res[C.RES_TAI] + rules[C.R_BASE_POINTS] if system == C.SYSTEM_TAI else res[C.RES_SILVER]
    payments(rules, T, seat, win_by, ctx, discarder, fed, fed_by_winner, kong_from, liable, res)
    return C.OK


@njit(cache=True)
def score_win(rules, tables, tiles, win, res):
    """Score one winning situation (docs/rules.md §3, §5-§8 and §10).

    Args:
        rules: int64[R_LEN] (``RuleSet.array``); tables: ``nbsim.rules.lookups.load_tables()``.
        tiles: ``HandTiles`` (the winner's concealed tiles before the
            winning tile, declared melds and set-aside flowers).
        win: ``Win`` (the winning tile, how and in what context it was won,
            the seats, the indicator, the discarder, claims between the
            winner and the others, kong_from and the liable seat).
        res: int64[RES_LEN], written (layout ``codes.RES_*``): complete, win,
            why (WHY_*), tai of the counted reading (three_wilds included) and
            without three_wilds, item tai (RES_ITEMS) and the presence mask of
            the items that apply, 0-tai items included (RES_PRESENT, bit t =
            item t of TAI_ITEMS); Ninghai fan (capped), fu, points per scheme
            and silver, with the fan of each fan item before the cap
            (RES_FAN_ITEMS, N_FAN entries) and the fu of each fu item
            (RES_FU_ITEMS, N_FU entries, adding up to the fu); net payments
            per seat (zero-sum; legal wins only; RES_PAY stays 0 when a
            discard or robbing win names no discarder), wilds among the 14
            concealed tiles. Items belong to the counted reading
            (docs/rules.md §10.3, §10.4).
    Returns:
        E_* code (0 OK), also in res[RES_ERROR]; on an error nothing else in
        res is valid. Tai and points are in tai / points.
    """
    iw = np.zeros(IW_LEN, dtype=np.int64)
    return score_one(rules, tables, tiles, win, res, iw)


@njit(cache=True)
def score_batch(rules, tables, tiles, wins, res):
    """``score_win`` over n situations, reusing one scratch.

    tiles: ``HandTiles`` of arrays hand int8[n, 42], melds int8[n, 4, 3],
    n_melds int[n], flowers int8[n, 8]; wins: ``Win`` of arrays, fed /
    fed_by_winner int8[n, 4] and every other field an int array [n]; res
    int64[n, RES_LEN]. Returns the number of situations with an error.
    """
    iw = np.zeros(IW_LEN, dtype=np.int64)
    n_err = 0
    for i in range(tiles.hand.shape[0]):
        e = score_one(rules, tables,
                      HandTiles(tiles.hand[i], tiles.melds[i], np.int64(tiles.n_melds[i]),
                                tiles.flowers[i]),
                      Win(np.int64(wins.win_kind[i]), np.int64(wins.win_by[i]),
                          np.int64(wins.ctx[i]), np.int64(wins.seat[i]),
                          np.int64(wins.round_wind[i]), np.int64(wins.indicator[i]),
                          np.int64(wins.discarder[i]), wins.fed[i], wins.fed_by_winner[i],
                          np.int64(wins.kong_from[i]), np.int64(wins.liable[i])),
                      res[i], iw)
        if e != C.OK:
            n_err += 1
    return n_err
