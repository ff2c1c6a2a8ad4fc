"""The game engine (Numba): one deal played from the break to its end.

RULES.md sections 2, 4 and 5. Seats are seat winds: 0 E (the dealer), 1 S,
2 W, 3 N; play goes 0 -> 1 -> 2 -> 3 -> 0. The wall comes from
``nbsim.kernels.wall`` (same seed and deal index -> same wall as deal mode),
decisions from ``nbsim.kernels.policy`` (each seat has its own random stream
``rng.STREAM_POLICY + seat``), scoring and payments from
``nbsim.kernels.score.score_win``.

Turn structure
--------------
A player holding 3k+2 tiles after a draw (live wall, or a replacement from
the tail after a kong or a flower) may: win (self-drawn; heavenly on the
dealer's first turn, earthly on a non-dealer's first draw under
``earthly_hand_rule = first_draw``), declare a concealed or added kong (an
added kong can be robbed; a kong draws a replacement and the turn goes on),
then must discard. After a pung or chow the player only discards (no kong
until its next turn when ``no_kong_after_pung``; after a chow the chow-swap
kinds are forbidden when ``forbid_chow_swap``, unless the chow leaves a
single tile). A discard is offered to the other players: a win goes first,
to the first player counterclockwise from the discarder who takes it; then a
pung or exposed kong (only one player can hold two natural copies); then a
chow by the next player when ``allow_chow``. Wild tiles are never claimed for
a meld and never melded. With no claim, the next player draws.

End of the deal
---------------
A win ends it. Ningbo: every tile but the indicator can be drawn; when the
last drawable tile has been drawn and discarded without a win, the wall is
exhausted. Ninghai keeps ``reserve_stacks`` stacks plus
``reserve_stacks_per_kong`` per kong declared (``wall.drawable_left``). A
discard made when nothing is left to draw can be won on but not claimed for a
meld (the claimer could not continue), and no kong is declared without a
replacement tile to draw (documented choice; RULES.md is silent).

First go-around (``first_round_restrictions``, Ninghai): while the first four
discards are made, a player may discard only m or p tiles (any tile if it
holds none) and nobody chows, pungs or kongs; wins are allowed.

Ninghai liability (``three_melds_liability``): a discarder who is not ready
(shanten >= 1 after the discard) is liable for the whole payment when the
winner on that discard shows 3 exposed melds of one suit (honors allowed)
and the discard is of that suit, or shows 3 exposed pungs/kongs and the
discard is a terminal or an honor.

Outputs: the result row ``out`` (int64[OUT_LEN], layout ``O_*`` below) and,
when ``log`` has rows, the event log (int32[m, EV_LEN], ``codes.A_*``).
"""
import numpy as np
from numba import njit

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels import policy as P
from nbsim.kernels import rng
from nbsim.kernels import score as S
from nbsim.kernels import wall as W
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.wilds import wild_mask

# result row layout (int64[OUT_LEN])
O_OUTCOME = 0          # OUT_*
O_WINNER = 1           # seat or -1
O_DISCARDER = 2        # seat or -1 (robbing: the robbed player)
O_TURNS = 3            # discards made
O_TILES_LEFT = 4       # drawable tiles left at the end
O_N_KONGS = 5
O_WIN_TILE = 6         # kind or -1
O_CTX = 7              # CTX_* flags of the win
O_LIABLE = 8           # Ninghai liable seat or -1
O_N_MELDS = 9          # 4 entries: declared melds per seat
O_FU = 13              # 4 entries: Ninghai fu per seat (the winner's hand fu for the winner)
O_SCORE = 17           # RES_LEN entries: the winner's score_win result
O_N_EVENTS = O_SCORE + C.RES_LEN   # events written (or that would be written)
O_ERROR = O_N_EVENTS + 1           # engine error (0 ok); see E_ENGINE_*
OUT_LEN = O_ERROR + 1

E_ENGINE_OK = 0
E_ENGINE_SCORE = 1     # score_win refused a hand the engine built (a bug)
E_ENGINE_LOOP = 2      # the step limit was reached (a bug)

