"""Payments of a legal win and Ninghai points (docs/rules.md §7, §8 and §10).

Kernels (``nrt_free`` or inlined, no allocation):

* ``payments(rules, T, seat, win_by, ctx, discarder, fed, fed_by_winner,
  kong_from, liable, res)``: net points per seat into res[RES_PAY:RES_PAY + 4].
* ``scheme_points(rules, scheme, fan, fu) -> int``: Ninghai points under one
  points scheme.
* ``silver(rules, scheme, points) -> int``: the silver a payer owes.
* ``pung_fu(rules, kind, concealed, kong) -> int``: Ninghai fu of one pung/kong;
  ``pung_fu_item(kind, concealed, kong) -> int``: its item of ``codes.FU_ITEMS``.
* ``player_fu(rules, hand, melds, n_melds, flowers) -> int``: a Ninghai
  player's own fu, for the settlement among non-winners.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free

FAN_FULL_CAP = 3    # docs/rules.md §8: at fan >= 3 the points are the scheme's cap


@njit(cache=True, inline="always")
def is_terminal(kind):
    """True for a terminal (rank 1 or 9) or honor kind (0..33)."""
    return kind >= C.HONOR0 or kind % 9 == 0 or kind % 9 == 8


@njit(cache=True, inline="always")
def pung_fu_item(kind, concealed, kong):
    """The Ninghai fu item (``codes.FU_ITEMS`` index 0..7) of a pung/kong of
    ``kind`` (docs/rules.md §8, docs/rules.md §8): exposed or concealed,
    pung or kong, terminal/honor or simple."""
    item = 0
    if kong:
        item += C.SET_FU_KONG
    if concealed:
        item += C.SET_FU_CONCEALED
    if not is_terminal(kind):
        item += C.SET_FU_SIMPLE
    return item


@njit(cache=True, inline="always")
def pung_fu(rules, kind, concealed, kong):
    """Ninghai fu of a pung/kong of ``kind`` (docs/rules.md §8, [scoring.fu]):
    the value of its item ``pung_fu_item``."""
    return rules[C.R_FU + pung_fu_item(kind, concealed, kong)]


@nrt_free(kernel_only=True)
def scheme_points(rules, scheme, fan, fu):
    """Ninghai points of one scheme (docs/rules.md §8 and §10): base B with
    fu: ceil10((B + fu) * 2**fan); without fu (tui_dao_ba): B * 2**fan; at
    fan >= 3 the scheme's cap; always at most the cap.

    rules: int64[R_LEN]; scheme: 0..N_SCHEMES - 1 (``codes.SCHEME_NAMES``);
    fan, fu: ints. Returns points (int)."""
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


@nrt_free
def silver(rules, scheme, points):
    """Silver for points under scheme (docs/rules.md §8): 1:1, or for the
    rounding schemes each hundred's remainder 0-20 -> 0, 30-60 -> 50,
    70-90 -> 100 when ``silver_rounding`` is on. Returns silver (int)."""
    if rules[C.R_SILVER_ROUNDING] and rules[C.R_SCHEME_SILVER_ROUND + scheme]:
        hundreds = (points // 100) * 100
        rest = points - hundreds
        if rest < 30:
            rest = 0
        elif rest < 70:
            rest = 50
        else:
            rest = 100
        return hundreds + rest
    return points


@nrt_free
def player_fu(rules, hand, melds, n_melds, flowers):
    """A Ninghai player's own fu (胡) for the settlement among non-winners
    (docs/rules.md §8, 胡头; not modelled further here).

    Definition: the fu of its declared melds (exposed pung / exposed kong /
    concealed kong, terminal-or-honor or simple, per [scoring.fu]) + a
    concealed pung for each kind held 3 or more times among its concealed
    tiles (kinds 0..33 of ``hand``, int8[42]) + the flower fu for each flower
    set aside (``flowers`` int8[8]). melds: int8[4, 3] rows (MELD_TYPE,
    MELD_KIND, MELD_FROM), n_melds used. Chows, pairs, self-draw and waits
    score nothing. Returns fu (int)."""
    fu = 0
    for m in range(n_melds):
        meld_type = np.int64(melds[m, C.MELD_TYPE])
        if meld_type == C.MELD_CHOW:
            continue
        fu += pung_fu(rules, np.int64(melds[m, C.MELD_KIND]), meld_type == C.MELD_CKONG,
                      meld_type != C.MELD_PUNG)
    for k in range(C.N_PLAY):
        if hand[k] >= 3:
            fu += pung_fu(rules, k, True, False)
    for f in range(C.N_FLOWERS):
        if flowers[f]:
            fu += rules[C.R_FU + C.FU_FLOWER]
    return fu


@njit(cache=True, inline="always")
def payments(rules, T, seat, win_by, ctx, discarder, fed, fed_by_winner, kong_from, liable, res):
    """Net payments per seat into res[RES_PAY:RES_PAY + 4] (docs/rules.md §7, §8 and §10), zero-sum.

    T: tai + base_points (Ningbo) or the silver (Ninghai), in points; seat:
    the winner 0..3; discarder: the discarding / robbed seat or -1; fed,
    fed_by_winner: int8[4] claimed melds (see ``score.score_win``);
    kong_from: seat whose discard the winner konged, or -1; liable: Ninghai
    three-melds liable seat or -1; res: int64[RES_LEN], written."""
    s0 = 0
    s1 = 0
    s2 = 0
    s3 = 0
    rule = rules[C.R_PAYMENT_RULE]
    bound_pays = rules[C.R_BOUND_DISCARDER_PAYS]
    kong_feeder = kong_from if (ctx & C.CTX_AFTER_KONG) else -1
    for x in range(4):
        if x == seat:
            continue
        bound = fed[x] >= 3 or fed_by_winner[x] >= 3
        mutual = fed[x] >= 3 and fed_by_winner[x] >= 3
        share = 0
        if rule == C.PAY_NINGHAI:
            share = T if liable < 0 else (3 * T if x == liable else 0)
        elif win_by == C.WIN_ROBBING_KONG:
            share = 5 * T if x == discarder else 0
        elif rule == C.PAY_NINGBO:
            if win_by == C.WIN_SELF_DRAW:
                any_special = kong_feeder >= 0
                for y in range(4):
                    if y != seat and (fed[y] >= 3 or fed_by_winner[y] >= 3):
                        any_special = True
                if not any_special:
                    share = T
                else:
                    if bound:
                        share = 10 * T if mutual else 5 * T
                    if x == kong_feeder:
                        share = max(share, 10 * T if fed[x] >= 3 else 5 * T)
            else:
                if x == discarder:
                    share = (bound_pays * T + (2 * T if mutual else 0)) if bound else 2 * T
                elif bound:
                    share = 4 * T if mutual else 2 * T
        else:  # ningbo_5x
            if win_by == C.WIN_SELF_DRAW:
                share = 5 * T if (bound or x == kong_feeder) else T
            else:
                if x == discarder:
                    share = bound_pays * T if bound else 2 * T
                elif bound:
                    share = 2 * T
        if x == 0:
            s0 = share
        elif x == 1:
            s1 = share
        elif x == 2:
            s2 = share
        else:
            s3 = share
    total = s0 + s1 + s2 + s3
    cap = rules[C.R_CAP]
    if rule != C.PAY_NINGHAI and cap > 0 and total > cap:
        # scale each share, floor, and hand out the rest one by one to the
        # payers in turn order after the winner (docs/rules.md §10)
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
