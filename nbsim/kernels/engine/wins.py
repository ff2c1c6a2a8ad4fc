"""Wins during play (Numba): whether a tile completes a hand, the scorer's
verdict on a win the engine built, the Ninghai three-melds liability and
the record of the win (docs/rules.md §5, §8).

Ninghai liability (``three_melds_liability``): a discarder who is not ready
(shanten >= 1 after the discard) is liable for the whole payment when the
winner on that discard shows 3 exposed melds of one suit (honors allowed)
and the discard is of that suit, or shows 3 exposed pungs/kongs and the
discard is a terminal or an honor.
"""
import numpy as np
from numba import types

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels.engine.state import (
    E_ENGINE_SCORE,
    O_ERROR,
    O_FU,
    TS_DISCARDER,
    TS_INDICATOR,
    TS_LIABLE,
    TS_OUTCOME,
    TS_ROUND_WIND,
    TS_WIN_CTX,
    TS_WIN_TILE,
    TS_WINNER,
)
from nbsim.kernels.entry import call
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import split_hand, suit_of
from nbsim.kernels.scoring import payments as PAYMENTS
from nbsim.kernels.scoring import score as S


@nrt_free(inline="always")
def complete_with(tables, wild, hand, nat, tile):
    """Would ``tile`` complete the concealed ``hand`` (int8[42], without the
    tile)? nat: int8[34] scratch."""
    w = split_hand(hand, wild, nat)
    if wild[tile]:
        w += 1
    else:
        nat[tile] += 1
    return H.is_complete(nat, w, tables)


@nrt_free(inline="always")
def update_may_win(tables, wild, hand, n_declared, nat, may_win, no_win, seat):
    """After ``seat`` discards: can any tile still complete its 3k+1 hand
    (``hand``, int8[42])? True when its shanten is 0 (ready), or when it
    holds a wild and three or more of a kind (then a wild may have to act as
    a fifth copy, which the shanten does not see). A filter only: wins are
    always checked exactly. Also forgets the seat's ``no_win`` marks (its
    hand changed)."""
    for k in range(2 * C.N_KINDS):
        no_win[seat, k] = False
    w = split_hand(hand, wild, nat)
    risky = False
    if w > 0:
        for k in range(C.N_PLAY):
            if nat[k] >= 3:
                risky = True
    may_win[seat] = risky or H.fit_shanten(nat, w, n_declared, tables) <= 0


@nrt_free(kernel_only=True)
def try_win(rules, tables, g, seat, tile, win_by, ctx, discarder, kong_from, liable, out):
    """Score ``seat`` winning on ``tile`` (the tile is NOT in its hand; call
    ``complete_with`` first). Returns True when the win is legal; the result
    is left in ``g.res``. A scorer error on a hand the engine built is a bug:
    it is flagged in out[O_ERROR] and the win refused."""
    for f in range(C.N_FLOWERS):
        g.fl8[f] = 1 if g.flowers[seat] & (1 << f) else 0
    for s in range(4):
        g.fed_row[s] = g.fed[seat, s]
        g.fed_col[s] = g.fed[s, seat]
    err = S.score_one(rules, tables, S.HandTiles(g.hands[seat], g.melds[seat], g.n_melds[seat],
                                                 g.fl8),
                      S.Win(tile, win_by, ctx, seat, g.ts[TS_ROUND_WIND], g.ts[TS_INDICATOR],
                            discarder, g.fed_row, g.fed_col, kong_from, liable), g.res, g.iw)
    if err != C.OK:
        out[O_ERROR] = E_ENGINE_SCORE
        return False
    return g.res[C.RES_WIN] == 1


@nrt_free(inline="always")
def call_scorer(rules, tables, g, pols, seat, tile, win_by, ctx, discarder, kong_from, liable,
                out):
    """``try_win`` called by its address (``pols.scorer``, a
    ``catalog.Policies`` record; ``nbsim.kernels.entry``), as the turn's
    steps call it: they do not link the scorer in, so the engine and the
    scorer compile apart, in parallel (``nbsim.warmup``)."""
    e = pols.scorer
    return call(e[0], e[1], types.boolean,
                (rules, tables, g, np.int64(seat), np.int64(tile), np.int64(win_by),
                 np.int64(ctx), np.int64(discarder), np.int64(kong_from), np.int64(liable),
                 out))


@nrt_free(kernel_only=True)
def liable_seat(rules, tables, g, winner, discarder, tile):
    """Ninghai three-melds liability (see the module doc): the liable seat or -1."""
    if not rules[C.R_THREE_MELDS_LIABILITY] or discarder < 0:
        return -1
    melds = g.melds
    n_exp = 0
    n_pung = 0
    suit = -1
    one_suit = True
    for i in range(g.n_melds[winner]):
        t = melds[winner, i, C.MELD_TYPE]
        if t == C.MELD_CKONG:
            continue
        n_exp += 1
        if t != C.MELD_CHOW:
            n_pung += 1
        s = suit_of(melds[winner, i, C.MELD_KIND])
        if s < 3:
            if suit < 0:
                suit = s
            elif suit != s:
                one_suit = False
    if n_exp < 3:
        return -1
    hit = False
    ts = suit_of(tile)
    if one_suit and ((suit >= 0 and ts == suit) or (suit < 0 and ts == 3)):
        hit = True
    if n_pung >= 3:
        if ts == 3 or tile % 9 == 0 or tile % 9 == 8:
            hit = True
    if not hit:
        return -1
    w = split_hand(g.hands[discarder], g.wild, g.nat)
    if H.fit_shanten(g.nat, w, g.n_melds[discarder], tables) >= 1:
        return discarder
    return -1


@nrt_free(kernel_only=True)
def fu_all(rules, g, winner, out):
    """Ninghai: each player's own fu (the winner's from its score)."""
    for s in range(4):
        if s == winner:
            out[O_FU + s] = g.res[C.RES_FU]
            continue
        for f in range(C.N_FLOWERS):
            g.fl8[f] = 1 if g.flowers[s] & (1 << f) else 0
        out[O_FU + s] = PAYMENTS.player_fu(rules, g.hands[s], g.melds[s], g.n_melds[s], g.fl8)


@nrt_free(kernel_only=True)
def set_win(g, outcome, winner, discarder, tile, ctx, liable):
    """Record the end of the deal by a win in the turn state: outcome
    (``codes.OUT_*``), winner, discarder (-1), winning tile, context bits
    and liable seat (-1)."""
    ts = g.ts
    ts[TS_OUTCOME] = outcome
    ts[TS_WINNER] = winner
    ts[TS_DISCARDER] = discarder
    ts[TS_WIN_TILE] = tile
    ts[TS_WIN_CTX] = ctx
    ts[TS_LIABLE] = liable