MAX_POND = 64
MAX_STEPS = 2000


@njit(cache=True)
def new_state():
    """Scratch arrays for ``play_deal`` (allocate once per batch, reuse)."""
    wall = np.zeros(C.N_TILES, np.uint8)
    work = np.zeros(C.N_TILES, np.uint8)
    st = np.zeros(rng.RNG_LEN, np.uint64)
    ws = np.zeros(W.WS_LEN, np.int64)
    wild = np.zeros(C.N_KINDS, np.bool_)
    hands = np.zeros((4, C.N_KINDS), np.int8)
    melds = np.zeros((4, C.MAX_MELDS, 3), np.int8)
    n_melds = np.zeros(4, np.int64)
    flowers = np.zeros(4, np.uint8)
    visible = np.zeros(C.N_KINDS, np.int8)
    fed = np.zeros((4, 4), np.int8)
    prng = np.zeros((4, rng.RNG_LEN), np.uint64)
    res = np.zeros(C.RES_LEN, np.int64)
    nat = np.zeros(C.N_PLAY, np.int8)
    tmp = np.zeros(C.N_PLAY, np.int8)
    allowed = np.zeros(C.N_KINDS, np.bool_)
    opts = np.zeros((8, 2), np.int64)
    fl8 = np.zeros(C.N_FLOWERS, np.int8)
    fed_row = np.zeros(4, np.int8)
    fed_col = np.zeros(4, np.int8)
    chow_ok = np.zeros(3, np.bool_)
    may_win = np.zeros(4, np.bool_)
    # known illegal wins, [seat, kind]: on a discard; [seat, N_KINDS + kind]: self-drawn
    no_win = np.zeros((4, 2 * C.N_KINDS), np.bool_)
    iw = np.zeros(S.IW_LEN, np.int64)       # the scorer's scratch (score.new_scratch)
    return (wall, work, st, ws, wild, hands, melds, n_melds, flowers, visible, fed,
            prng, res, nat, tmp, allowed, opts, fl8, fed_row, fed_col, chow_ok, may_win,
            no_win, iw)


@njit(cache=True, inline="always")
def log_event(log, n_log, seat, action, tile, meld, frm, pos):
    """Append one event row (if ``log`` has room); returns the new count."""
    if n_log < log.shape[0]:
        log[n_log, C.EV_SEAT] = seat
        log[n_log, C.EV_ACTION] = action
        log[n_log, C.EV_TILE] = tile
        log[n_log, C.EV_MELD] = meld
        log[n_log, C.EV_FROM] = frm
        log[n_log, C.EV_POS] = pos
    return n_log + 1


@nrt_free
def _complete_with(tables, wild, hand, nat, tile):
    """Would ``tile`` complete the concealed ``hand`` (int8[42], without the
    tile)? nat: int8[34] scratch."""
    w = P.split_hand(hand, wild, nat)
    if wild[tile]:
        w += 1
    else:
        nat[tile] += 1
    return H.is_complete(nat, w, tables)


@nrt_free
def _update_may_win(tables, wild, hand, n_declared, nat, may_win, no_win, seat):
    """After ``seat`` discards: can any tile still complete its 3k+1 hand
    (``hand``, int8[42])? True when its shanten is 0 (ready), or when it
    holds a wild and three or more of a kind (then a wild may have to act as
    a fifth copy, which the shanten does not see). A filter only: wins are
    always checked exactly. Also forgets the seat's ``no_win`` marks (its
    hand changed). (Helpers called every step take only the arrays they use:
    unpacking the whole state costs a reference count per array.)"""
    for k in range(2 * C.N_KINDS):
        no_win[seat, k] = False
    w = P.split_hand(hand, wild, nat)
    risky = False
    if w > 0:
        for k in range(C.N_PLAY):
            if nat[k] >= 3:
                risky = True
    may_win[seat] = risky or H.fit_shanten(nat, w, n_declared, tables) <= 0


