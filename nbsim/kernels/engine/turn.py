"""The steps of a turn (Numba), each a function of the state ``Game``
(docs/rules.md §2, §4 and §5): setting up a deal, the self-drawn win, own-turn
kongs (and robbing an added kong), the allowed discards, the discard and
the wins offered on it. Claims are in ``engine.claims``; the loop that runs
the steps is ``engine.play_from``.

Each step that may end the turn returns ``GO_ON`` (the turn goes on),
``NEXT`` (restart the loop: a fresh draw or a claim to discard) or
``ENDED`` (the deal ended); the win offers return True when a seat won.

First go-around (``first_round_restrictions``, Ninghai): while the first
four discards are made, a player may discard only m or p tiles (any tile if
it holds none) and nobody chows, pungs or kongs; wins are allowed.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.engine.decisions import ask_kong, ask_win
from nbsim.kernels.engine.moves import add_meld, draw_for, kong_options
from nbsim.kernels.engine.state import (
    ENDED,
    GO_ON,
    NEXT,
    TS_AFTER_PUNG,
    TS_CLAIMS,
    TS_CUR,
    TS_DISCARDER,
    TS_DISCARDS,
    TS_DRAWN,
    TS_EARTHLY_RULE,
    TS_FIRST_DRAW,
    TS_FIRST_LIMITS,
    TS_FORBID_A,
    TS_FORBID_B,
    TS_HAS_DRAWN,
    TS_INDICATOR,
    TS_JUST_DREW,
    TS_KONG_FROM,
    TS_KONG_LOCK,
    TS_LIABLE,
    TS_N_KONGS,
    TS_N_LOG,
    TS_OUTCOME,
    TS_REPLACED,
    TS_ROUND_WIND,
    TS_WIN_TILE,
    TS_WINNER,
    add_event,
)
from nbsim.kernels.engine.wins import (
    call_scorer,
    complete_with,
    liable_seat,
    set_win,
    update_may_win,
)
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.view import MAX_POND, POND_DRAWN


@nrt_free(inline="always")
def start_deal(rules, tables, seed, deal, round_wind, restrict_first, g, out, log, dealt_hands,
               dealt_flowers):
    """Reset the state for a deal from a set-up wall, deal the hands with
    the flower replacement, and seed the policies' streams."""
    g.hands[:] = 0
    g.melds[:] = 0
    g.pub_melds[:] = 0
    g.n_melds[:] = 0
    g.flowers[:] = 0
    g.visible[:] = 0
    g.fed[:] = 0
    g.n_pond[:] = 0
    g.passed[:] = False
    ts = g.ts
    ts[:] = 0
    ws = g.ws
    indicator = ws[W.WS_IND_KIND]
    n_log = W.log_setup(ws, log, 0)
    ts[TS_N_LOG] = W.deal_hands(g.wall, ws, g.wild, g.hands, g.flowers, log, n_log)
    for s in range(4):        # element copies: array-to-array slice assignment needs NRT
        dealt_flowers[s] = g.flowers[s]
        for k in range(C.N_KINDS):
            dealt_hands[s, k] = g.hands[s, k]
    for s in range(4):
        rng.stream_init(seed, deal, rng.STREAM_POLICY + s, g.prng[s])
        for f in range(C.N_FLOWERS):
            if g.flowers[s] & (1 << f):
                g.visible[C.FLOWER0 + f] += 1
    if indicator >= 0:
        g.visible[indicator] += 1
    for s in range(4):
        for k in range(2 * C.N_KINDS):
            g.no_win[s, k] = False
    g.may_win[0] = True
    for s in range(1, 4):
        update_may_win(tables, g.wild, g.hands[s], g.n_melds[s], g.nat, g.may_win, g.no_win, s)
    first_rule = rules[C.R_FIRST_ROUND]
    ts[TS_FIRST_LIMITS] = 1 if (restrict_first and first_rule != C.FIRST_ROUND_OFF) else 0
    earthly = rules[C.R_EARTHLY_RULE]
    if rules[C.R_TAI + C.T_EARTHLY_HAND] == C.TAI_ABSENT:
        earthly = -1          # the variant has no earthly hand: no such context
    ts[TS_EARTHLY_RULE] = earthly
    ts[TS_ROUND_WIND] = round_wind
    ts[TS_INDICATOR] = indicator
    ts[TS_CUR] = 0
    ts[TS_JUST_DREW] = 1      # the dealer holds its dealt 14 tiles
    ts[TS_HAS_DRAWN] = 0
    ts[TS_DRAWN] = -1
    ts[TS_KONG_FROM] = -1
    ts[TS_FORBID_A] = -1
    ts[TS_FORBID_B] = -1
    ts[TS_FIRST_DRAW] = 1     # the dealer has no first draw
    ts[TS_OUTCOME] = C.OUT_WALL_EXHAUSTED
    ts[TS_WINNER] = -1
    ts[TS_DISCARDER] = -1
    ts[TS_WIN_TILE] = -1
    ts[TS_LIABLE] = -1


