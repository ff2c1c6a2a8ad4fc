"""Claims of a discard (Numba; docs/rules.md §4): a pung or exposed kong
first (only one player can hold two natural copies), then a chow by the
next player when ``allow_chow``. Wild tiles are never claimed for a meld.
After a pung under ``no_kong_after_pung`` the claimer may make no kong
until its next turn; after a chow the chow-swap kinds are forbidden when
``forbid_chow_swap``. A discard made when nothing is left to draw is not
claimed (``engine.play_from`` ends the deal first).

A lookahead playout that starts at a claim decision (``nbsim.kernels.search.playout``)
fixes that decision's answer: ``force_seat`` gave ``force_action`` to the
pung question (``force_q`` 0: it holds two or more of the discard) or to
the chow question (``force_q`` 1: every seat that could pung had passed,
so nobody is asked the pung question again). ``force_seat`` -1: every
answer is the policies'.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import wall as W
from nbsim.kernels.engine.decisions import ask_claim
from nbsim.kernels.engine.moves import add_meld, draw_for
from nbsim.kernels.engine.state import (
    ENDED,
    GO_ON,
    NEXT,
    TS_AFTER_PUNG,
    TS_CLAIMS,
    TS_CUR,
    TS_DISCARDS,
    TS_FIRST_LIMITS,
    TS_FORBID_A,
    TS_FORBID_B,
    TS_KONG_FROM,
    TS_KONG_LOCK,
    TS_N_KONGS,
    add_event,
)
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import CLAIM_CHOW, CLAIM_KONG, CLAIM_PASS, CLAIM_PUNG
from nbsim.kernels.policies.view import POND_CLAIMED


@nrt_free(inline="always")
def claim_discard(rules, tables, g, pols, probe, log, d, force_seat, force_q,
                  force_action):
    """Pung, exposed kong or chow of the discard ``d``. Returns GO_ON (no
    claim: the next seat draws), NEXT (claimed: the claimer plays on) or
    ENDED (the wall ran out on a kong's replacement). force_seat, force_q,
    force_action: int64, a fixed first answer (module doc; -1: none)."""
    ts = g.ts
    cur = ts[TS_CUR]
    wild = g.wild
    hands = g.hands
    if wild[d] or d >= C.N_PLAY or (ts[TS_FIRST_LIMITS] and ts[TS_DISCARDS] <= 4):
        return GO_ON
    claimer = -1
    action = CLAIM_PASS
    for dd in range(1, 4):
        o = (cur + dd) % 4
        if hands[o, d] >= 2 and not (force_seat >= 0 and force_q == 1):
            can_k = (hands[o, d] == 3 and not (ts[TS_KONG_LOCK] >> o) & 1
                     and W.drawable_left(rules, g.ws, ts[TS_N_KONGS] + 1) > 0)
            g.chow_ok[:] = False
            if o == force_seat and force_q == 0:
                a = force_action
            else:
                a = ask_claim(rules, tables, g, pols, probe, o, d, np.bool_(True),
                              np.bool_(can_k))
            if a == CLAIM_PUNG or a == CLAIM_KONG:
                claimer = o
                action = a
            break
    if claimer < 0 and rules[C.R_ALLOW_CHOW] and d < C.HONOR0:
        o = (cur + 1) % 4
        r = d % 9
        any_chow = False
        for j in range(3):
            lo = d - j
            ok = r - j >= 0 and r - j + 2 <= 8
            if ok:
                for t in range(3):
                    if lo + t != d and (hands[o, lo + t] == 0 or wild[lo + t]):
                        ok = False
            g.chow_ok[j] = ok
            any_chow = any_chow or ok
        if any_chow:
            if o == force_seat and force_q == 1:
                a = force_action
            else:
                a = ask_claim(rules, tables, g, pols, probe, o, d, np.bool_(False),
                              np.bool_(False))
            if a >= CLAIM_CHOW:
                claimer = o
                action = a
    if claimer < 0:
        return GO_ON
    g.fed[claimer, cur] += 1
    ts[TS_CLAIMS] += 1
    p = g.n_pond[cur] - 1
    if p >= 0:
        g.pond_flags[cur, p] |= POND_CLAIMED
    if action == CLAIM_PUNG:
        hands[claimer, d] -= 2
        g.visible[d] += 2
        add_meld(g, claimer, C.MELD_PUNG, d, cur)
        add_event(g, log, claimer, C.A_PUNG, d, d, cur, -1)
        ts[TS_CUR] = claimer
        if rules[C.R_NO_KONG_AFTER_PUNG]:
            ts[TS_KONG_LOCK] |= 1 << claimer
        ts[TS_AFTER_PUNG] = 1
        return NEXT
    if action == CLAIM_KONG:
        hands[claimer, d] -= 3
        g.visible[d] += 3
        add_meld(g, claimer, C.MELD_KONG, d, cur)
        add_event(g, log, claimer, C.A_KONG, d, d, cur, -1)
        ts[TS_N_KONGS] += 1
        ts[TS_CUR] = claimer
        if not draw_for(rules, g, claimer, True, log):
            return ENDED
        ts[TS_KONG_FROM] = cur
        return NEXT
    # chow: the claimer's turn (it ends a kong lock from an earlier pung)
    j = action - CLAIM_CHOW
    lo = d - j
    for t in range(3):
        if lo + t != d:
            hands[claimer, lo + t] -= 1
            g.visible[lo + t] += 1
    add_meld(g, claimer, C.MELD_CHOW, lo, cur)
    add_event(g, log, claimer, C.A_CHOW, d, lo, cur, -1)
    ts[TS_CUR] = claimer
    ts[TS_KONG_LOCK] &= ~(1 << claimer)
    if rules[C.R_FORBID_CHOW_SWAP]:
        # kinds that would make the same chow with the two hand tiles
        ts[TS_FORBID_A] = d
        if j != 1:
            # an end chow: the other end of the two hand tiles too
            other = lo + 3 if j == 0 else lo - 1
            if other >= 0 and other // 9 == lo // 9 and other < C.HONOR0 and not wild[other]:
                ts[TS_FORBID_B] = other    # a wild cannot repeat the chow
    return NEXT