@nrt_free
def _try_win(rules, tables, state, seat, tile, win_by, ctx, round_wind, indicator,
             discarder, kong_from, liable, out):
    """Score ``seat`` winning on ``tile`` (the tile is NOT in its hand; call
    ``_complete_with`` first). Returns True when the win is legal; the result
    is left in the state's ``res``. A scorer error on a hand the engine built
    is a bug: it is flagged in out[O_ERROR] and the win refused."""
    (wall, work, st, ws, wild, hands, melds, n_melds, flowers, visible, fed,
     prng, res, nat, tmp, allowed, opts, fl8, fed_row, fed_col, chow_ok, may_win,
     no_win, iw) = state
    for f in range(C.N_FLOWERS):
        fl8[f] = 1 if flowers[seat] & (1 << f) else 0
    for s in range(4):
        fed_row[s] = fed[seat, s]
        fed_col[s] = fed[s, seat]
    err = S.score_one(rules, tables, hands[seat], melds[seat], n_melds[seat], fl8, tile,
                      win_by, ctx, seat, round_wind, indicator, discarder, fed_row, fed_col,
                      kong_from, liable, res, iw)
    if err != C.OK:
        out[O_ERROR] = E_ENGINE_SCORE
        return False
    return res[C.RES_WIN] == 1


@nrt_free
def _liable(rules, tables, state, winner, discarder, tile):
    """Ninghai three-melds liability (see the module doc): the liable seat or -1."""
    (wall, work, st, ws, wild, hands, melds, n_melds, flowers, visible, fed,
     prng, res, nat, tmp, allowed, opts, fl8, fed_row, fed_col, chow_ok, may_win,
     no_win, iw) = state
    if not rules[C.R_THREE_MELDS_LIABILITY] or discarder < 0:
        return -1
    n_exp = 0
    n_pung = 0
    suit = -1
    one_suit = True
    for i in range(n_melds[winner]):
        t = melds[winner, i, C.MELD_TYPE]
        if t == C.MELD_CKONG:
            continue
        n_exp += 1
        if t != C.MELD_CHOW:
            n_pung += 1
        s = P.suit_of(melds[winner, i, C.MELD_KIND])
        if s < 3:
            if suit < 0:
                suit = s
            elif suit != s:
                one_suit = False
    if n_exp < 3:
        return -1
    hit = False
    ts = P.suit_of(tile)
    if one_suit and ((suit >= 0 and ts == suit) or (suit < 0 and ts == 3)):
        hit = True
    if n_pung >= 3:
        if ts == 3 or tile % 9 == 0 or tile % 9 == 8:
            hit = True
    if not hit:
        return -1
    w = P.split_hand(hands[discarder], wild, nat)
    if H.fit_shanten(nat, w, n_melds[discarder], tables) >= 1:
        return discarder
    return -1


@nrt_free
def _draw(rules, wall, ws, wild, hands, flowers, visible, seat, from_tail, log, n_log, n_kongs):
    """Draw for ``seat`` (live end, or the tail for a replacement), setting
    non-wild flowers aside and replacing them from the tail. Returns
    (kind drawn or -1 if the wall ran out, replaced: bool, n_log)."""
    replaced = from_tail
    while True:
        if W.drawable_left(rules, ws, n_kongs) <= 0:
            return -1, replaced, n_log
        if from_tail:
            p = W.draw_tail(ws)
            act = C.A_REPLACE
        else:
            p = W.draw_live(ws)
            act = C.A_DRAW
        if p < 0:
            return -1, replaced, n_log
        k = W.tile_kind(np.int64(wall[p]))
        n_log = log_event(log, n_log, seat, act, k, -1, -1, p)
        if k >= C.FLOWER0 and not wild[k]:
            flowers[seat] |= np.uint8(1 << (k - C.FLOWER0))
            visible[k] += 1
            n_log = log_event(log, n_log, seat, C.A_FLOWER, k, -1, -1, -1)
            from_tail = True
            replaced = True
            continue
        hands[seat, k] += 1
        return k, replaced, n_log