@nrt_free(inline="always")
def offer_self_draw(rules, tables, g, pols, probe, out, log):
    """The seat to play holds a fresh tile: may it win, and does it? True
    when it won (the deal ends)."""
    ts = g.ts
    cur = ts[TS_CUR]
    drawn = ts[TS_DRAWN]
    wild = g.wild
    if drawn < 0:
        # the dealer's 14 dealt tiles: take one natural tile out as the
        # "winning" tile (no wait item applies to a heavenly hand)
        for k in range(C.N_KINDS):
            if g.hands[cur, k] > 0 and (drawn < 0 or not wild[k]):
                drawn = k
        ts[TS_DRAWN] = drawn
        ctx = C.CTX_HEAVENLY
    else:
        ctx = 0
        if ts[TS_REPLACED]:
            ctx |= C.CTX_AFTER_KONG
        if W.drawable_left(rules, g.ws, ts[TS_N_KONGS]) == 0:
            ctx |= C.CTX_LAST_TILE
        if (ts[TS_EARTHLY_RULE] == C.EARTHLY_FIRST_DRAW and cur != 0 and ts[TS_CLAIMS] == 0
            and not (ts[TS_FIRST_DRAW] >> cur) & 1):
            ctx |= C.CTX_EARTHLY
    ts[TS_FIRST_DRAW] |= 1 << cur
    g.hands[cur, drawn] -= 1
    won = False
    if ((ctx != 0 or not g.no_win[cur, C.N_KINDS + drawn])
        and complete_with(tables, wild, g.hands[cur], g.nat, drawn)):
        kong_from = ts[TS_KONG_FROM] if ts[TS_REPLACED] else -1
        won = call_scorer(rules, tables, g, pols, cur, drawn, C.WIN_SELF_DRAW, ctx, -1, kong_from,
                        -1, out)
        if not won and ctx == 0:
            # complete but not a legal self-drawn win: the same until cur's
            # hand or flowers change (update_may_win forgets it)
            g.no_win[cur, C.N_KINDS + drawn] = True
    g.hands[cur, drawn] += 1
    if won:
        if ask_win(rules, tables, g, pols, probe, cur, drawn, C.WIN_SELF_DRAW):
            set_win(g, C.OUT_SELF_DRAWN, cur, np.int64(-1), drawn, ctx, np.int64(-1))
            add_event(g, log, cur, C.A_WIN, drawn, C.WIN_SELF_DRAW, -1, -1)
            return True
        add_event(g, log, cur, C.A_PASS_WIN, drawn, C.WIN_SELF_DRAW, -1, -1)
    return False


