"""Hand evaluator and scorer: readings, tai items, Ninghai fan/fu/points,
the legal-win decision and payments (RULES.md sections 3, 5, 6, 7, 8, 10).

Public kernels (all ``@njit(cache=True)``, no allocation in the batch loop):

* ``score_win(rules, tables, hand, melds, n_melds, flowers, win_tile, win_by,
  ctx, seat, round_wind, indicator, discarder, fed, fed_by_winner, kong_from,
  liable, res) -> int``: one winning situation; fills ``res`` (int64[RES_LEN],
  layout ``codes.RES_*``) and returns the ``E_*`` error code (0 = OK).
* ``score_batch(...)``: the same over arrays of situations (benchmarks, the
  engine's batch statistics).
* ``player_fu(rules, hand, melds, n_melds, flowers) -> int``: a Ninghai
  player's own fu (胡), for the settlement among non-winners.

How the readings are enumerated
===============================
A *reading* is a multiset of group identities (4 - n_melds melds + 1 pair,
each group a concrete chow / pung / pair of kinds 0..33) plus the slot the
winning tile occupies. It is valid when the 14 concealed tiles can be placed
in the slots: every natural tile in a slot of its own kind, wilds anywhere,
the winning tile in the winning slot. Every tai item depends only on the group
identities and the winning slot (plus hand constants), never on which
physical tile sits where, except the discard restrictions, which ask whether
the winning group *can* be all natural: that holds iff for each kind j the
group has at most nat[j] slots of kind j (nat = natural counts of the 14
tiles), because the naturals of a kind can be shuffled freely among that
kind's slots and the wilds fill the rest.

1. A depth-first search covers the natural tiles: at the lowest kind i that
   still has an uncovered natural it picks a group identity containing i
   (pair i, pung i, chow i.., chow (i-1).., chow (i-2)..; slots below i are
   wilds) and fills the group's other slots with naturals where any are left,
   else with wilds. Groups picked at the same kind come in nondecreasing
   option order (dedupe). Every identity multiset G whose slots cover the
   naturals is reached this way with some of its groups picked (the
   *natural groups* N) and the others left over (the *free groups* F, made
   only of wilds): at each step the lowest uncovered natural lies in some
   group of G not yet picked.
2. Free groups get their identity from a small set of *classes* (below).
3. The winning tile is placed ("hosted"):
   natural winning kind k: in a natural group with a k slot; or in a free
   meld / the free pair re-identified as pung k, a chow holding k (any
   position) or pair k (the natural k moves there and a wild takes its old
   slot).
   wild winning tile: in a natural-group slot of kind j when N has more
   j slots than nat[j] (a wild can sit there); otherwise in such a slot after
   re-identifying one free group to hold kind j (pung j, chow holding j,
   pair j); or in any slot of a free group (pung: dual-pung shape, chow: edge,
   closed or two-sided by choosing its ranks, pair: single shape).
   These cover every valid reading: the winning slot lies in N or in F, and
   a wild can stand in an N slot of kind j exactly when the whole reading
   has more j slots than naturals of j.

Free-group classes, and why they suffice
----------------------------------------
The tai of a reading depends on a free group (one not holding the winning
tile) only through: its type (chow/pung/pair: all_pungs, all_chows), its
suit bit (m, p, s or honors: flushes, all_honors, allowed_patterns), whether a
pung is a dragon (dragon_pung, counted per pung: wilds have no four-copies
limit, so a second White pung of wilds is allowed), the seat wind or the round
wind (the wind items), whether a pair is the seat or round wind (all_chows),
and for Ninghai fu whether a pung is terminal/honor or simple. So:

* meld classes: pung of a dragon, pung of the seat wind (also the round wind
  when they are equal), pung of the round wind, a suited pung, a suited chow;
* pair classes: a suited pair, an honor pair that is neither the seat nor
  the round wind (a dragon pair).

The suit of the suited classes is one the hand already shows (any of them:
the suit bits stay as they are); a suit it does not show would only add a
suit bit, which can never raise a flush item, so it is dominated. When the
naturals and melds are all honors, any suit stands for all three.

Every concrete identity X maps to a class of the same type whose items, in
any reading, are entrywise >= X's: a pung of another wind maps to the
seat-wind pung; a seat/round-wind pair to the dragon pair, which only helps
all_chows; a suited group to the suited class, whose suit bit is already set
(or, honors only, sets the same single suit bit); a suited pung scores the
larger of the terminal/simple fu. Legality is monotone too (more tai, suit
bits that are a subset, the same winning group), so the best key (tai,
legal, items) is reached by some class choice. The winning group is never a
class: its identity is enumerated exactly.

Choosing the counted reading
----------------------------
Ningbo (``system = "tai"``): most total tai; among equal tai a legal reading
(min_tai without three_wilds, allowed_patterns, discard restriction); among
those, the lexicographically largest vector of item tai in ``codes.TAI_ITEMS``
order (a deterministic tie-break that does not depend on the enumeration
order). Ninghai (``"fan_fu"``): most points under ``points_scheme``, then
fan, then fu, then legal (RULES.md section 10).

Wait items (RULES.md sections 6 and 10): the winning slot's shape is single
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
from numba import njit

from nbsim.kernels import codes as C
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.hand import (completes_with_step, group_needs, honor_index,
                                is_complete, suit_index)
from nbsim.kernels.wilds import next_kind

# ---------------------------------------------------------------- local codes
G_PAIR = 0          # group types inside a reading
G_PUNG = 1
G_CHOW = 2

SH_SINGLE = 0       # shape of the winning slot
SH_DUAL = 1
SH_EDGE = 2
SH_CLOSED = 3
SH_TWO = 4

FAN_FULL_CAP = 3    # RULES.md section 8: at fan >= 3 the points are the scheme's cap

# hand-constant block hc[] (int64)
HC_SEAT = 0
HC_ROUND = 1
HC_WINBY = 2
HC_KWIN = 3         # natural winning kind, -1 when the winning tile is a wild
HC_NMELDS = 4
HC_CONST_TAI = 5    # hand items (flowers, self_drawn, ...) without three_wilds
HC_THREE = 6        # three_wilds tai when it applies
HC_MASK = 7         # suit bits (1 m, 2 p, 4 s, 8 honors) of the natural tiles and melds
HC_MP = 8           # pungs/kongs among the declared melds
HC_MC = 9           # chows among the declared melds
HC_MD = 10          # dragon pungs among the declared melds
HC_MS = 11          # seat-wind pung among the declared melds
HC_MR = 12          # round-wind pung among the declared melds
HC_WAIT_N = 13      # size of the 13-tile wait set (capped at 3)
HC_WAIT_K0 = 14
HC_WAIT_K1 = 15
HC_HEAV = 16
HC_SINGLE = 17      # wait_needs_single_kind
HC_FU_CONST = 18    # Ninghai: melds + flowers + self-drawn fu
HC_FAN_CONST = 19   # Ninghai: flower fan
HC_SYSTEM = 20
HC_SEATK = 21       # seat wind kind
HC_ROUNDK = 22      # round wind kind
HC_NCLS = 23        # number of free meld classes
HC_NPCLS = 24       # number of free pair classes
HC_PCLS = 25        # 2 entries: suit bit of each free pair class
HC_LEN = 27

# best-reading state st[] (int64)
ST_HAVE = 0
ST_KEY1 = 1         # tai (Ningbo) or points under points_scheme (Ninghai)
ST_KEY2 = 2         # fan (Ninghai)
ST_KEY3 = 3         # fu (Ninghai)
ST_LEGAL = 4
ST_DESC = 5         # packed reading-dependent items (dedupes equal readings)
ST_ANY_MIN = 6
ST_ANY_MINPAT = 7
ST_ANY_LEGAL = 8
ST_TAI_MIN = 9
ST_FAN = 10
ST_FU = 11
ST_LEN = 12

# free meld class table cls[c * CLS_W + field]
CLS_W = 8
CF_TYPE = 0
CF_SUIT = 1
CF_DRAG = 2
CF_SEAT = 3
CF_ROUND = 4
CF_FU_C = 5         # fu when concealed
CF_FU_E = 6         # fu when exposed (a pung completed by a discarded winning tile)
MAX_CLS = 5

# integer scratch layout (score_win allocates it; score_batch reuses one)
O_NAT = 0
O_NAT0 = 34
O_GT = 68
O_GB = 76
O_GC = 84
O_GW = 92
O_LVPOS = 100
O_LVOPT = 110
O_LVMIN = 120
O_HC = 130
O_ST = O_HC + HC_LEN
O_BI = O_ST + ST_LEN
O_CI = O_BI + C.N_TAI
O_HI = O_CI + C.N_TAI
O_CLS = O_HI + C.N_TAI
O_TMP = O_CLS + MAX_CLS * CLS_W
O_MCNT = O_TMP + 34
IW_LEN = O_MCNT + 34


def new_scratch():
    """Scratch array for ``score_one``: int64[IW_LEN]."""
    return np.zeros(IW_LEN, dtype=np.int64)


# ---------------------------------------------------------------- small helpers
@njit(cache=True, inline="always", error_model="numpy")
def _val(rules, item):
    """Tai of item, 0 when the variant lacks it."""
    v = rules[C.R_TAI + item]
    return 0 if v == C.TAI_ABSENT else v


@njit(cache=True, inline="always", error_model="numpy")
def _has(rules, item):
    return rules[C.R_TAI + item] != C.TAI_ABSENT


@njit(cache=True, inline="always", error_model="numpy")
def _suit_bit(k):
    if k >= C.HONOR0:
        return 8
    return 1 << (k // 9)


@njit(cache=True, inline="always", error_model="numpy")
def _terminal(k):
    return k >= C.HONOR0 or k % 9 == 0 or k % 9 == 8


@njit(cache=True, inline="always", error_model="numpy")
def _pung_fu(rules, k, concealed, kong):
    """Ninghai fu of a pung/kong of kind k (RULES.md section 8)."""
    t = _terminal(k)
    if kong:
        if concealed:
            return rules[C.R_FU + (C.FU_CONCEALED_KONG_TERMINAL if t
                                   else C.FU_CONCEALED_KONG_SIMPLE)]
        return rules[C.R_FU + (C.FU_EXPOSED_KONG_TERMINAL if t else C.FU_EXPOSED_KONG_SIMPLE)]
    if concealed:
        return rules[C.R_FU + (C.FU_CONCEALED_PUNG_TERMINAL if t else C.FU_CONCEALED_PUNG_SIMPLE)]
    return rules[C.R_FU + (C.FU_EXPOSED_PUNG_TERMINAL if t else C.FU_EXPOSED_PUNG_SIMPLE)]


@njit(cache=True, inline="always", error_model="numpy")
def _chow_shape(base, pos):
    """Shape of the winning tile at position pos (0..2) of the chow starting at base."""
    if pos == 1:
        return SH_CLOSED
    r = base % 9
    if pos == 0:
        return SH_EDGE if r == 6 else SH_TWO      # 7 completing 89
    return SH_EDGE if r == 0 else SH_TWO          # 3 completing 12


@nrt_free(error_model="numpy")
def scheme_points(rules, scheme, fan, fu):
    """Ninghai points of one scheme (RULES.md sections 8 and 10): base B with
    fu: ceil10((B + fu) * 2**fan); without fu (tui_dao_ba): B * 2**fan; at
    fan >= 3 the scheme's cap; always at most the cap."""
    cap = rules[C.R_SCHEME_CAP + scheme]
    if fan >= FAN_FULL_CAP:
        return cap
    base = rules[C.R_SCHEME_BASE + scheme]
    if rules[C.R_SCHEME_USES_FU + scheme]:
        p = (base + fu) << fan
        p = ((p + 9) // 10) * 10
    else:
        p = base << fan
    return min(p, cap)


@nrt_free(error_model="numpy")
def silver(rules, scheme, points):
    """Silver for points under scheme (RULES.md section 8): 1:1, or for the
    rounding schemes each hundred's remainder 0-20 -> 0, 30-60 -> 50,
    70-90 -> 100 when ``silver_rounding`` is on."""
    if rules[C.R_SILVER_ROUNDING] and rules[C.R_SCHEME_SILVER_ROUND + scheme]:
        h = (points // 100) * 100
        r = points - h
        if r < 30:
            r = 0
        elif r < 70:
            r = 50
        else:
            r = 100
        return h + r
    return points


# ---------------------------------------------------------------- reading evaluation
@nrt_free(error_model="numpy")
def _fill_desc(rules, iw, o, desc):
    """Item tai of a reading into iw[o:o + N_TAI]: the hand items plus the
    reading items packed in desc (see ``_consider``)."""
    for t in range(C.N_TAI):
        iw[o + t] = iw[O_HI + t]
    fl = desc & 3
    if fl == 1:
        iw[o + C.T_FULL_FLUSH] += _val(rules, C.T_FULL_FLUSH)
    elif fl == 2:
        iw[o + C.T_HALF_FLUSH] += _val(rules, C.T_HALF_FLUSH)
    elif fl == 3:
        iw[o + C.T_ALL_HONORS] += _val(rules, C.T_ALL_HONORS)
    if desc & 4:
        iw[o + C.T_ALL_PUNGS] += _val(rules, C.T_ALL_PUNGS)
    iw[o + C.T_DRAGON_PUNG] += ((desc >> 3) & 7) * _val(rules, C.T_DRAGON_PUNG)
    if desc & (1 << 6):
        iw[o + C.T_SEAT_WIND_PUNG] += _val(rules, C.T_SEAT_WIND_PUNG)
    if desc & (1 << 7):
        iw[o + C.T_PREVALENT_WIND_PUNG] += _val(rules, C.T_PREVALENT_WIND_PUNG)
    item = ((desc >> 8) & 31) - 1
    if item >= 0:
        iw[o + item] += _val(rules, item)
    if desc & (1 << 13):
        iw[o + C.T_BIG_SINGLE_WAIT] += _val(rules, C.T_BIG_SINGLE_WAIT)


@nrt_free(error_model="numpy")
def _consider(rules, iw, mask, npung, nchow, ndrag, seatp, roundp,
              pairk, fu, shape, ident, wpair, hwild):
    """Score one complete reading and keep it if it beats the best so far.

    pairk: kind of the pair (-1: a free pair class); fu: Ninghai fu of the
    concealed groups; shape: SH_* of the winning slot; ident: kind the
    winning slot stands for (-1 inside a free group); wpair: the winning tile
    pairs with a wild; hwild: the winning group must hold a wild."""
    heav = iw[O_HC + HC_HEAV]
    single = iw[O_HC + HC_SINGLE]
    wn = iw[O_HC + HC_WAIT_N]
    k0 = iw[O_HC + HC_WAIT_K0]
    k1 = iw[O_HC + HC_WAIT_K1]
    suits = mask & 7
    hon = (mask & 8) != 0
    one_suit = suits == 1 or suits == 2 or suits == 4
    ff = one_suit and not hon
    hf = one_suit and hon
    ah = suits == 0 and hon
    allp = npung == 4
    # wait item of the winning slot (exclusive; RULES.md sections 6 and 10)
    item = -1
    closed_ok = False
    if heav == 0:
        if shape == SH_TWO:
            ps = pairk >= 0 and (pairk == iw[O_HC + HC_SEATK] or pairk == iw[O_HC + HC_ROUNDK])
            if nchow == 4 and not ps and _has(rules, C.T_ALL_CHOWS):
                item = C.T_ALL_CHOWS
        else:
            if single:
                if shape == SH_DUAL:
                    ok = (wn == 2 and ident >= 0 and pairk >= 0 and
                          ((ident == k0 and pairk == k1) or (ident == k1 and pairk == k0)))
                else:
                    ok = wn == 1 and ident == k0
            else:
                ok = True
            if shape == SH_CLOSED:
                closed_ok = ok
            if ok:
                if shape == SH_SINGLE:
                    cand = C.T_SINGLE_WAIT
                elif shape == SH_DUAL:
                    cand = C.T_DUAL_PUNG_WAIT
                elif shape == SH_EDGE:
                    cand = C.T_EDGE_WAIT
                else:
                    cand = C.T_CLOSED_WAIT
                if _has(rules, cand):
                    item = cand
        if item < 0 and _has(rules, C.T_CHICKEN_HAND):
            item = C.T_CHICKEN_HAND
    big = item == C.T_SINGLE_WAIT and iw[O_HC + HC_NMELDS] == 4 and _has(rules, C.T_BIG_SINGLE_WAIT)

    if iw[O_HC + HC_SYSTEM] == C.SYSTEM_TAI:
        t = iw[O_HC + HC_CONST_TAI] + iw[O_HC + HC_THREE]
        if ff:
            t += _val(rules, C.T_FULL_FLUSH)
        if hf:
            t += _val(rules, C.T_HALF_FLUSH)
        if ah:
            t += _val(rules, C.T_ALL_HONORS)
        if allp:
            t += _val(rules, C.T_ALL_PUNGS)
        t += ndrag * _val(rules, C.T_DRAGON_PUNG)
        if seatp:
            t += _val(rules, C.T_SEAT_WIND_PUNG)
        if roundp:
            t += _val(rules, C.T_PREVALENT_WIND_PUNG)
        if item >= 0:
            t += _val(rules, item)
        if big:
            t += _val(rules, C.T_BIG_SINGLE_WAIT)
        tmin = t - iw[O_HC + HC_THREE]
        key1 = t
        key2 = 0
        key3 = 0
        fan = 0
        fut = 0
    else:
        fan = iw[O_HC + HC_FAN_CONST] + ndrag * rules[C.R_FAN + C.F_DRAGON_PUNG]
        if ff:
            fan += rules[C.R_FAN + C.F_FULL_FLUSH]
        if hf:
            fan += rules[C.R_FAN + C.F_HALF_FLUSH]
        if ah:
            fan += rules[C.R_FAN + C.F_ALL_HONORS]
        if allp:
            fan += rules[C.R_FAN + C.F_ALL_PUNGS]
        fan = min(fan, rules[C.R_FAN_CAP])
        fut = fu + iw[O_HC + HC_FU_CONST]
        if closed_ok:
            fut += rules[C.R_FU + C.FU_CLOSED_WAIT]
        key1 = scheme_points(rules, rules[C.R_POINTS_SCHEME], fan, fut)
        key2 = fan
        key3 = fut
        tmin = fan
    # legality of this reading (RULES.md sections 5 and 10)
    okmin = tmin >= rules[C.R_MIN_TAI]
    pats = rules[C.R_ALLOWED_PATTERNS]
    okpat = (pats == 0 or (ff and (pats & C.PAT_FULL_FLUSH) != 0)
             or (hf and (pats & C.PAT_HALF_FLUSH) != 0)
             or (ah and (pats & C.PAT_ALL_HONORS) != 0)
             or (allp and (pats & C.PAT_ALL_PUNGS) != 0))
    okdis = True
    if iw[O_HC + HC_WINBY] == C.WIN_DISCARD:
        dww = rules[C.R_DISCARD_WIN_WILD_RULE]
        if dww == C.DWW_FORBID_WILD_PAIR:
            okdis = not wpair
        elif dww == C.DWW_FORBID_ANY_WILD_USE:
            okdis = not hwild
    legal = 1 if (okmin and okpat and okdis) else 0
    if okmin:
        iw[O_ST + ST_ANY_MIN] = 1
        if okpat:
            iw[O_ST + ST_ANY_MINPAT] = 1
    if legal:
        iw[O_ST + ST_ANY_LEGAL] = 1
    # compare with the best reading
    fl = 1 if ff else (2 if hf else (3 if ah else 0))
    desc = (fl | (1 << 2 if allp else 0) | (ndrag << 3) | (seatp << 6) | (roundp << 7)
            | ((item + 1) << 8) | ((1 << 13) if big else 0))
    better = False
    if iw[O_ST + ST_HAVE] == 0:
        better = True
    else:
        if key1 != iw[O_ST + ST_KEY1]:
            if key1 < iw[O_ST + ST_KEY1]:
                return
            better = True
        elif key2 != iw[O_ST + ST_KEY2]:
            if key2 < iw[O_ST + ST_KEY2]:
                return
            better = True
        elif key3 != iw[O_ST + ST_KEY3]:
            if key3 < iw[O_ST + ST_KEY3]:
                return
            better = True
        elif legal != iw[O_ST + ST_LEGAL]:
            if legal < iw[O_ST + ST_LEGAL]:
                return
            better = True
        else:
            if iw[O_HC + HC_SYSTEM] != C.SYSTEM_TAI or desc == iw[O_ST + ST_DESC]:
                return
            _fill_desc(rules, iw, O_CI, desc)
            _fill_desc(rules, iw, O_BI, iw[O_ST + ST_DESC])
            for t2 in range(C.N_TAI):
                if iw[O_CI + t2] != iw[O_BI + t2]:
                    if iw[O_CI + t2] > iw[O_BI + t2]:
                        better = True
                    break
            if not better:
                return
    iw[O_ST + ST_HAVE] = 1
    iw[O_ST + ST_KEY1] = key1
    iw[O_ST + ST_KEY2] = key2
    iw[O_ST + ST_KEY3] = key3
    iw[O_ST + ST_LEGAL] = legal
    iw[O_ST + ST_DESC] = desc
    iw[O_ST + ST_TAI_MIN] = tmin
    iw[O_ST + ST_FAN] = fan
    iw[O_ST + ST_FU] = fut


@nrt_free(error_model="numpy")
def _free_pair(rules, iw, fp, mask, npung, nchow, ndrag, seatp, roundp,
               pairk, fu, shape, ident, wpair, hwild):
    """Choose the class of a free pair (when fp) and score."""
    if fp == 0:
        _consider(rules, iw, mask, npung, nchow, ndrag, seatp, roundp,
                  pairk, fu, shape, ident, wpair, hwild)
        return
    for pc in range(iw[O_HC + HC_NPCLS]):
        _consider(rules, iw, mask | iw[O_HC + HC_PCLS + pc], npung, nchow, ndrag, seatp,
                  roundp, -1, fu, shape, ident, wpair, hwild)


@nrt_free(error_model="numpy")
def _free(rules, iw, jf, fp, mask, npung, nchow, ndrag, seatp, roundp,
          pairk, fu, shape, ident, wpair, hwild):
    """Choose the classes of jf (0..2) free melds and the free pair, then score."""
    if jf == 0:
        if fp == 0:
            _consider(rules, iw, mask, npung, nchow, ndrag, seatp, roundp,
                      pairk, fu, shape, ident, wpair, hwild)
        else:
            _free_pair(rules, iw, fp, mask, npung, nchow, ndrag, seatp, roundp,
                       pairk, fu, shape, ident, wpair, hwild)
        return
    ncls = iw[O_HC + HC_NCLS]
    for c1 in range(ncls):
        o1 = c1 * CLS_W
        p1 = 1 if iw[O_CLS + o1 + CF_TYPE] == G_PUNG else 0
        m1 = mask | iw[O_CLS + o1 + CF_SUIT]
        np1 = npung + p1
        nc1 = nchow + 1 - p1
        nd1 = ndrag + iw[O_CLS + o1 + CF_DRAG]
        s1 = seatp | iw[O_CLS + o1 + CF_SEAT]
        r1 = roundp | iw[O_CLS + o1 + CF_ROUND]
        f1 = fu + iw[O_CLS + o1 + CF_FU_C]
        if jf == 1:
            _free_pair(rules, iw, fp, m1, np1, nc1, nd1, s1, r1,
                       pairk, f1, shape, ident, wpair, hwild)
        else:
            for c2 in range(c1, ncls):
                o2 = c2 * CLS_W
                p2 = 1 if iw[O_CLS + o2 + CF_TYPE] == G_PUNG else 0
                _free_pair(rules, iw, fp, m1 | iw[O_CLS + o2 + CF_SUIT], np1 + p2,
                           nc1 + 1 - p2, nd1 + iw[O_CLS + o2 + CF_DRAG],
                           s1 | iw[O_CLS + o2 + CF_SEAT],
                           r1 | iw[O_CLS + o2 + CF_ROUND], pairk, f1 + iw[O_CLS + o2 + CF_FU_C],
                           shape, ident, wpair, hwild)


@nrt_free(error_model="numpy")
def _convert_host(rules, iw, jf, fp, mask, npung, nchow, ndrag,
                  seatp, roundp, pairk, fu, j, is_host, shape, ident, wpair, hwild):
    """Re-identify one free group to hold kind j, then choose the other classes.

    is_host: the re-identified group holds the winning tile (natural winning
    kind j), so its shape / wild flags are computed here; otherwise shape,
    ident, wpair, hwild describe the winning slot elsewhere."""
    selfd = iw[O_HC + HC_WINBY] == C.WIN_SELF_DRAW
    seatk = iw[O_HC + HC_SEATK]
    roundk = iw[O_HC + HC_ROUNDK]
    if jf >= 1:
        # pung j
        f2 = fu + _pung_fu(rules, j, (not is_host) or selfd, False)
        d2 = ndrag + (1 if j >= C.WHITE else 0)
        s2 = seatp | (1 if j == seatk else 0)
        r2 = roundp | (1 if j == roundk else 0)
        if is_host:
            _free(rules, iw, jf - 1, fp, mask, npung + 1, nchow, d2, s2, r2,
                  pairk, f2, SH_DUAL, j, False, iw[O_NAT0 + j] < 3)
        else:
            _free(rules, iw, jf - 1, fp, mask, npung + 1, nchow, d2, s2, r2,
                  pairk, f2, shape, ident, wpair, hwild)
        # chows holding j
        if j < C.HONOR0:
            r = j % 9
            for pos in range(3):
                rb = r - pos
                if rb < 0 or rb > 6:
                    continue
                b = j - pos
                if is_host:
                    hw = not (iw[O_NAT0 + b] >= 1 and iw[O_NAT0 + b + 1] >= 1
                              and iw[O_NAT0 + b + 2] >= 1)
                    _free(rules, iw, jf - 1, fp, mask, npung, nchow + 1, ndrag,
                          seatp, roundp, pairk, fu, _chow_shape(b, pos), j, False, hw)
                else:
                    _free(rules, iw, jf - 1, fp, mask, npung, nchow + 1, ndrag,
                          seatp, roundp, pairk, fu, shape, ident, wpair, hwild)
    if fp == 1:
        if is_host:
            hw = iw[O_NAT0 + j] < 2
            _free(rules, iw, jf, 0, mask, npung, nchow, ndrag, seatp, roundp,
                  j, fu, SH_SINGLE, j, hw, hw)
        else:
            _free(rules, iw, jf, 0, mask, npung, nchow, ndrag, seatp, roundp,
                  j, fu, shape, ident, wpair, hwild)


@nrt_free(error_model="numpy")
def _eval_leaf(rules, iw, ng, npair, wl):
    """All readings of one natural-group cover (ng groups in gt/gb, npair
    pairs among them, wl wilds left for the free groups)."""
    npung = iw[O_HC + HC_MP]
    nchow = iw[O_HC + HC_MC]
    ndrag = iw[O_HC + HC_MD]
    seatp = iw[O_HC + HC_MS]
    roundp = iw[O_HC + HC_MR]
    seatk = iw[O_HC + HC_SEATK]
    roundk = iw[O_HC + HC_ROUNDK]
    fan_fu = iw[O_HC + HC_SYSTEM] == C.SYSTEM_FAN_FU
    selfd = iw[O_HC + HC_WINBY] == C.WIN_SELF_DRAW
    pairk = -1
    fu = 0
    for g in range(ng):
        t = iw[O_GT + g]
        b = iw[O_GB + g]
        if t == G_PUNG:
            npung += 1
            if b >= C.WHITE:
                ndrag += 1
            if b == seatk:
                seatp = 1
            if b == roundk:
                roundp = 1
            if fan_fu:
                fu += _pung_fu(rules, b, True, False)
        elif t == G_CHOW:
            nchow += 1
        else:
            pairk = b
    fp = 1 - npair
    jf = (wl - 2 * fp) // 3
    nofree = jf == 0 and fp == 0
    mask = iw[O_HC + HC_MASK]
    k = iw[O_HC + HC_KWIN]
    if k >= 0:
        # natural winning tile in a natural group
        for g in range(ng):
            t = iw[O_GT + g]
            b = iw[O_GB + g]
            if t == G_CHOW:
                if b <= k <= b + 2:
                    hw = not (iw[O_NAT0 + b] >= 1 and iw[O_NAT0 + b + 1] >= 1
                              and iw[O_NAT0 + b + 2] >= 1)
                    if nofree:
                        _consider(rules, iw, mask, npung, nchow, ndrag, seatp, roundp, pairk,
                                  fu, _chow_shape(b, k - b), k, False, hw)
                    else:
                        _free(rules, iw, jf, fp, mask, npung, nchow, ndrag, seatp,
                              roundp, pairk, fu, _chow_shape(b, k - b), k, False, hw)
            elif b == k:
                if t == G_PUNG:
                    f2 = fu
                    if fan_fu and not selfd:
                        f2 = fu - _pung_fu(rules, k, True, False) + _pung_fu(rules, k, False, False)
                    if nofree:
                        _consider(rules, iw, mask, npung, nchow, ndrag, seatp, roundp, pairk,
                                  f2, SH_DUAL, k, False, iw[O_NAT0 + k] < 3)
                    else:
                        _free(rules, iw, jf, fp, mask, npung, nchow, ndrag, seatp,
                              roundp, pairk, f2, SH_DUAL, k, False, iw[O_NAT0 + k] < 3)
                else:
                    hw = iw[O_NAT0 + k] < 2
                    if nofree:
                        _consider(rules, iw, mask, npung, nchow, ndrag, seatp, roundp, pairk,
                                  fu, SH_SINGLE, k, hw, hw)
                    else:
                        _free(rules, iw, jf, fp, mask, npung, nchow, ndrag, seatp,
                              roundp, pairk, fu, SH_SINGLE, k, hw, hw)
        # natural winning tile in a re-identified free group
        if jf >= 1 or fp == 1:
            _convert_host(rules, iw, jf, fp, mask, npung, nchow, ndrag,
                          seatp, roundp, pairk, fu, k, True, 0, -1, False, False)
        return
    # wild winning tile in a natural-group slot of kind j
    for g in range(ng):
        t = iw[O_GT + g]
        b = iw[O_GB + g]
        n_slots = 3 if t == G_CHOW else 1
        for pos in range(n_slots):
            j = b + pos
            if t == G_CHOW:
                sh = _chow_shape(b, pos)
            elif t == G_PUNG:
                sh = SH_DUAL
            else:
                sh = SH_SINGLE
            f2 = fu
            if t == G_PUNG and fan_fu and not selfd:
                f2 = fu - _pung_fu(rules, j, True, False) + _pung_fu(rules, j, False, False)
            wp = sh == SH_SINGLE
            # slots of kind j among the natural groups
            sj = 0
            for g2 in range(ng):
                t2 = iw[O_GT + g2]
                b2 = iw[O_GB + g2]
                if t2 == G_CHOW:
                    if b2 <= j <= b2 + 2:
                        sj += 1
                elif b2 == j:
                    sj += 3 if t2 == G_PUNG else 2
            if sj > iw[O_NAT0 + j]:
                _free(rules, iw, jf, fp, mask, npung, nchow, ndrag, seatp,
                      roundp, pairk, f2, sh, j, wp, True)
            elif jf >= 1 or fp == 1:
                _convert_host(rules, iw, jf, fp, mask, npung, nchow,
                              ndrag, seatp, roundp, pairk, f2, j, False, sh, j, wp, True)
    # wild winning tile in a free meld
    if jf >= 1:
        ncls = iw[O_HC + HC_NCLS]
        for c in range(ncls):
            o = c * CLS_W
            m2 = mask | iw[O_CLS + o + CF_SUIT]
            if iw[O_CLS + o + CF_TYPE] == G_PUNG:
                f2 = fu + (iw[O_CLS + o + CF_FU_C] if selfd else iw[O_CLS + o + CF_FU_E])
                _free(rules, iw, jf - 1, fp, m2, npung + 1, nchow,
                      ndrag + iw[O_CLS + o + CF_DRAG], seatp | iw[O_CLS + o + CF_SEAT],
                      roundp | iw[O_CLS + o + CF_ROUND],
                      pairk, f2, SH_DUAL, -1, False, True)
            else:
                for sh in (SH_EDGE, SH_CLOSED, SH_TWO):
                    _free(rules, iw, jf - 1, fp, m2, npung, nchow + 1, ndrag,
                          seatp, roundp, pairk, fu, sh, -1, False, True)
    # wild winning tile in the free pair
    if fp == 1:
        for pc in range(iw[O_HC + HC_NPCLS]):
            _free(rules, iw, jf, 0, mask | iw[O_HC + HC_PCLS + pc], npung, nchow, ndrag,
                  seatp, roundp, -1, fu, SH_SINGLE, -1, True, True)


@njit(cache=True, inline="always", error_model="numpy")
def _options(iw, i, wl, npair, nmeld, n_meld_slots, pair_slots, minopt):
    """Bit mask of the group options at the lowest uncovered kind i that fit
    the wilds left (bit 0 pair i, 1 pung i, 2 chow i.., 3 chow (i-1).., 4 chow
    (i-2)..), only options >= minopt (dedupe of groups picked at one kind)."""
    m = 0
    n = iw[O_NAT + i]
    if minopt <= 0 and npair < pair_slots and 2 - min(n, 2) <= wl:
        m |= 1
    if nmeld < n_meld_slots:
        if minopt <= 1 and 3 - min(n, 3) <= wl:
            m |= 2
        if i < C.HONOR0:
            r = i % 9
            miss1 = 1 if (r > 7 or iw[O_NAT + i + 1] == 0) else 0
            miss2 = 1 if (r > 6 or iw[O_NAT + i + 2] == 0) else 0
            if minopt <= 2 and r <= 6 and miss1 + miss2 <= wl:
                m |= 4
            if minopt <= 3 and 1 <= r <= 7 and 1 + miss1 <= wl:
                m |= 8
            if minopt <= 4 and r >= 2 and wl >= 2:
                m |= 16
    return m


@nrt_free(error_model="numpy")
def _search(rules, iw, w, n_meld_slots, pair_slots):
    """Depth-first cover of the natural tiles iw[O_NAT:] (modified during
    the search, restored on return) by groups with ``w`` wilds: n_meld_slots
    melds and pair_slots (0/1) pairs. Evaluates every complete cover
    (``_eval_leaf``) and returns their number. Level d keeps its kind in
    LVPOS, its options still to try in LVOPT (bit mask) and the option taken
    in LVMIN; the group it placed is GT/GB/GC (type, base kind, naturals
    used: a count, or a slot bit mask for a chow) and GW (wilds used)."""
    leaves = 0
    d = 0
    npair = 0
    nmeld = 0
    wl = w
    i0 = 0
    while i0 < C.N_PLAY and iw[O_NAT + i0] == 0:
        i0 += 1
    iw[O_LVPOS + 0] = i0
    if i0 < C.N_PLAY:
        iw[O_LVOPT + 0] = _options(iw, i0, wl, 0, 0, n_meld_slots, pair_slots, 0)
    while d >= 0:
        i = iw[O_LVPOS + d]
        if i >= C.N_PLAY:
            if wl == 3 * (n_meld_slots - nmeld) + 2 * (pair_slots - npair):
                leaves += 1
                _eval_leaf(rules, iw, d, npair, wl)
        else:
            m = iw[O_LVOPT + d]
            if m != 0:
                opt = 0
                while (m >> opt) & 1 == 0:
                    opt += 1
                iw[O_LVOPT + d] = m & (m - 1)
                iw[O_LVMIN + d] = opt
                if opt == 0:
                    a = min(iw[O_NAT + i], 2)
                    need = 2 - a
                    iw[O_NAT + i] -= a
                    npair += 1
                    iw[O_GT + d] = G_PAIR
                    iw[O_GB + d] = i
                    iw[O_GC + d] = a
                elif opt == 1:
                    a = min(iw[O_NAT + i], 3)
                    need = 3 - a
                    iw[O_NAT + i] -= a
                    nmeld += 1
                    iw[O_GT + d] = G_PUNG
                    iw[O_GB + d] = i
                    iw[O_GC + d] = a
                else:
                    b = i + 2 - opt
                    used = 0
                    need = 0
                    for s in range(3):
                        if iw[O_NAT + b + s] > 0:
                            used |= 1 << s
                            iw[O_NAT + b + s] -= 1
                        else:
                            need += 1
                    nmeld += 1
                    iw[O_GT + d] = G_CHOW
                    iw[O_GB + d] = b
                    iw[O_GC + d] = used
                wl -= need
                iw[O_GW + d] = need
                i1 = i
                while i1 < C.N_PLAY and iw[O_NAT + i1] == 0:
                    i1 += 1
                d += 1
                iw[O_LVPOS + d] = i1
                if i1 < C.N_PLAY:
                    iw[O_LVOPT + d] = _options(iw, i1, wl, npair, nmeld, n_meld_slots,
                                               pair_slots, opt if i1 == i else 0)
                continue
        # pop: undo the group of the level above
        d -= 1
        if d >= 0:
            t = iw[O_GT + d]
            if t == G_CHOW:
                for s in range(3):
                    if iw[O_GC + d] & (1 << s):
                        iw[O_NAT + iw[O_GB + d] + s] += 1
                nmeld -= 1
            else:
                iw[O_NAT + iw[O_GB + d]] += iw[O_GC + d]
                if t == G_PAIR:
                    npair -= 1
                else:
                    nmeld -= 1
            wl += iw[O_GW + d]
    return leaves


@njit(cache=True, inline="always", error_model="numpy")
def _melds_only(nat, w, tables):
    """True when the natural counts plus w wilds split into melds only (no pair)."""
    if w < 0:
        return False
    sn = tables[0]
    hn = tables[1]
    need = (np.int64(sn[suit_index(nat, C.MAN0), 0]) + np.int64(sn[suit_index(nat, C.PIN0), 0])
            + np.int64(sn[suit_index(nat, C.SOU0), 0]) + np.int64(hn[honor_index(nat), 0]))
    x = w - need
    return x >= 0 and x % 3 == 0


@njit(cache=True, inline="always", error_model="numpy")
def _nat13(iw, win_tile, win_wild):
    """Natural counts of the 13-tile hand (before the winning tile) into O_TMP."""
    for k in range(C.N_PLAY):
        iw[O_TMP + k] = iw[O_NAT0 + k]
    if not win_wild:
        iw[O_TMP + win_tile] -= 1


@nrt_free(error_model="numpy")
def _wait_info(iw, hand, indicator, wa, wb, fm, w13, tables):
    """Size of the 13-tile wait set (capped at 3) and its first two kinds,
    for the natural counts in O_TMP and w13 wilds (RULES.md section 10: wild
    kinds and kinds with 4 copies in hand, melds or the indicator skipped).

    Same set as ``hand.wait_mask`` (tests/test_score_diff.py checks it), but
    stops at the third waiting kind, and without wilds tries only kinds next
    to a natural tile (a tile joining no wild must share a group with one).
    A kind y completes the hand when, with the per-group need tables
    (``nbsim.tables``: wilds needed for melds only / melds + the pair),
    w13 - (needs of the other groups + y's group's need + the cheapest pair
    move) is a non-negative multiple of 3."""
    i0 = suit_index(iw, O_TMP + C.MAN0)
    i1 = suit_index(iw, O_TMP + C.PIN0)
    i2 = suit_index(iw, O_TMP + C.SOU0)
    i3 = honor_index(iw[O_TMP:O_TMP + 34])
    needs = group_needs(i0, i1, i2, i3, tables)
    sn = tables[0]
    hn = tables[1]
    n = 0
    k0 = -1
    k1 = -1
    for y in range(C.N_PLAY):
        if _is_wild(y, wa, wb, fm):
            continue
        if hand[y] + iw[O_MCNT + y] + (1 if indicator == y else 0) >= 4:
            continue
        if y < C.HONOR0:
            g = y // 9
            r = y - 9 * g
            if w13 == 0:
                near = False
                for dr in range(-2, 3):
                    if 0 <= r + dr <= 8 and iw[O_TMP + y + dr] > 0:
                        near = True
                if not near:
                    continue
            j = i0 if g == 0 else (i1 if g == 1 else i2)
        else:
            if w13 == 0 and iw[O_TMP + y] == 0:
                continue
            g = 3
            r = y - C.HONOR0
            j = i3
        step = 1
        for _ in range(r):
            step *= 5
        if completes_with_step(g, j + step, w13, needs, sn, hn):
            if n == 0:
                k0 = y
            elif n == 1:
                k1 = y
            n += 1
            if n == 3:
                break
    return n, k0, k1


# ---------------------------------------------------------------- validation
@njit(cache=True, inline="always", error_model="numpy")
def _wild_set(rules, indicator):
    """Wild kinds of an indicator as (kind a, kind b, flower bit mask, wild
    tiles in play): RULES.md section 3, the same sets as ``wilds.wild_mask``
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


@njit(cache=True, inline="always", error_model="numpy")
def _is_wild(k, wa, wb, fm):
    if k >= C.FLOWER0:
        return ((fm >> (k - C.FLOWER0)) & 1) != 0
    return k == wa or k == wb


@njit(cache=True, inline="always", error_model="numpy")
def _validate(rules, hand, melds, n_melds, flowers, win_tile, win_by, ctx, seat, round_wind,
              indicator, discarder, fed, fed_by_winner, kong_from, liable, iw):
    """Check the input (RULES.md section 10 and the tile counts). Returns
    (E_* code, wild tiles in play, wild kind a, wild kind b, wild flower
    bits; see ``_wild_set``) and fills the meld tile counts
    iw[O_MCNT:O_MCNT + 34]."""
    if win_by < 0 or win_by > 2 or ctx < 0 or ctx > 15:
        return C.E_BAD_ARG, 0, -1, -1, 0
    if seat < 0 or seat > 3 or round_wind < 0 or round_wind > 3:
        return C.E_BAD_SEAT, 0, -1, -1, 0
    if n_melds < 0 or n_melds > C.MAX_MELDS:
        return C.E_BAD_MELD, 0, -1, -1, 0
    if win_tile < 0 or win_tile >= C.N_KINDS:
        return C.E_BAD_ARG, 0, -1, -1, 0
    if rules[C.R_WILDS] == C.WILDS_NONE:
        if indicator != -1:
            return C.E_INDICATOR_NO_WILDS, 0, -1, -1, 0
    else:
        if indicator == -1:
            return C.E_NO_INDICATOR, 0, -1, -1, 0
        if indicator < 0 or indicator >= C.N_KINDS:
            return C.E_BAD_ARG, 0, -1, -1, 0
    wa, wb, fm, n_in_play = _wild_set(rules, indicator)
    for k in range(C.N_PLAY):
        iw[O_MCNT + k] = 0
    n_claimed = 0
    has_kong = False
    for m in range(n_melds):
        t = np.int64(melds[m, C.MELD_TYPE])
        kk = np.int64(melds[m, C.MELD_KIND])
        if t < 0 or t > 3 or kk < 0 or kk >= C.N_PLAY:
            return C.E_BAD_MELD, 0, -1, -1, 0
        if t == C.MELD_CHOW:
            if kk >= C.HONOR0 or kk % 9 > 6:
                return C.E_BAD_MELD, 0, -1, -1, 0
            if rules[C.R_ALLOW_CHOW] == 0:
                return C.E_CHOW_NOT_ALLOWED, 0, -1, -1, 0
            for s in range(3):
                if _is_wild(kk + s, wa, wb, fm):
                    return C.E_WILD_IN_MELD, 0, -1, -1, 0
                iw[O_MCNT + kk + s] += 1
        else:
            if _is_wild(kk, wa, wb, fm):
                return C.E_WILD_IN_MELD, 0, -1, -1, 0
            iw[O_MCNT + kk] += 3 if t == C.MELD_PUNG else 4
            if t == C.MELD_KONG:
                has_kong = True
        if t != C.MELD_CKONG:
            n_claimed += 1
    total = 0
    five = False
    for k in range(C.N_PLAY):
        n = np.int64(hand[k])
        if n < 0 or n > 4:
            return C.E_BAD_ARG, 0, -1, -1, 0
        total += n
        if n + iw[O_MCNT + k] > 2:
            if win_tile == k:
                n += 1
            if indicator == k:
                n += 1
            if n + iw[O_MCNT + k] > 4:
                five = True
    flower_in_hand = win_tile >= C.FLOWER0 and not _is_wild(win_tile, wa, wb, fm)
    bad_flower = False
    for f in range(C.N_FLOWERS):
        k = C.FLOWER0 + f
        n = np.int64(hand[k])
        fl = np.int64(flowers[f])
        if n < 0 or n > 1 or fl < 0 or fl > 1:
            return C.E_BAD_ARG, 0, -1, -1, 0
        total += n
        if n > 0 and not _is_wild(k, wa, wb, fm):
            flower_in_hand = True
        if fl == 1 and (_is_wild(k, wa, wb, fm) or indicator == k):
            bad_flower = True
        if n + fl + (1 if win_tile == k else 0) + (1 if indicator == k else 0) > 1:
            five = True
    if total + 3 * n_melds != 13:
        return C.E_TILE_COUNT, 0, -1, -1, 0
    if flower_in_hand:
        return C.E_FLOWER_IN_HAND, 0, -1, -1, 0
    if bad_flower:
        return C.E_BAD_FLOWER, 0, -1, -1, 0
    if five:
        return C.E_FIVE_COPIES, 0, -1, -1, 0
    if win_by == C.WIN_ROBBING_KONG and _is_wild(win_tile, wa, wb, fm):
        return C.E_ROB_WILD, 0, -1, -1, 0
    if (ctx & C.CTX_AFTER_KONG) and win_by != C.WIN_SELF_DRAW:
        return C.E_BAD_AFTER_KONG, 0, -1, -1, 0
    if ctx & C.CTX_HEAVENLY:
        if seat != 0 or win_by != C.WIN_SELF_DRAW or n_melds != 0:
            return C.E_BAD_HEAVENLY, 0, -1, -1, 0
    if ctx & C.CTX_EARTHLY:
        if seat == 0 or n_melds != 0:
            return C.E_BAD_EARTHLY, 0, -1, -1, 0
        if rules[C.R_EARTHLY_RULE] == C.EARTHLY_DEALER_FIRST_DISCARD:
            if win_by != C.WIN_DISCARD or (discarder != -1 and discarder != 0):
                return C.E_BAD_EARTHLY, 0, -1, -1, 0
        elif win_by != C.WIN_SELF_DRAW:
            return C.E_BAD_EARTHLY, 0, -1, -1, 0
    if discarder != -1:
        if win_by == C.WIN_SELF_DRAW or discarder < 0 or discarder > 3 or discarder == seat:
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
    if liable != -1:
        if (liable < 0 or liable > 3 or liable == seat
                or rules[C.R_PAYMENT_RULE] != C.PAY_NINGHAI
                or rules[C.R_THREE_MELDS_LIABILITY] == 0):
            return C.E_BAD_LIABLE, 0, -1, -1, 0
    return C.OK, n_in_play, wa, wb, fm


# ---------------------------------------------------------------- payments
@njit(cache=True, inline="always", error_model="numpy")
def _payments(rules, T, seat, win_by, ctx, discarder, fed, fed_by_winner, kong_from, liable, res):
    """Net payments per seat into res[RES_PAY:RES_PAY+4] (RULES.md sections 7,
    8 and 10). T: tai + base_points (Ningbo) or the silver (Ninghai)."""
    s0 = 0
    s1 = 0
    s2 = 0
    s3 = 0
    rule = rules[C.R_PAYMENT_RULE]
    bdp = rules[C.R_BOUND_DISCARDER_PAYS]
    D = kong_from if (ctx & C.CTX_AFTER_KONG) else -1
    for x in range(4):
        if x == seat:
            continue
        bound = fed[x] >= 3 or fed_by_winner[x] >= 3
        mutual = fed[x] >= 3 and fed_by_winner[x] >= 3
        sh = 0
        if rule == C.PAY_NINGHAI:
            if liable >= 0:
                sh = 3 * T if x == liable else 0
            else:
                sh = T
        elif win_by == C.WIN_ROBBING_KONG:
            sh = 5 * T if x == discarder else 0
        elif rule == C.PAY_NINGBO:
            if win_by == C.WIN_SELF_DRAW:
                any_special = D >= 0
                for y in range(4):
                    if y != seat and (fed[y] >= 3 or fed_by_winner[y] >= 3):
                        any_special = True
                if not any_special:
                    sh = T
                else:
                    if bound:
                        sh = 10 * T if mutual else 5 * T
                    if x == D:
                        sh = max(sh, 10 * T if fed[x] >= 3 else 5 * T)
            else:
                if x == discarder:
                    if bound:
                        sh = bdp * T + (2 * T if mutual else 0)
                    else:
                        sh = 2 * T
                elif bound:
                    sh = 4 * T if mutual else 2 * T
        else:  # ningbo_5x
            if win_by == C.WIN_SELF_DRAW:
                sh = 5 * T if (bound or x == D) else T
            else:
                if x == discarder:
                    sh = bdp * T if bound else 2 * T
                elif bound:
                    sh = 2 * T
        if x == 0:
            s0 = sh
        elif x == 1:
            s1 = sh
        elif x == 2:
            s2 = sh
        else:
            s3 = sh
    total = s0 + s1 + s2 + s3
    cap = rules[C.R_CAP]
    if rule != C.PAY_NINGHAI and cap > 0 and total > cap:
        # scale each share, floor, and hand out the rest one by one to the
        # payers in turn order after the winner (RULES.md section 10)
        o0 = s0
        o1 = s1
        o2 = s2
        o3 = s3
        s0 = s0 * cap // total
        s1 = s1 * cap // total
        s2 = s2 * cap // total
        s3 = s3 * cap // total
        rem = cap - (s0 + s1 + s2 + s3)
        x = seat
        while rem > 0:
            x = (x + 1) % 4
            if x == 0 and o0 > 0:
                s0 += 1
                rem -= 1
            elif x == 1 and o1 > 0:
                s1 += 1
                rem -= 1
            elif x == 2 and o2 > 0:
                s2 += 1
                rem -= 1
            elif x == 3 and o3 > 0:
                s3 += 1
                rem -= 1
        total = cap
    res[C.RES_PAY + 0] = -s0
    res[C.RES_PAY + 1] = -s1
    res[C.RES_PAY + 2] = -s2
    res[C.RES_PAY + 3] = -s3
    res[C.RES_PAY + seat] = total


# ---------------------------------------------------------------- main kernel
@nrt_free(error_model="numpy")
def score_one(rules, tables, hand, melds, n_melds, flowers, win_tile, win_by, ctx, seat,
              round_wind, indicator, discarder, fed, fed_by_winner, kong_from, liable, res,
              iw):
    """``score_win`` with a caller-provided scratch ``iw`` (``new_scratch()``,
    int64[IW_LEN]); same arguments and result otherwise."""
    for i in range(C.RES_LEN):
        res[i] = 0
    err, n_in_play, wa, wb, fm = _validate(rules, hand, melds, n_melds, flowers, win_tile,
                                           win_by, ctx, seat, round_wind, indicator, discarder,
                                           fed, fed_by_winner, kong_from, liable, iw)
    if err != C.OK:
        res[C.RES_ERROR] = err
        return err
    system = rules[C.R_SYSTEM]
    selfd = win_by == C.WIN_SELF_DRAW
    heav = (ctx & C.CTX_HEAVENLY) != 0
    seatk = C.EAST + seat
    roundk = C.EAST + round_wind
    # naturals of the 14 concealed tiles (nat0), of the 13-tile hand (tmp),
    # wilds (RULES.md section 3) and the suits present
    win_wild = _is_wild(win_tile, wa, wb, fm)
    w = 0
    mask = 0
    for k in range(C.N_PLAY):
        n = np.int64(hand[k])
        if _is_wild(k, wa, wb, fm):
            w += n
            n = 0
        iw[O_NAT0 + k] = n
        iw[O_NAT + k] = n
        if n > 0:
            mask |= _suit_bit(k)
    for k in range(C.FLOWER0, C.N_KINDS):
        w += np.int64(hand[k])
    w13 = w
    if win_wild:
        w += 1
    else:
        iw[O_NAT0 + win_tile] += 1
        iw[O_NAT + win_tile] += 1
        mask |= _suit_bit(win_tile)
    res[C.RES_WILDS] = w
    # declared melds
    mp = 0
    mc = 0
    md = 0
    ms = 0
    mr = 0
    fu_const = 0
    for m in range(n_melds):
        t = np.int64(melds[m, C.MELD_TYPE])
        kk = np.int64(melds[m, C.MELD_KIND])
        mask |= _suit_bit(kk)
        if t == C.MELD_CHOW:
            mc += 1
        else:
            mp += 1
            if kk >= C.WHITE:
                md += 1
            if kk == seatk:
                ms = 1
            if kk == roundk:
                mr = 1
            if system == C.SYSTEM_FAN_FU:
                fu_const += _pung_fu(rules, kk, t == C.MELD_CKONG, t != C.MELD_PUNG)
    # hand-constant items: flowers set aside (RULES.md sections 6 and 8), ...
    for t in range(C.N_TAI):
        iw[O_HI + t] = 0
    nfl = 0
    grp_n0 = 0
    grp_n1 = 0
    seat_n0 = 0
    seat_n1 = 0
    for f in range(C.N_FLOWERS):
        if flowers[f]:
            nfl += 1
            sf = rules[C.R_SEAT_FLOWERS + seat * 8 + f] != 0
            if f < 4:
                grp_n0 += 1
                if sf:
                    seat_n0 += 1
            else:
                grp_n1 += 1
                if sf:
                    seat_n1 += 1
    fan_const = 0
    holds_all3 = w == 3 and n_in_play == 3
    single = rules[C.R_WAIT_NEEDS_SINGLE_KIND] != 0
    # wild single wait (抛搭): the 13 tiles less one wild are complete melds
    wsw = False
    if w13 >= 1 and not heav:
        if _has(rules, C.T_WILD_SINGLE_WAIT) or (win_by == C.WIN_ROBBING_KONG and
                                                  rules[C.R_WILD_SINGLE_CAN_ROB] == 0):
            _nat13(iw, win_tile, win_wild)
            wsw = _melds_only(iw[O_TMP:O_TMP + 34], w13 - 1, tables)
    if system == C.SYSTEM_TAI:
        if nfl == 8 and _has(rules, C.T_ALL_FLOWERS):
            iw[O_HI + C.T_ALL_FLOWERS] = _val(rules, C.T_ALL_FLOWERS)
        else:
            n_sets = 0
            n_seat = 0
            if grp_n0 == 4 and _has(rules, C.T_FLOWER_SET):
                n_sets += 1
            else:
                n_seat += seat_n0
            if grp_n1 == 4 and _has(rules, C.T_FLOWER_SET):
                n_sets += 1
            else:
                n_seat += seat_n1
            iw[O_HI + C.T_FLOWER_SET] = n_sets * _val(rules, C.T_FLOWER_SET)
            iw[O_HI + C.T_SEAT_FLOWER] = n_seat * _val(rules, C.T_SEAT_FLOWER)
        if selfd:
            iw[O_HI + C.T_SELF_DRAWN] = _val(rules, C.T_SELF_DRAWN)
            if ctx & C.CTX_AFTER_KONG:
                iw[O_HI + C.T_OUT_WITH_REPLACEMENT] = _val(rules, C.T_OUT_WITH_REPLACEMENT)
            if ctx & C.CTX_LAST_TILE:
                iw[O_HI + C.T_LAST_TILE_DRAW] = _val(rules, C.T_LAST_TILE_DRAW)
            if holds_all3:
                iw[O_HI + C.T_THREE_WILDS] = _val(rules, C.T_THREE_WILDS)
            if win_wild and not heav:
                iw[O_HI + C.T_WILD_DRAWN] = _val(rules, C.T_WILD_DRAWN)
        if w == 0:
            iw[O_HI + C.T_NO_WILDS] = _val(rules, C.T_NO_WILDS)
        if win_by == C.WIN_ROBBING_KONG:
            iw[O_HI + C.T_ROBBING_THE_KONG] = _val(rules, C.T_ROBBING_THE_KONG)
        if heav:
            iw[O_HI + C.T_HEAVENLY_HAND] = _val(rules, C.T_HEAVENLY_HAND)
        if ctx & C.CTX_EARTHLY:
            iw[O_HI + C.T_EARTHLY_HAND] = _val(rules, C.T_EARTHLY_HAND)
        if wsw:
            iw[O_HI + C.T_WILD_SINGLE_WAIT] = _val(rules, C.T_WILD_SINGLE_WAIT)
    else:
        fan_const += (rules[C.R_FAN + C.F_FLOWER_SET] if grp_n0 == 4
                      else seat_n0 * rules[C.R_FAN + C.F_SEAT_FLOWER])
        fan_const += (rules[C.R_FAN + C.F_FLOWER_SET] if grp_n1 == 4
                      else seat_n1 * rules[C.R_FAN + C.F_SEAT_FLOWER])
        fu_const += nfl * rules[C.R_FU + C.FU_FLOWER]
        if selfd:
            fu_const += rules[C.R_FU + C.FU_SELF_DRAWN]
    # wait set of the 13-tile hand (RULES.md section 10)
    wait_n = 0
    wk0 = -1
    wk1 = -1
    if single and not heav:
        _nat13(iw, win_tile, win_wild)
        wait_n, wk0, wk1 = _wait_info(iw, hand, indicator, wa, wb, fm, w13, tables)
    const_tai = 0
    for t in range(C.N_TAI):
        const_tai += iw[O_HI + t]
    iw[O_HC + HC_SEAT] = seat
    iw[O_HC + HC_ROUND] = round_wind
    iw[O_HC + HC_WINBY] = win_by
    iw[O_HC + HC_KWIN] = -1 if win_wild else win_tile
    iw[O_HC + HC_NMELDS] = n_melds
    iw[O_HC + HC_CONST_TAI] = const_tai - iw[O_HI + C.T_THREE_WILDS]
    iw[O_HC + HC_THREE] = iw[O_HI + C.T_THREE_WILDS]
    iw[O_HC + HC_MASK] = mask
    iw[O_HC + HC_MP] = mp
    iw[O_HC + HC_MC] = mc
    iw[O_HC + HC_MD] = md
    iw[O_HC + HC_MS] = ms
    iw[O_HC + HC_MR] = mr
    iw[O_HC + HC_WAIT_N] = wait_n
    iw[O_HC + HC_WAIT_K0] = wk0
    iw[O_HC + HC_WAIT_K1] = wk1
    iw[O_HC + HC_HEAV] = 1 if heav else 0
    iw[O_HC + HC_SINGLE] = 1 if single else 0
    iw[O_HC + HC_FU_CONST] = fu_const
    iw[O_HC + HC_FAN_CONST] = fan_const
    iw[O_HC + HC_SYSTEM] = system
    iw[O_HC + HC_SEATK] = seatk
    iw[O_HC + HC_ROUNDK] = roundk
    # free group classes (see the module doc)
    ncls = 0
    npcls = 0
    if w >= 2:
        # suit of the suited classes: a suit the hand already shows (all
        # leave the suit bits as they are), else (honors only) any suit
        sb_rep = 0
        for b in range(2, -1, -1):
            if mask & (1 << b):
                sb_rep = 1 << b
        if sb_rep == 0:
            sb_rep = 1
        ft_c = max(rules[C.R_FU + C.FU_CONCEALED_PUNG_TERMINAL],
                   rules[C.R_FU + C.FU_CONCEALED_PUNG_SIMPLE])
        ft_e = max(rules[C.R_FU + C.FU_EXPOSED_PUNG_TERMINAL],
                   rules[C.R_FU + C.FU_EXPOSED_PUNG_SIMPLE])
        for c in range(5):
            # 0 dragon pung, 1 seat-wind pung (+ round when equal), 2 round-wind
            # pung, 3 suited pung, 4 suited chow
            if c == 2 and seatk == roundk:
                continue
            o = O_CLS + ncls * CLS_W
            iw[o + CF_TYPE] = G_CHOW if c == 4 else G_PUNG
            iw[o + CF_SUIT] = sb_rep if c >= 3 else 8
            iw[o + CF_DRAG] = 1 if c == 0 else 0
            iw[o + CF_SEAT] = 1 if c == 1 else 0
            iw[o + CF_ROUND] = 1 if (c == 2 or (c == 1 and seatk == roundk)) else 0
            if c < 3:
                iw[o + CF_FU_C] = rules[C.R_FU + C.FU_CONCEALED_PUNG_TERMINAL]
                iw[o + CF_FU_E] = rules[C.R_FU + C.FU_EXPOSED_PUNG_TERMINAL]
            elif c == 3:
                iw[o + CF_FU_C] = ft_c
                iw[o + CF_FU_E] = ft_e
            else:
                iw[o + CF_FU_C] = 0
                iw[o + CF_FU_E] = 0
            ncls += 1
        # pair classes: suited, or an honor that is neither the seat nor the round wind
        iw[O_HC + HC_PCLS + 0] = sb_rep
        iw[O_HC + HC_PCLS + 1] = 8
        npcls = 2
    iw[O_HC + HC_NPCLS] = npcls
    iw[O_HC + HC_NCLS] = ncls
    for i in range(ST_LEN):
        iw[O_ST + i] = 0
    # every reading; with several wilds a table check first avoids a long
    # search on a hand that is not complete
    complete = True
    if w >= 2:
        complete = is_complete(iw[O_NAT0:O_NAT0 + 34], w, tables)
    if complete:
        _search(rules, iw, w, 4 - n_melds, 1)
    if not complete or iw[O_ST + ST_HAVE] == 0:
        res[C.RES_WHY] = C.WHY_NOT_COMPLETE
        return C.OK
    res[C.RES_COMPLETE] = 1
    if system == C.SYSTEM_TAI:
        res[C.RES_TAI] = iw[O_ST + ST_KEY1]
        res[C.RES_TAI_FOR_MIN] = iw[O_ST + ST_TAI_MIN]
        _fill_desc(rules, iw, O_BI, iw[O_ST + ST_DESC])
        for t in range(C.N_TAI):
            res[C.RES_ITEMS + t] = iw[O_BI + t]
    else:
        fan = iw[O_ST + ST_FAN]
        fu = iw[O_ST + ST_FU]
        res[C.RES_FAN] = fan
        res[C.RES_FU] = fu
        for s in range(C.N_SCHEMES):
            res[C.RES_POINTS + s] = scheme_points(rules, s, fan, fu)
        sch = rules[C.R_POINTS_SCHEME]
        res[C.RES_SILVER] = silver(rules, sch, res[C.RES_POINTS + sch])
    # legal-win decision (RULES.md sections 5 and 10)
    why = C.WHY_LEGAL
    if rules[C.R_SELF_DRAW_ONLY] and win_by == C.WIN_DISCARD:
        why = C.WHY_SELF_DRAW_ONLY
    elif win_by == C.WIN_ROBBING_KONG and rules[C.R_WILD_SINGLE_CAN_ROB] == 0 and wsw:
        why = C.WHY_WILD_SINGLE_NO_ROB
    elif rules[C.R_THREE_WILDS_SELF_DRAW_ONLY] and holds_all3 and not selfd:
        why = C.WHY_THREE_WILDS_SELF_DRAW
    elif iw[O_ST + ST_ANY_MIN] == 0:
        why = C.WHY_BELOW_MIN_TAI
    elif iw[O_ST + ST_ANY_MINPAT] == 0:
        why = C.WHY_PATTERN_NOT_ALLOWED
    elif iw[O_ST + ST_ANY_LEGAL] == 0:
        why = C.WHY_WILD_DISCARD_RULE
    res[C.RES_WHY] = why
    if why != C.WHY_LEGAL:
        return C.OK
    res[C.RES_WIN] = 1
    # payments (none when a discard/robbing win names no discarder)
    if win_by != C.WIN_SELF_DRAW and discarder < 0:
        return C.OK
    if system == C.SYSTEM_TAI:
        T = res[C.RES_TAI] + rules[C.R_BASE_POINTS]
    else:
        T = res[C.RES_SILVER]
    _payments(rules, T, seat, win_by, ctx, discarder, fed, fed_by_winner, kong_from, liable, res)
    return C.OK


@njit(cache=True, error_model="numpy")
def score_win(rules, tables, hand, melds, n_melds, flowers, win_tile, win_by, ctx, seat,
              round_wind, indicator, discarder, fed, fed_by_winner, kong_from, liable, res):
    """Score one winning situation (RULES.md sections 3, 5-8 and 10).

    Args:
        rules: int64[R_LEN] (``RuleSet.array``); tables: ``nbsim.tables.load_tables()``.
        hand: int8[42] the winner's concealed tiles BEFORE the winning tile,
            wilds counted at their own kind (a wild flower may be in hand).
        melds: int8[4, 3] rows (MELD_TYPE, MELD_KIND, MELD_FROM); n_melds rows used.
            Concealed kongs (MELD_CKONG) are declared melds; kongs count 3 tiles.
        flowers: int8[8], 1 for each flower set aside (1f..8f).
        win_tile: kind 0..41 (a flower only when it is wild).
        win_by: WIN_SELF_DRAW / WIN_DISCARD / WIN_ROBBING_KONG; ctx: CTX_* bits.
        seat, round_wind: 0..3 (E S W N; the dealer is E); indicator: kind or -1.
        discarder: the discarding / robbed seat or -1 (-1 on a discard or
            robbing win: no payments are computed, RES_PAY stays 0).
        fed: int8[4] melds the winner claimed from each seat's discards;
        fed_by_winner: int8[4] melds each seat claimed from the winner's discards.
        kong_from: seat whose discard the winner konged before the winning
            replacement draw, or -1. liable: Ninghai three-melds liable seat or -1.
        res: int64[RES_LEN], written (layout ``codes.RES_*``): complete, win,
            why (WHY_*), tai of the counted reading (three_wilds included) and
            without three_wilds, item tai (RES_ITEMS), Ninghai fan, fu, points
            per scheme and silver, net payments per seat (zero-sum; legal wins
            only), wilds among the 14 concealed tiles.
    Returns:
        E_* code (0 OK), also in res[RES_ERROR]; on an error nothing else in
        res is valid. Tai and points are in tai / points.
    """
    iw = np.zeros(IW_LEN, dtype=np.int64)
    return score_one(rules, tables, hand, melds, n_melds, flowers, win_tile, win_by, ctx, seat,
                     round_wind, indicator, discarder, fed, fed_by_winner, kong_from, liable, res,
                     iw)


@njit(cache=True, error_model="numpy")
def score_batch(rules, tables, hands, melds, n_melds, flowers, win_tile, win_by, ctx, seat,
                round_wind, indicator, discarder, fed, fed_by_winner, kong_from, liable, res):
    """``score_win`` over n situations, reusing one scratch.

    Shapes: hands int8[n, 42], melds int8[n, 4, 3], flowers int8[n, 8],
    fed / fed_by_winner int8[n, 4], res int64[n, RES_LEN]; every other
    argument an int array [n]. Returns the number of situations with an error.
    """
    iw = np.zeros(IW_LEN, dtype=np.int64)
    n_err = 0
    for i in range(hands.shape[0]):
        e = score_one(rules, tables, hands[i], melds[i], np.int64(n_melds[i]), flowers[i],
                      np.int64(win_tile[i]), np.int64(win_by[i]), np.int64(ctx[i]),
                      np.int64(seat[i]), np.int64(round_wind[i]), np.int64(indicator[i]),
                      np.int64(discarder[i]), fed[i], fed_by_winner[i], np.int64(kong_from[i]),
                      np.int64(liable[i]), res[i], iw)
        if e != C.OK:
            n_err += 1
    return n_err


@nrt_free(error_model="numpy")
def player_fu(rules, hand, melds, n_melds, flowers):
    """A Ninghai player's own fu (胡) for the settlement among non-winners
    (RULES.md section 8, 胡头; not modelled further here).

    Definition: the fu of its declared melds (exposed pung / exposed kong /
    concealed kong, terminal-or-honor or simple, per [scoring.fu]) + a
    concealed pung for each kind held 3 or more times among its concealed
    tiles (kinds 0..33 of ``hand``, int8[42]) + the flower fu for each flower
    set aside (``flowers`` int8[8]). Chows, pairs, self-draw and waits score
    nothing. Returns fu (int)."""
    fu = 0
    for m in range(n_melds):
        t = np.int64(melds[m, C.MELD_TYPE])
        if t == C.MELD_CHOW:
            continue
        fu += _pung_fu(rules, np.int64(melds[m, C.MELD_KIND]), t == C.MELD_CKONG, t != C.MELD_PUNG)
    for k in range(C.N_PLAY):
        if hand[k] >= 3:
            fu += _pung_fu(rules, k, True, False)
    for f in range(C.N_FLOWERS):
        if flowers[f]:
            fu += rules[C.R_FU + C.FU_FLOWER]
    return fu