@nrt_free
def _kong_options(wild, hand, melds, n_melds, opts):
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


@nrt_free
def _fu_all(rules, state, winner, out):
    """Ninghai: each player's own fu (the winner's from its score)."""
    (wall, work, st, ws, wild, hands, melds, n_melds, flowers, visible, fed,
     prng, res, nat, tmp, allowed, opts, fl8, fed_row, fed_col, chow_ok, may_win,
     no_win, iw) = state
    for s in range(4):
        if s == winner:
            out[O_FU + s] = res[C.RES_FU]
            continue
        for f in range(C.N_FLOWERS):
            fl8[f] = 1 if flowers[s] & (1 << f) else 0
        out[O_FU + s] = S.player_fu(rules, hands[s], melds[s], n_melds[s], fl8)


@njit(cache=True)
def play_deal(rules, tables, seed, deal, round_wind, restrict_first, policies, state,
              out, log, dealt_hands, dealt_flowers):
    """Play deal ``deal`` of seed ``seed`` to its end.

    rules: int64[R_LEN]; tables: nbsim.tables.load_tables(); seed: uint64;
    deal: int (the wall is deal mode's wall of (seed, deal)); round_wind: 0..3;
    restrict_first: bool, apply the first go-around limits of
    ``first_round_restrictions`` to this deal; policies: int64[4] POLICY_* per
    seat (seat 0 = the dealer); state: ``new_state()``; out: int64[OUT_LEN]
    (written); log: int32[m, EV_LEN] event rows (m = 0: no log);
    dealt_hands int8[4, 42] and dealt_flowers uint8[4] (written): the hands
    and set-aside flowers right after the deal and flower replacement.
    Returns the number of events (which may exceed m: only the first m are
    written).
    """
    wall, work, st, ws, wild = state[0], state[1], state[2], state[3], state[4]
    W.wall_setup(rules, seed, deal, True, wall, work, st, ws, wild)
    return _play(rules, tables, seed, deal, round_wind, restrict_first, policies, state, out,
                 log, dealt_hands, dealt_flowers)


@njit(cache=True)
def play_wall(rules, tables, tiles, dice, indicator_pos, seed, deal, round_wind,
              restrict_first, policies, state, out, log, dealt_hands, dealt_flowers):
    """Play a deal from a given wall (constructed walls in tests, replays of
    recorded walls): ``tiles`` uint8[144] physical tile ids in draw order
    (position 0 is the first live tile, 143 the first tail tile, see
    ``kernels/wall.py``), ``dice`` int64[4] (for the record only),
    ``indicator_pos`` the indicator's position or -1. The policies' random
    streams are those of (seed, deal). Otherwise as ``play_deal``."""
    wall, ws, wild = state[0], state[3], state[4]
    for i in range(C.N_TILES):
        wall[i] = tiles[i]
    ws[:] = 0
    ws[W.WS_LIVE] = 0
    ws[W.WS_TAIL] = C.N_TILES - 1
    ws[W.WS_FILLED] = C.N_TILES
    ws[W.WS_N_DICE] = 0
    for k in range(W.MAX_DICE):
        ws[W.WS_DICE + k] = dice[k]
        if dice[k] > 0:
            ws[W.WS_N_DICE] = k + 1
    ws[W.WS_INDICATOR] = indicator_pos
    kind = -1
    if indicator_pos >= 0:
        kind = W.tile_kind(np.int64(wall[indicator_pos]))
    ws[W.WS_IND_KIND] = kind
    ws[W.WS_N_WILDS] = wild_mask(rules, kind, wild)
    return _play(rules, tables, seed, deal, round_wind, restrict_first, policies, state, out,
                 log, dealt_hands, dealt_flowers)


