"""The readings of one cover of the natural tiles (Numba; docs/rules.md
§10.3): ``eval_leaf`` places the winning tile (in a natural group, in a
re-identified free group, or in a free group of wilds) and chooses the
classes of the free groups, then scores each reading (``readings.choice.
consider``). Steps 2 and 3 of the method in ``readings``' module doc.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.scoring.readings.choice import consider
from nbsim.kernels.scoring.readings.descriptor import fu_set_inc
from nbsim.kernels.scoring.readings.groups import (
    Groups,
    WinSlot,
    chow_shape,
    natural_chow,
    with_chow,
    with_class,
    with_pair,
    with_pung,
)
from nbsim.kernels.scoring.scratch import (
    CF_FUI_C,
    CF_FUI_E,
    CF_TYPE,
    CLS_W,
    G_CHOW,
    G_PUNG,
    HC_MELD_CHOWS,
    HC_MELD_DRAGON_PUNGS,
    HC_MELD_PUNGS,
    HC_MELD_ROUND_PUNG,
    HC_MELD_SEAT_PUNG,
    HC_N_MELD_CLASSES,
    HC_N_PAIR_CLASSES,
    HC_PAIR_CLASS_SUIT,
    HC_ROUND_KIND,
    HC_SEAT_KIND,
    HC_SUITS,
    HC_SYSTEM,
    HC_WIN_BY,
    HC_WIN_KIND,
    O_CLS,
    O_GB,
    O_GT,
    O_HC,
    O_NAT0,
    SH_CLOSED,
    SH_DUAL,
    SH_EDGE,
    SH_SINGLE,
    SH_TWO,
)


@nrt_free(kernel_only=True)
def choose_free_pair(rules, iw, free_pair, groups, win):
    """Choose the class of a free pair (when free_pair is 1) and score."""
    if free_pair == 0:
        consider(rules, iw, groups, win)
        return
    for pc in range(iw[O_HC + HC_N_PAIR_CLASSES]):
        consider(rules, iw, with_pair(groups, -1,
                                      groups.suits | iw[O_HC + HC_PAIR_CLASS_SUIT + pc]), win)


@nrt_free(kernel_only=True)
def choose_free(rules, iw, free_melds, free_pair, groups, win):
    """Choose the classes of free_melds (0..2) free melds and the free pair
    (free_pair 0/1), then score."""
    if free_melds == 0:
        if free_pair == 0:
            consider(rules, iw, groups, win)
        else:
            choose_free_pair(rules, iw, free_pair, groups, win)
        return
    n_classes = iw[O_HC + HC_N_MELD_CLASSES]
    for c1 in range(n_classes):
        groups1 = with_class(iw, groups, c1, CF_FUI_C)
        if free_melds == 1:
            choose_free_pair(rules, iw, free_pair, groups1, win)
        else:
            for c2 in range(c1, n_classes):
                choose_free_pair(rules, iw, free_pair, with_class(iw, groups1, c2, CF_FUI_C), win)


@nrt_free(kernel_only=True)
def convert_host(rules, iw, free_melds, free_pair, groups, j, is_host, win):
    """Re-identify one free group to hold kind j, then choose the other classes.

    is_host: the re-identified group holds the winning tile (natural winning
    kind j), so its winning slot is made here; otherwise ``win`` describes
    the winning slot elsewhere."""
    self_drawn = iw[O_HC + HC_WIN_BY] == C.WIN_SELF_DRAW
    if free_melds >= 1:
        # pung j
        pung = with_pung(iw, groups, j, fu_set_inc(j, (not is_host) or self_drawn, False))
        if is_host:
            choose_free(rules, iw, free_melds - 1, free_pair, pung,
                        WinSlot(SH_DUAL, j, False, iw[O_NAT0 + j] < 3))
        else:
            choose_free(rules, iw, free_melds - 1, free_pair, pung, win)
        # chows holding j
        if j < C.HONOR0:
            chow = with_chow(groups)
            rank = j % 9
            for pos in range(3):
                base_rank = rank - pos
                if base_rank < 0 or base_rank > 6:
                    continue
                base = j - pos
                if is_host:
                    win_j = WinSlot(chow_shape(base, pos), j, False, not natural_chow(iw, base))
                    choose_free(rules, iw, free_melds - 1, free_pair, chow, win_j)
                else:
                    choose_free(rules, iw, free_melds - 1, free_pair, chow, win)
    if free_pair == 1:
        pair = with_pair(groups, j, groups.suits)
        if is_host:
            holds_wild = iw[O_NAT0 + j] < 2
            choose_free(rules, iw, free_melds, np.int64(0), pair,
                        WinSlot(SH_SINGLE, j, holds_wild, holds_wild))
        else:
            choose_free(rules, iw, free_melds, np.int64(0), pair, win)


@nrt_free(kernel_only=True)
def eval_leaf(rules, iw, n_groups, n_pairs, wilds_left):
    """All readings of one natural-group cover (n_groups groups in GT/GB,
    n_pairs pairs among them, wilds_left wilds left for the free groups)."""
    fan_fu = iw[O_HC + HC_SYSTEM] == C.SYSTEM_FAN_FU
    self_drawn = iw[O_HC + HC_WIN_BY] == C.WIN_SELF_DRAW
    pungs = iw[O_HC + HC_MELD_PUNGS]
    chows = iw[O_HC + HC_MELD_CHOWS]
    dragon_pungs = iw[O_HC + HC_MELD_DRAGON_PUNGS]
    seat_pung = iw[O_HC + HC_MELD_SEAT_PUNG]
    round_pung = iw[O_HC + HC_MELD_ROUND_PUNG]
    seat_kind = iw[O_HC + HC_SEAT_KIND]
    round_kind = iw[O_HC + HC_ROUND_KIND]
    pair_kind = -1
    fu_sets = 0
    for g in range(n_groups):
        gtype = iw[O_GT + g]
        base = iw[O_GB + g]
        if gtype == G_PUNG:
            pungs += 1
            if base >= C.WHITE:
                dragon_pungs += 1
            if base == seat_kind:
                seat_pung = 1
            if base == round_kind:
                round_pung = 1
            if fan_fu:
                fu_sets += fu_set_inc(base, True, False)
        elif gtype == G_CHOW:
            chows += 1
        else:
            pair_kind = base
    groups = Groups(iw[O_HC + HC_SUITS], pungs, chows, dragon_pungs, seat_pung, round_pung,
                    pair_kind, fu_sets)
    free_pair = 1 - n_pairs
    free_melds = (wilds_left - 2 * free_pair) // 3
    no_free = free_melds == 0 and free_pair == 0
    k = iw[O_HC + HC_WIN_KIND]
    if k >= 0:
        # natural winning tile in a natural group
        for g in range(n_groups):
            gtype = iw[O_GT + g]
            base = iw[O_GB + g]
            if gtype == G_CHOW:
                if base <= k <= base + 2:
                    win = WinSlot(chow_shape(base, k - base), k, False,
                                  not natural_chow(iw, base))
                    if no_free:
                        consider(rules, iw, groups, win)
                    else:
                        choose_free(rules, iw, free_melds, free_pair, groups, win)
            elif base == k:
                if gtype == G_PUNG:
                    host = groups
                    if fan_fu and not self_drawn:
                        # completed by a discard: the pung counts as exposed
                        host = Groups(groups.suits, groups.pungs, groups.chows,
                                      groups.dragon_pungs, groups.seat_pung, groups.round_pung,
                                      groups.pair_kind,
                                      groups.fu_sets - fu_set_inc(k, True, False)
                                      + fu_set_inc(k, False, False))
                    win = WinSlot(SH_DUAL, k, False, iw[O_NAT0 + k] < 3)
                    if no_free:
                        consider(rules, iw, host, win)
                    else:
                        choose_free(rules, iw, free_melds, free_pair, host, win)
                else:
                    holds_wild = iw[O_NAT0 + k] < 2
                    win = WinSlot(SH_SINGLE, k, holds_wild, holds_wild)
                    if no_free:
                        consider(rules, iw, groups, win)
                    else:
                        choose_free(rules, iw, free_melds, free_pair, groups, win)
        # natural winning tile in a re-identified free group
        if free_melds >= 1 or free_pair == 1:
            convert_host(rules, iw, free_melds, free_pair, groups, k, np.bool_(True),
                         WinSlot(SH_SINGLE, -1, False, False))
        return
    # wild winning tile in a natural-group slot of kind j
    for g in range(n_groups):
        gtype = iw[O_GT + g]
        base = iw[O_GB + g]
        n_slots = 3 if gtype == G_CHOW else 1
        for pos in range(n_slots):
            j = base + pos
            if gtype == G_CHOW:
                shape = chow_shape(base, pos)
            elif gtype == G_PUNG:
                shape = SH_DUAL
            else:
                shape = SH_SINGLE
            host = groups
            if gtype == G_PUNG and fan_fu and not self_drawn:
                host = Groups(groups.suits, groups.pungs, groups.chows, groups.dragon_pungs,
                              groups.seat_pung, groups.round_pung, groups.pair_kind,
                              groups.fu_sets - fu_set_inc(j, True, False)
                              + fu_set_inc(j, False, False))
            win = WinSlot(shape, j, shape == SH_SINGLE, True)
            # slots of kind j among the natural groups
            slots_j = 0
            for g2 in range(n_groups):
                gtype2 = iw[O_GT + g2]
                base2 = iw[O_GB + g2]
                if gtype2 == G_CHOW:
                    if base2 <= j <= base2 + 2:
                        slots_j += 1
                elif base2 == j:
                    slots_j += 3 if gtype2 == G_PUNG else 2
            if slots_j > iw[O_NAT0 + j]:
                choose_free(rules, iw, free_melds, free_pair, host, win)
            elif free_melds >= 1 or free_pair == 1:
                convert_host(rules, iw, free_melds, free_pair, host, j, np.bool_(False),
                             win)
    # wild winning tile in a free meld
    if free_melds >= 1:
        fu_field = CF_FUI_C if self_drawn else CF_FUI_E
        for c in range(iw[O_HC + HC_N_MELD_CLASSES]):
            meld = with_class(iw, groups, c, fu_field)
            if iw[O_CLS + c * CLS_W + CF_TYPE] == G_PUNG:
                choose_free(rules, iw, free_melds - 1, free_pair, meld,
                            WinSlot(SH_DUAL, -1, False, True))
            else:
                for shape in (SH_EDGE, SH_CLOSED, SH_TWO):
                    choose_free(rules, iw, free_melds - 1, free_pair, meld,
                                WinSlot(shape, -1, False, True))
    # wild winning tile in the free pair
    if free_pair == 1:
        for pc in range(iw[O_HC + HC_N_PAIR_CLASSES]):
            choose_free(rules, iw, free_melds, np.int64(0),
                        with_pair(groups, -1, groups.suits | iw[O_HC + HC_PAIR_CLASS_SUIT + pc]),
                        WinSlot(SH_SINGLE, -1, True, True))