@nrt_free(inline="always")
def offer_robbing(rules, tables, g, pols, probe, out, log, cur, k):
    """Offer the tile of cur's added kong of ``k`` to the others
    (counterclockwise): True when one robs it (the deal ends)."""
    for d in range(1, 4):
        o = (cur + d) % 4
        if (g.may_win[o] and complete_with(tables, g.wild, g.hands[o], g.nat, k)
            and call_scorer(rules, tables, g, pols, o, k, C.WIN_ROBBING_KONG, 0, cur, -1, -1,
                          out)):
            if ask_win(rules, tables, g, pols, probe, o, k, C.WIN_ROBBING_KONG):
                set_win(g, C.OUT_ROBBING_KONG, o, cur, k, np.int64(0), np.int64(-1))
                add_event(g, log, o, C.A_WIN, k, C.WIN_ROBBING_KONG, cur, -1)
                return True
            add_event(g, log, o, C.A_PASS_WIN, k, C.WIN_ROBBING_KONG, cur, -1)
        g.passed[o, k] = True
    return False


@nrt_free(inline="always")
def own_kong(rules, tables, g, pols, probe, out, log, kong_kind):
    """Own-turn kongs: the seat to play may declare a concealed or an added
    kong (an added kong may be robbed), then draws a replacement.
    ``kong_kind``: -2 asks the seat's policy; -1 declines and k >= 0 declares
    the kong of kind k without asking (the lookahead's playouts fix the
    answer: ``engine.play_from``; a kind with no kong option declines).
    Returns GO_ON (no kong: discard next), NEXT (kong made, replacement
    drawn) or ENDED (robbed, or no replacement)."""
    ts = g.ts
    cur = ts[TS_CUR]
    if (ts[TS_KONG_LOCK] >> cur) & 1:
        return GO_ON
    if ts[TS_FIRST_LIMITS] and ts[TS_DISCARDS] < 4:
        return GO_ON
    if W.drawable_left(rules, g.ws, ts[TS_N_KONGS] + 1) <= 0:
        return GO_ON
    n_opt = kong_options(g.wild, g.hands[cur], g.melds[cur], g.n_melds[cur], g.opts)
    if n_opt == 0:
        return GO_ON
    if kong_kind < -1:
        j = ask_kong(rules, tables, g, pols, probe, cur, n_opt)
    else:
        j = -1
        for i in range(n_opt):
            if g.opts[i, 1] == kong_kind:
                j = i
    if j < 0:
        return GO_ON
    typ = g.opts[j, 0]
    k = g.opts[j, 1]
    if typ == C.MELD_KONG:
        # added kong: declared, then the others may rob it
        g.hands[cur, k] -= 1
        add_event(g, log, cur, C.A_ADDED_KONG, k, -1, -1, -1)
        g.visible[k] += 1
        if offer_robbing(rules, tables, g, pols, probe, out, log, cur, k):
            return ENDED
        for i in range(g.n_melds[cur]):
            if g.melds[cur, i, C.MELD_TYPE] == C.MELD_PUNG and g.melds[cur, i, C.MELD_KIND] == k:
                g.melds[cur, i, C.MELD_TYPE] = C.MELD_KONG
                g.pub_melds[cur, i, C.MELD_TYPE] = C.MELD_KONG
    else:
        g.hands[cur, k] -= 4
        add_meld(g, cur, C.MELD_CKONG, k, np.int64(-1))
        add_event(g, log, cur, C.A_CONCEALED_KONG, k, -1, -1, -1)
    ts[TS_N_KONGS] += 1
    ts[TS_KONG_FROM] = -1
    ts[TS_AFTER_PUNG] = 0
    if not draw_for(rules, g, cur, True, log):
        return ENDED
    return NEXT


@nrt_free(inline="always")
def allowed_discards(g):
    """Fill ``g.allowed`` with the kinds the seat to play may discard: the
    held kinds, less the chow-swap kinds after a chow and, in the first
    go-around under its limits, every s, honor and flower tile while an m
    or p tile is held."""
    ts = g.ts
    cur = ts[TS_CUR]
    hand = g.hands[cur]
    allowed = g.allowed
    forbid_a = ts[TS_FORBID_A]
    forbid_b = ts[TS_FORBID_B]
    n_hand = 0
    for k in range(C.N_KINDS):
        n_hand += hand[k]
    # a wild of a forbidden kind may go: as a wild it cannot make the chow
    # (bitwise & and |: no branch per kind)
    limit = n_hand > 2
    any_allowed = False
    for k in range(C.N_KINDS):
        a = (hand[k] > 0) & ~(limit & ((k == forbid_a) | (k == forbid_b)))
        allowed[k] = a
        any_allowed |= a
    if not any_allowed:
        for k in range(C.N_KINDS):
            allowed[k] = hand[k] > 0
    if ts[TS_FIRST_LIMITS] and ts[TS_DISCARDS] < 4:
        has_mp = False
        for k in range(C.SOU0):
            if allowed[k]:
                has_mp = True
        if has_mp:
            for k in range(C.SOU0, C.N_KINDS):
                allowed[k] = False