@nrt_free
def _play(rules, tables, seed, deal, round_wind, restrict_first, policies, state, out, log,
          dealt_hands, dealt_flowers):
    """The deal from a set-up wall (state's wall, ws and wild) to its end."""
    (wall, work, st, ws, wild, hands, melds, n_melds, flowers, visible, fed,
     prng, res, nat, tmp, allowed, opts, fl8, fed_row, fed_col, chow_ok, may_win,
     no_win, iw) = state
    hands[:] = 0
    melds[:] = 0
    n_melds[:] = 0
    flowers[:] = 0
    visible[:] = 0
    fed[:] = 0
    out[:] = 0
    out[O_WINNER] = -1
    out[O_DISCARDER] = -1
    out[O_WIN_TILE] = -1
    out[O_LIABLE] = -1
    indicator = ws[W.WS_IND_KIND]
    n_log = W.log_setup(ws, log, 0)
    n_log = W.deal_hands(wall, ws, wild, hands, flowers, log, n_log)
    for s in range(4):        # element copies: array-to-array slice assignment needs NRT
        dealt_flowers[s] = flowers[s]
        for k in range(C.N_KINDS):
            dealt_hands[s, k] = hands[s, k]
    for s in range(4):
        rng.stream_init(seed, deal, rng.STREAM_POLICY + s, prng[s])
        for f in range(C.N_FLOWERS):
            if flowers[s] & (1 << f):
                visible[C.FLOWER0 + f] += 1
    if indicator >= 0:
        visible[indicator] += 1
    for s in range(4):         # the state is reused across deals
        for k in range(2 * C.N_KINDS):
            no_win[s, k] = False
    may_win[0] = True
    for s in range(1, 4):
        _update_may_win(tables, wild, hands[s], n_melds[s], nat, may_win, no_win, s)
    first_rule = rules[C.R_FIRST_ROUND]
    first_limits = restrict_first and first_rule != C.FIRST_ROUND_OFF
    earthly_rule = rules[C.R_EARTHLY_RULE]
    if rules[C.R_TAI + C.T_EARTHLY_HAND] == C.TAI_ABSENT:
        earthly_rule = -1          # the variant has no earthly hand: no such context

    cur = 0
    just_drew = True          # cur holds a freshly drawn (or dealt) tile
    drawn = -1                # kind just drawn (the self-drawn winning tile)
    replaced = False          # drawn from the tail (kong or flower replacement)
    kong_from = -1            # seat whose discard cur konged before this draw
    pung_lock = False         # no kong until cur's next turn
    after_pung = False        # cur has just punged (kongs only if not pung_lock)
    forbid_a = -1             # chow-swap forbidden kinds
    forbid_b = -1
    n_kongs = 0
    discards = 0
    claims = 0                # chows/pungs/kongs made (any kind of kong)
    first_draw_done = 1       # bit s: seat s has drawn (the dealer has no first draw)
    outcome = C.OUT_WALL_EXHAUSTED
    winner = -1
    discarder = -1
    win_tile = -1
    win_ctx = 0
    liable = -1
    steps = 0
    while True:
        steps += 1
        if steps > MAX_STEPS:
            out[O_ERROR] = E_ENGINE_LOOP
            break
        pol = policies[cur]
        if just_drew:
            # ---------------------------------------------- self-drawn win
            if drawn < 0:
                # the dealer's 14 dealt tiles: take one natural tile out as the
                # "winning" tile (no wait item applies to a heavenly hand)
                for k in range(C.N_KINDS):
                    if hands[cur, k] > 0 and (drawn < 0 or not wild[k]):
                        drawn = k
                ctx = C.CTX_HEAVENLY
            else:
                ctx = 0
                if replaced:
                    ctx |= C.CTX_AFTER_KONG
                if W.drawable_left(rules, ws, n_kongs) == 0:
                    ctx |= C.CTX_LAST_TILE
                if (earthly_rule == C.EARTHLY_FIRST_DRAW and cur != 0 and claims == 0
                        and not (first_draw_done >> cur) & 1):
                    ctx |= C.CTX_EARTHLY
            first_draw_done |= 1 << cur
            hands[cur, drawn] -= 1
            won = False
            if ((ctx != 0 or not no_win[cur, C.N_KINDS + drawn])
                    and _complete_with(tables, wild, hands[cur], nat, drawn)):
                won = _try_win(rules, tables, state, cur, drawn, C.WIN_SELF_DRAW, ctx,
                               round_wind, indicator, -1, kong_from if replaced else -1, -1,
                               out)
                if not won and ctx == 0:
                    # complete but not a legal self-drawn win: the same until
                    # cur's hand or flowers change (_update_may_win forgets it)
                    no_win[cur, C.N_KINDS + drawn] = True
            hands[cur, drawn] += 1
            if won:
                if P.want_win(pol, prng[cur]):
                    outcome = C.OUT_SELF_DRAWN
                    winner = cur
                    win_tile = drawn
                    win_ctx = ctx
                    n_log = log_event(log, n_log, cur, C.A_WIN, drawn, C.WIN_SELF_DRAW, -1, -1)
                    break
                n_log = log_event(log, n_log, cur, C.A_PASS_WIN, drawn, C.WIN_SELF_DRAW, -1, -1)
        if just_drew or after_pung:
            # ---------------------------------------------- kongs on own turn
            can_kong = not pung_lock and not (first_limits and discards < 4)
            if can_kong and W.drawable_left(rules, ws, n_kongs + 1) > 0:
                n_opt = _kong_options(wild, hands[cur], melds[cur], n_melds[cur], opts)
                j = P.choose_kong(pol, rules, tables, hands[cur], wild, melds[cur],
                                  n_melds[cur], cur, round_wind, flowers[cur], opts, n_opt,
                                  prng[cur], nat, tmp)
                if j >= 0:
                    typ = opts[j, 0]
                    k = opts[j, 1]
                    if typ == C.MELD_KONG:
                        # added kong: declared, then the others may rob it
                        robbed = False
                        hands[cur, k] -= 1
                        n_log = log_event(log, n_log, cur, C.A_ADDED_KONG, k, -1, -1, -1)
                        for d in range(1, 4):
                            o = (cur + d) % 4
                            if not may_win[o] or not _complete_with(tables, wild, hands[o],
                                                                    nat, k):
                                continue
                            if _try_win(rules, tables, state, o, k, C.WIN_ROBBING_KONG, 0,
                                        round_wind, indicator, cur, -1, -1, out):
                                if P.want_win(policies[o], prng[o]):
                                    outcome = C.OUT_ROBBING_KONG
                                    winner = o
                                    discarder = cur
                                    win_tile = k
                                    n_log = log_event(log, n_log, o, C.A_WIN, k,
                                                      C.WIN_ROBBING_KONG, cur, -1)
                                    robbed = True
                                    break
                                n_log = log_event(log, n_log, o, C.A_PASS_WIN, k,
                                                  C.WIN_ROBBING_KONG, cur, -1)
                        if robbed:
                            visible[k] += 1
                            break
                        for i in range(n_melds[cur]):
                            if (melds[cur, i, C.MELD_TYPE] == C.MELD_PUNG
                                    and melds[cur, i, C.MELD_KIND] == k):
                                melds[cur, i, C.MELD_TYPE] = C.MELD_KONG
                        visible[k] += 1
                    else:
                        hands[cur, k] -= 4
                        m = n_melds[cur]
                        melds[cur, m, C.MELD_TYPE] = C.MELD_CKONG
                        melds[cur, m, C.MELD_KIND] = k
                        melds[cur, m, C.MELD_FROM] = -1
                        n_melds[cur] = m + 1
                        n_log = log_event(log, n_log, cur, C.A_CONCEALED_KONG, k, -1, -1, -1)
                    n_kongs += 1
                    claims += 1
                    drawn, replaced, n_log = _draw(rules, wall, ws, wild, hands, flowers,
                                                   visible, cur, True, log, n_log, n_kongs)
                    kong_from = -1
                    after_pung = False
                    if drawn < 0:
                        break
                    just_drew = True
                    continue
        # -------------------------------------------------- discard
        n_hand = 0
        for k in range(C.N_KINDS):
            n_hand += hands[cur, k]
        any_allowed = False
        for k in range(C.N_KINDS):
            a = hands[cur, k] > 0
            if a and (k == forbid_a or k == forbid_b) and n_hand > 2:
                a = False
            allowed[k] = a
            any_allowed = any_allowed or a
        if not any_allowed:
            for k in range(C.N_KINDS):
                allowed[k] = hands[cur, k] > 0
        if first_limits and discards < 4:
            has_mp = False
            for k in range(C.SOU0):
                if allowed[k]:
                    has_mp = True
            if has_mp:
                for k in range(C.SOU0, C.N_KINDS):
                    allowed[k] = False
        d = P.choose_discard(pol, rules, tables, hands[cur], wild, melds[cur], n_melds[cur],
                             visible, allowed, cur, round_wind, flowers[cur], prng[cur],
                             nat, tmp)
        hands[cur, d] -= 1
        visible[d] += 1
        discards += 1
        n_log = log_event(log, n_log, cur, C.A_DISCARD, d, -1, -1, -1)
        if not (just_drew and not replaced and d == drawn):
            # the hand changed (a drawn tile kept, a claim, a kong or a
            # flower); discarding the tile just drawn from the live wall leaves
            # the hand and flowers as they were, and the marks stay valid
            _update_may_win(tables, wild, hands[cur], n_melds[cur], nat, may_win, no_win, cur)
        dealer_first = cur == 0 and discards == 1
        just_drew = False
        pung_lock = False
        after_pung = False
        forbid_a = -1
        forbid_b = -1
        replaced = False
        kong_from = -1
        # -------------------------------------------------- claims: win first
        won = False
        for dd in range(1, 4):
            o = (cur + dd) % 4
            ctx = 0
            if (dealer_first and earthly_rule == C.EARTHLY_DEALER_FIRST_DISCARD
                    and n_melds[o] == 0):
                ctx |= C.CTX_EARTHLY
            if not may_win[o] or (no_win[o, d] and ctx == 0):
                continue
            if not _complete_with(tables, wild, hands[o], nat, d):
                continue
            lia = _liable(rules, tables, state, o, cur, d)
            legal = _try_win(rules, tables, state, o, d, C.WIN_DISCARD, ctx, round_wind,
                             indicator, cur, -1, lia, out)
            if not legal and ctx == 0:
                # complete but not a legal discard win: the same until o's
                # hand changes (fed counts only change payments)
                no_win[o, d] = True
            if legal:
                if P.want_win(policies[o], prng[o]):
                    outcome = C.OUT_DISCARD
                    winner = o
                    discarder = cur
                    win_tile = d
                    win_ctx = ctx
                    liable = lia
                    visible[d] -= 1
                    n_log = log_event(log, n_log, o, C.A_WIN, d, C.WIN_DISCARD, cur, -1)
                    won = True
                    break
                n_log = log_event(log, n_log, o, C.A_PASS_WIN, d, C.WIN_DISCARD, cur, -1)
        if won:
            break
        left = W.drawable_left(rules, ws, n_kongs)
        if left <= 0:
            break
        # -------------------------------------------------- pung / kong / chow
        claimer = -1
        action = P.CLAIM_PASS
        if not wild[d] and d < C.N_PLAY and not (first_limits and discards <= 4):
            for dd in range(1, 4):
                o = (cur + dd) % 4
                if hands[o, d] >= 2:
                    can_k = hands[o, d] == 3 and W.drawable_left(rules, ws, n_kongs + 1) > 0
                    chow_ok[:] = False
                    a = P.choose_claim(policies[o], rules, tables, hands[o], wild, melds[o],
                                       n_melds[o], o, round_wind, flowers[o], d, True, can_k,
                                       chow_ok, prng[o], nat, tmp)
                    if a == P.CLAIM_PUNG or a == P.CLAIM_KONG:
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
                    chow_ok[j] = ok
                    any_chow = any_chow or ok
                if any_chow:
                    a = P.choose_claim(policies[o], rules, tables, hands[o], wild, melds[o],
                                       n_melds[o], o, round_wind, flowers[o], d, False, False,
                                       chow_ok, prng[o], nat, tmp)
                    if a >= P.CLAIM_CHOW:
                        claimer = o
                        action = a
        if claimer >= 0:
            m = n_melds[claimer]
            melds[claimer, m, C.MELD_KIND] = d
            melds[claimer, m, C.MELD_FROM] = cur
            fed[claimer, cur] += 1
            claims += 1
            if action == P.CLAIM_PUNG:
                hands[claimer, d] -= 2
                visible[d] += 2
                melds[claimer, m, C.MELD_TYPE] = C.MELD_PUNG
                n_log = log_event(log, n_log, claimer, C.A_PUNG, d, d, cur, -1)
                n_melds[claimer] = m + 1
                cur = claimer
                pung_lock = rules[C.R_NO_KONG_AFTER_PUNG] != 0
                after_pung = True
                continue
            if action == P.CLAIM_KONG:
                hands[claimer, d] -= 3
                visible[d] += 3
                melds[claimer, m, C.MELD_TYPE] = C.MELD_KONG
                n_log = log_event(log, n_log, claimer, C.A_KONG, d, d, cur, -1)
                n_melds[claimer] = m + 1
                n_kongs += 1
                feeder = cur
                cur = claimer
                drawn, replaced, n_log = _draw(rules, wall, ws, wild, hands, flowers, visible,
                                               cur, True, log, n_log, n_kongs)
                if drawn < 0:
                    break
                kong_from = feeder
                just_drew = True
                continue
            # chow
            j = action - P.CLAIM_CHOW
            lo = d - j
            for t in range(3):
                if lo + t != d:
                    hands[claimer, lo + t] -= 1
                    visible[lo + t] += 1
            melds[claimer, m, C.MELD_TYPE] = C.MELD_CHOW
            melds[claimer, m, C.MELD_KIND] = lo
            n_log = log_event(log, n_log, claimer, C.A_CHOW, d, lo, cur, -1)
            n_melds[claimer] = m + 1
            cur = claimer
            if rules[C.R_FORBID_CHOW_SWAP]:
                # kinds that would make the same chow with the two hand tiles
                if j == 1:
                    forbid_a = d            # gap chow: only the claimed kind
                else:
                    forbid_a = d
                    # the other end of the two hand tiles
                    if j == 0:
                        other = lo + 3      # hand tiles lo+1, lo+2 -> lo+3 also
                    else:
                        other = lo - 1      # hand tiles lo, lo+1 -> lo-1 also
                    if (other >= 0 and other // 9 == lo // 9 and other < C.HONOR0
                            and not wild[other]):
                        forbid_b = other    # a wild cannot repeat the chow
            continue
        # -------------------------------------------------- next player draws
        cur = (cur + 1) % 4
        drawn, replaced, n_log = _draw(rules, wall, ws, wild, hands, flowers, visible, cur,
                                       False, log, n_log, n_kongs)
        if drawn < 0:
            break
        just_drew = True
    # ------------------------------------------------------ the end
    if winner < 0:
        n_log = log_event(log, n_log, -1, C.A_EXHAUSTED, -1, -1, -1, -1)
        res[:] = 0
    out[O_OUTCOME] = outcome
    out[O_WINNER] = winner
    out[O_DISCARDER] = discarder
    out[O_TURNS] = discards
    out[O_TILES_LEFT] = W.drawable_left(rules, ws, n_kongs)
    out[O_N_KONGS] = n_kongs
    out[O_WIN_TILE] = win_tile
    out[O_CTX] = win_ctx
    out[O_LIABLE] = liable
    for s in range(4):
        out[O_N_MELDS + s] = n_melds[s]
    if winner >= 0:
        for i in range(C.RES_LEN):
            out[O_SCORE + i] = res[i]
    if rules[C.R_SYSTEM] == C.SYSTEM_FAN_FU:
        _fu_all(rules, state, winner, out)
    out[O_N_EVENTS] = n_log
    return n_log
