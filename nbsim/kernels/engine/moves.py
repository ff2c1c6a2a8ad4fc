"""Moves that change the table (Numba): drawing (from the live end or the
tail, with flowers set aside and replaced; docs/rules.md §2), the kongs a
seat may declare on its own turn, and recording a declared meld (docs/rules.md
§4).
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import wall as W
from nbsim.kernels.engine.state import (
    TS_DRAWN,
    TS_HAS_DRAWN,
    TS_JUST_DREW,
    TS_N_KONGS,
    TS_N_LOG,
    TS_REPLACED,
    log_event,
)
from nbsim.kernels.jit import njit, nrt_free


@nrt_free(kernel_only=True)
def draw_tile(rules, wall, ws, wild, hands, flowers, visible, ts, log, seat, from_tail):
    """Draw for ``seat`` (live end, or the tail for a replacement), setting
    non-wild flowers aside and replacing them from the tail. Sets TS_DRAWN,
    TS_REPLACED, TS_JUST_DREW and TS_HAS_DRAWN; returns False when the wall
    ran out (then nothing was drawn). (It takes only the arrays it uses: the
    whole state passed by value costs more than a draw.)"""
    replaced = from_tail
    while True:
        if W.drawable_left(rules, ws, ts[TS_N_KONGS]) <= 0:
            return False
        if from_tail:
            p = W.draw_tail(ws)
            act = C.A_REPLACE
        else:
            p = W.draw_live(ws)
            act = C.A_DRAW
        if p < 0:
            return False
        k = W.tile_kind(np.int64(wall[p]))
        ts[TS_N_LOG] = log_event(log, ts[TS_N_LOG], seat, act, k, -1, -1, p)
        if k >= C.FLOWER0 and not wild[k]:
            flowers[seat] |= np.uint8(1 << (k - C.FLOWER0))
            visible[k] += 1
            ts[TS_N_LOG] = log_event(log, ts[TS_N_LOG], seat, C.A_FLOWER, k, -1, -1, -1)
            from_tail = True
            replaced = True
            continue
        hands[seat, k] += 1
        ts[TS_DRAWN] = k
        ts[TS_REPLACED] = 1 if replaced else 0
        ts[TS_JUST_DREW] = 1
        ts[TS_HAS_DRAWN] = 1
        return True


@njit(cache=True, inline="always")
def draw_for(rules, g, seat, from_tail, log):
    """``draw_tile`` for ``seat`` with the arrays of the state ``g``."""
    return draw_tile(rules, g.wall, g.ws, g.wild, g.hands, g.flowers, g.visible, g.ts, log, seat,
                     np.bool_(from_tail))


@nrt_free(kernel_only=True)
def kong_options(wild, hand, melds, n_melds, opts):
    """Concealed and added kongs a player with ``hand`` (int8[42]) and
    declared ``melds`` can declare now: rows (type, kind) of ``opts``."""
    n = 0
    for k in range(C.N_PLAY):
        if wild[k]:
            continue
        if hand[k] == 4 and n < opts.shape[0]:
            opts[n, 0] = C.MELD_CKONG
            opts[n, 1] = k
            n += 1
    for i in range(n_melds):
        if melds[i, C.MELD_TYPE] == C.MELD_PUNG:
            k = melds[i, C.MELD_KIND]
            if hand[k] >= 1 and n < opts.shape[0]:
                opts[n, 0] = C.MELD_KONG
                opts[n, 1] = k
                n += 1
    return n


@nrt_free(kernel_only=True)
def add_meld(g, seat, typ, kind, frm):
    """Append a declared meld to ``seat``'s melds and to the public record
    (a concealed kong lies face down: kind -1 there)."""
    m = g.n_melds[seat]
    g.melds[seat, m, C.MELD_TYPE] = typ
    g.melds[seat, m, C.MELD_KIND] = kind
    g.melds[seat, m, C.MELD_FROM] = frm
    g.pub_melds[seat, m, C.MELD_TYPE] = typ
    g.pub_melds[seat, m, C.MELD_KIND] = -1 if typ == C.MELD_CKONG else kind
    g.pub_melds[seat, m, C.MELD_FROM] = frm
    g.n_melds[seat] = m + 1