@nrt_free(inline="always")
def apply_discard(tables, g, log, d):
    """The seat to play discards the kind ``d`` (one it holds): the pond,
    the visible copies, the passed marks and its win filter follow."""
    ts = g.ts
    cur = ts[TS_CUR]
    hand = g.hands[cur]
    hand[d] -= 1
    g.visible[d] += 1
    ts[TS_DISCARDS] += 1
    add_event(g, log, cur, C.A_DISCARD, d, -1, -1, -1)
    just_drew = ts[TS_JUST_DREW] != 0
    drawn = ts[TS_DRAWN]
    n = g.n_pond[cur]
    if n < MAX_POND:
        g.pond[cur, n] = d
        g.pond_flags[cur, n] = POND_DRAWN if (just_drew and ts[TS_HAS_DRAWN] and d == drawn) else 0
        g.n_pond[cur] = n + 1
    for k in range(C.N_KINDS):
        g.passed[cur, k] = False
    if not (just_drew and not ts[TS_REPLACED] and d == drawn):
        # the hand changed (a drawn tile kept, a claim, a kong or a flower);
        # discarding the tile just drawn from the live wall leaves the hand and
        # flowers as they were, and the marks stay valid
        update_may_win(tables, g.wild, hand, g.n_melds[cur], g.nat, g.may_win, g.no_win, cur)
    ts[TS_JUST_DREW] = 0
    ts[TS_HAS_DRAWN] = 0
    ts[TS_AFTER_PUNG] = 0
    ts[TS_FORBID_A] = -1
    ts[TS_FORBID_B] = -1
    ts[TS_REPLACED] = 0
    ts[TS_KONG_FROM] = -1


@nrt_free(inline="always")
def offer_discard_win(rules, tables, g, pols, probe, out, log, d):
    """Offer the discard ``d`` of the seat to play to the others,
    counterclockwise: True when one wins on it (the deal ends). Otherwise
    every other seat has let ``d`` go by (``passed``)."""
    ts = g.ts
    cur = ts[TS_CUR]
    dealer_first = cur == 0 and ts[TS_DISCARDS] == 1
    for dd in range(1, 4):
        o = (cur + dd) % 4
        ctx = 0
        if (dealer_first and ts[TS_EARTHLY_RULE] == C.EARTHLY_DEALER_FIRST_DISCARD
            and g.n_melds[o] == 0):
            ctx |= C.CTX_EARTHLY
        if not g.may_win[o] or (g.no_win[o, d] and ctx == 0):
            continue
        if not complete_with(tables, g.wild, g.hands[o], g.nat, d):
            continue
        lia = liable_seat(rules, tables, g, o, cur, d)
        legal = call_scorer(rules, tables, g, pols, o, d, C.WIN_DISCARD, ctx, cur, -1, lia, out)
        if not legal and ctx == 0:
            # complete but not a legal discard win: the same until o's hand
            # changes (fed counts only change payments)
            g.no_win[o, d] = True
        if legal:
            if ask_win(rules, tables, g, pols, probe, o, d, C.WIN_DISCARD):
                set_win(g, C.OUT_DISCARD, o, cur, d, ctx, lia)
                g.visible[d] -= 1
                add_event(g, log, o, C.A_WIN, d, C.WIN_DISCARD, cur, -1)
                return True
            add_event(g, log, o, C.A_PASS_WIN, d, C.WIN_DISCARD, cur, -1)
    for dd in range(1, 4):
        g.passed[(cur + dd) % 4, d] = True
    return False
