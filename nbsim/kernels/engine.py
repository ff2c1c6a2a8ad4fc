"""The game engine (Numba): one deal played from the break to its end.

RULES.md sections 2, 4 and 5. Seats are seat winds: 0 E (the dealer), 1 S,
2 W, 3 N; play goes 0 -> 1 -> 2 -> 3 -> 0. The wall comes from
``nbsim.kernels.wall`` (same seed and deal index -> same wall as deal mode),
decisions from the policies (``nbsim.kernels.policies``: each decision gets
the deciding seat's public ``View`` only, its parameter row and its own
random stream ``rng.STREAM_POLICY + seat``), scoring and payments from
``nbsim.kernels.score.score_one``.

Turn structure
--------------
A player holding 3k+2 tiles after a draw (live wall, or a replacement from
the tail after a kong or a flower) may: win (self-drawn; heavenly on the
dealer's first turn, earthly on a non-dealer's first draw under
``earthly_hand_rule = first_draw``), declare a concealed or added kong (an
added kong can be robbed; a kong draws a replacement and the turn goes on),
then must discard. After a chow the player only discards; after a pung too
when ``no_kong_after_pung``, and then it may make no kong of any kind, an
exposed kong on a later discard included, until its next turn (its next
draw or chow; RULES.md section 4). After a chow the chow-swap kinds are
forbidden when ``forbid_chow_swap``, unless the chow leaves a single tile;
a wild of a forbidden kind may be discarded. A discard is offered to the
other players: a win goes first, to the first player counterclockwise from
the discarder who takes it; then a pung or exposed kong (only one player
can hold two natural copies); then a chow by the next player when
``allow_chow``. Wild tiles are never claimed for a meld and never melded.
With no claim, the next player draws.

Earthly hand under ``first_draw`` (tianyi): a non-dealer's win on its own
first draw when no claim (chow, pung or exposed kong of a discard) has been
made in the deal; concealed kongs and flower replacements do not count.

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

State
-----
``new_state()`` returns a ``Game`` named tuple of arrays, reused from deal to
deal: the wall (``wall``, ``ws``, ``wild``), every seat's concealed tiles
(``hands`` int8[4, 42]) and melds (``melds`` int8[4, 4, 3] type, kind, from),
the public record the policies see (``pub_melds`` with concealed kongs face
down, ``pond`` / ``pond_flags`` / ``n_pond``, ``passed``, ``visible``,
``flowers``, ``fed``), the policies' streams and scratch, the scorer's
scratch, and ``ts`` (int64[TS_LEN]): the scalars of the turn (``TS_*``
below). The loop of ``_play`` is a sequence of named steps on this state.

Outputs: the result row ``out`` (int64[OUT_LEN], layout ``O_*`` below) and,
when ``log`` has rows, the event log (int32[m, EV_LEN], ``codes.A_*``).
"""
from collections import namedtuple

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels import rng
from nbsim.kernels import score as S
from nbsim.kernels import wall as W
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.policies import registry as R
from nbsim.kernels.policies.common import (
    CLAIM_CHOW,
    CLAIM_KONG,
    CLAIM_PASS,
    CLAIM_PUNG,
    split_hand,
    suit_of,
)
from nbsim.kernels.policies.catalog import MAX_PARAMS
from nbsim.kernels.policies.view import (
    MAX_POND,
    POND_CLAIMED,
    POND_DRAWN,
    View,
    scratch_arrays,
    scratch_of,
)
from nbsim.kernels.wilds import wild_mask

# result row layout (int64[OUT_LEN])
O_OUTCOME = 0          # OUT_*
O_WINNER = 1           # seat or -1
O_DISCARDER = 2        # seat or -1 (robbing: the robbed player)
O_TURNS = 3            # discards made
O_TILES_LEFT = 4       # drawable tiles left at the end
O_N_KONGS = 5
O_WIN_TILE = 6         # kind or -1 (a heavenly hand has no winning tile)
O_CTX = 7              # CTX_* flags of the win
O_LIABLE = 8           # Ninghai liable seat or -1
O_N_MELDS = 9          # 4 entries: declared melds per seat
O_FU = 13              # 4 entries: Ninghai fu per seat (the winner's hand fu for the winner)
O_SCORE = 17           # RES_LEN entries: the winner's score_win result
O_N_EVENTS = O_SCORE + C.RES_LEN   # events written (or that would be written)
O_ERROR = O_N_EVENTS + 1           # engine error (0 ok); see E_ENGINE_*
O_FLOWERS_END = O_ERROR + 1        # 4 entries: flowers set aside per seat at the end (bit masks)
OUT_LEN = O_FLOWERS_END + 4

# A constant passed straight to a compiled callee (``f(-1)``, ``f(True)``) is
# typed as a literal, and numba compiles the callee once per distinct
# literal: the scorer was compiled three times over. Constants that reach a
# callee that is not inlined are wrapped (``np.int64(-1)``, ``np.bool_(x)``),
# so that each callee compiles once.
E_ENGINE_OK = 0
E_ENGINE_SCORE = 1     # score_win refused a hand the engine built (a bug)
E_ENGINE_LOOP = 2      # the step limit was reached (a bug)

MAX_STEPS = 2000

# turn state (int64[TS_LEN] in Game.ts)
TS_CUR = 0             # seat to play
TS_JUST_DREW = 1       # cur holds a freshly drawn (or dealt) tile: 0/1
TS_HAS_DRAWN = 2       # cur drew a tile this turn (not the dealer's dealt 14): 0/1
TS_DRAWN = 3           # kind just drawn (the self-drawn winning tile), -1
TS_REPLACED = 4        # drawn from the tail (kong or flower replacement): 0/1
TS_KONG_FROM = 5       # seat whose discard cur konged before this draw, -1
TS_KONG_LOCK = 6       # bit s: seat s punged and may make no kong until its next turn
TS_AFTER_PUNG = 7      # cur has just punged: 0/1
TS_FORBID_A = 8        # chow-swap forbidden kinds, -1
TS_FORBID_B = 9
TS_N_KONGS = 10
TS_DISCARDS = 11
TS_CLAIMS = 12         # chows, pungs and exposed kongs of discards (earthly first_draw)
TS_FIRST_DRAW = 13     # bit s: seat s has drawn (the dealer has no first draw)
TS_OUTCOME = 14
TS_WINNER = 15
TS_DISCARDER = 16
TS_WIN_TILE = 17
TS_WIN_CTX = 18
TS_LIABLE = 19
TS_N_LOG = 20
TS_ROUND_WIND = 21
TS_INDICATOR = 22
TS_EARTHLY_RULE = 23   # EARTHLY_* or -1 (the variant has no earthly hand)
TS_FIRST_LIMITS = 24   # first go-around limits apply to this deal: 0/1
TS_DECISIONS = 25      # policy decisions asked so far (the no-leak probe counts them)
TS_LEN = 26

# the no-leak probe (``probe`` int64[PROBE_LEN], or an empty array: off)
PR_AT = 0              # in: decision number to probe
PR_SEED = 1            # in: seed of the shuffle of the hidden tiles
PR_KIND = 2            # out: decision kind probed (Q_*), -1 if never reached
PR_SEAT = 3            # out: the deciding seat
PR_ANSWER = 4          # out: the decision with the real hidden tiles
PR_SHUFFLED = 5        # out: the decision after shuffling them
PR_MOVED = 6           # out: hidden tiles that changed place (0: nothing to shuffle)
PROBE_LEN = 7
Q_WIN = 0
Q_KONG = 1
Q_CLAIM = 2
Q_DISCARD = 3

# step results
GO_ON = 0              # the turn goes on (discard next)
NEXT = 1               # restart the loop (a fresh draw or a claim to discard)
ENDED = 2              # the deal ended (a win, or the wall ran out)

Game = namedtuple("Game", (
    "wall", "work", "st", "ws", "wild", "hands", "melds", "n_melds", "pub_melds", "flowers",
    "visible", "fed", "pond", "pond_flags", "n_pond", "passed", "prng", "pscr", "res", "nat",
    "allowed", "opts", "fl8", "fed_row", "fed_col", "chow_ok", "may_win", "no_win", "iw",
    "ts", "hands_bak", "wall_bak", "pool", "prng_bak", "probe_rng", "pts"))


# a search policy's working memory (``nbsim.kernels.playout``): the arrays
# of the state its playouts run on and of that state's policy scratch (the
# playouts' Game is assembled from them with this Search as its scratch's
# ``search``, so it has the type of every other Game and the playouts run
# the engine that plays the runs), a result row, an empty event log and
# probe, the candidates' statistics and per-sample payments, and the world
# builder's scratch
Search = namedtuple("Search", ("game", "scratch", "out", "log", "probe", "stats", "pays",
                               "pool", "unseen", "st", "codes", "params", "cands"))
SEARCH_CANDS = 8           # candidates one search compares, at most
SEARCH_SAMPLES = 1024      # samples per candidate, at most
SEARCH_STATS = 12          # statistics per candidate (playout.ST_*)


@njit(cache=True)
def new_search(n_cands, n_samples):
    """A search policy's working memory for ``n_cands`` candidates of
    ``n_samples`` samples each (``Search``)."""
    return Search(_game_arrays(), scratch_arrays(),
                  np.zeros(OUT_LEN, np.int64), np.zeros((0, C.EV_LEN), np.int32),
                  np.zeros(0, np.int64), np.zeros((n_cands, SEARCH_STATS), np.float64),
                  np.zeros((n_cands, n_samples), np.float64), np.zeros(C.N_TILES, np.uint8),
                  np.zeros(C.N_KINDS, np.int64), np.zeros(rng.RNG_LEN, np.uint64),
                  np.zeros(4, np.int64), np.zeros((4, MAX_PARAMS), np.float64),
                  np.zeros(n_cands, np.int64))


@njit(cache=True, inline="always")
def search_game(sr):
    """The playouts' ``Game`` over the arrays of the Search ``sr``."""
    return game_of(sr.game, scratch_of(sr.scratch, sr))


@njit(cache=True)
def new_state():
    """A fresh ``Game`` state for ``play_deal`` (allocate once per batch, reuse)."""
    sr = new_search(SEARCH_CANDS, SEARCH_SAMPLES)
    return game_of(_game_arrays(), scratch_of(scratch_arrays(), sr))


@njit(cache=True, inline="always")
def game_of(a, pscr):
    """A ``Game`` of the arrays ``a`` (``_game_arrays``) and the policy
    scratch ``pscr``."""
    return Game(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                a[13], a[14], a[15], a[16], pscr, a[17], a[18], a[19], a[20], a[21], a[22], a[23],
                a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33], a[34])


@njit(cache=True)
def _game_arrays():
    """Fresh arrays of a ``Game``, in its field order less ``pscr``."""
    return (
        np.zeros(C.N_TILES, np.uint8),                 # wall: tile id per draw-order position
        np.zeros(C.N_TILES, np.uint8),                 # work: shuffle scratch
        np.zeros(rng.RNG_LEN, np.uint64),              # st: the wall stream
        np.zeros(W.WS_LEN, np.int64),                  # ws: wall state
        np.zeros(C.N_KINDS, np.bool_),                 # wild kinds
        np.zeros((4, C.N_KINDS), np.int8),             # hands
        np.zeros((4, C.MAX_MELDS, 3), np.int8),        # melds
        np.zeros(4, np.int64),                         # n_melds
        np.zeros((4, C.MAX_MELDS, 3), np.int8),        # pub_melds
        np.zeros(4, np.uint8),                         # flowers (bit masks)
        np.zeros(C.N_KINDS, np.int8),                  # visible
        np.zeros((4, 4), np.int8),                     # fed
        np.zeros((4, MAX_POND), np.int8),              # pond
        np.zeros((4, MAX_POND), np.int8),              # pond_flags
        np.zeros(4, np.int64),                         # n_pond
        np.zeros((4, C.N_KINDS), np.bool_),            # passed
        np.zeros((4, rng.RNG_LEN), np.uint64),         # prng: the policies' streams
        np.zeros(C.RES_LEN, np.int64),                 # res: the scorer's result
        np.zeros(C.N_PLAY, np.int8),                   # nat
        np.zeros(C.N_KINDS, np.bool_),                 # allowed discards
        np.zeros((8, 2), np.int64),                    # opts: kong options
        np.zeros(C.N_FLOWERS, np.int8),                # fl8
        np.zeros(4, np.int8),                          # fed_row
        np.zeros(4, np.int8),                          # fed_col
        np.zeros(3, np.bool_),                         # chow_ok
        np.zeros(4, np.bool_),                         # may_win
        # known illegal wins, [seat, kind]: on a discard; [seat, N_KINDS + kind]: self-drawn
        np.zeros((4, 2 * C.N_KINDS), np.bool_),        # no_win
        np.zeros(S.IW_LEN, np.int64),                  # iw: the scorer's scratch
        np.zeros(TS_LEN, np.int64),                    # ts: turn state
        np.zeros((4, C.N_KINDS), np.int8),             # hands_bak (probe)
        np.zeros(C.N_TILES, np.uint8),                 # wall_bak (probe)
        np.zeros(C.N_TILES, np.uint8),                 # pool (probe)
        np.zeros(rng.RNG_LEN, np.uint64),              # prng_bak (probe)
        np.zeros(rng.RNG_LEN, np.uint64),              # probe_rng
        np.zeros(TS_LEN, np.int64))                    # pts: the View's public turn state


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


@njit(cache=True, inline="always")
def _log(g, log, seat, action, tile, meld, frm, pos):
    g.ts[TS_N_LOG] = log_event(log, g.ts[TS_N_LOG], seat, action, tile, meld, frm, pos)


# ------------------------------------------------------------------ the public view
@njit(cache=True, inline="always")
def make_view(rules, tables, g, seat):
    """The public ``View`` of ``seat`` (nbsim.kernels.policies.view): its own
    hand and melds, and the table as every player sees it. The public turn
    state ``g.pts`` is the turn state without what ``seat`` cannot know:
    another seat's drawn kind (and the engine's own counters)."""
    ts = g.ts
    pts = g.pts
    for i in range(TS_LEN):
        pts[i] = ts[i]
    if seat != ts[TS_CUR]:
        pts[TS_DRAWN] = -1
    pts[TS_N_LOG] = 0
    pts[TS_DECISIONS] = 0
    return View(rules, tables, seat, ts[TS_CUR], ts[TS_ROUND_WIND], ts[TS_INDICATOR],
                W.drawable_left(rules, g.ws, ts[TS_N_KONGS]), ts[TS_DISCARDS], ts[TS_N_KONGS],
                g.hands[seat], g.melds[seat], g.pub_melds, g.n_melds, g.flowers, g.visible,
                g.wild, g.pond, g.pond_flags, g.n_pond, g.passed, g.fed, g.ws, pts)


@nrt_free(inline="always")
def _hidden_slot(g, ws, p):
    """Whether wall position ``p`` holds a tile the shuffle of hidden tiles
    may move: not the indicator, and not a flower (unless it is wild)."""
    if p == ws[W.WS_INDICATOR]:
        return False
    k = W.tile_kind(np.int64(g.wall[p]))
    return k < C.FLOWER0 or g.wild[k]


@nrt_free
def _shuffle_hidden(g, seat):
    """No-leak probe: shuffle everything ``seat`` cannot see, consistently
    with what it can: the other seats' concealed tiles (each keeps its count;
    non-wild flowers never enter a hand) and the undrawn wall. The current
    hands and wall are saved in ``hands_bak`` / ``wall_bak`` first. Returns
    the number of hidden tiles that changed place."""
    ws = g.ws
    st = g.probe_rng
    for s in range(4):
        for k in range(C.N_KINDS):
            g.hands_bak[s, k] = g.hands[s, k]
    for p in range(C.N_TILES):
        g.wall_bak[p] = g.wall[p]
    # the pool: the others' concealed tiles (as tile ids of their kind) and the
    # undrawn wall positions that hold no non-wild flower, in a scratch order
    pool = g.pool
    n = 0
    for s in range(4):
        if s == seat:
            continue
        for k in range(C.N_KINDS):
            for c in range(g.hands[s, k]):
                pool[n] = k * 4 + c if k < C.N_PLAY else 102 + k
                n += 1
    lo = ws[W.WS_LIVE]
    hi = ws[W.WS_TAIL]
    for p in range(lo, hi + 1):
        if _hidden_slot(g, ws, p):
            pool[n] = g.wall[p]
            n += 1
    for i in range(n - 1, 0, -1):
        j = rng.below(st, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    # deal the pool back: the hands first (same counts), then the wall slots
    j = 0
    for s in range(4):
        if s == seat:
            continue
        cnt = 0
        for k in range(C.N_KINDS):
            cnt += g.hands[s, k]
            g.hands[s, k] = 0
        for _ in range(cnt):
            g.hands[s, W.tile_kind(np.int64(pool[j]))] += 1
            j += 1
    for p in range(lo, hi + 1):
        if _hidden_slot(g, ws, p):
            g.wall[p] = pool[j]
            j += 1
    moved = 0
    for s in range(4):
        for k in range(C.N_KINDS):
            d = g.hands[s, k] - g.hands_bak[s, k]
            moved += d if d > 0 else 0
    for p in range(lo, hi + 1):
        if g.wall[p] != g.wall_bak[p]:
            moved += 1
    return moved


@nrt_free
def _restore_hidden(g):
    for s in range(4):
        for k in range(C.N_KINDS):
            g.hands[s, k] = g.hands_bak[s, k]
    for p in range(C.N_TILES):
        g.wall[p] = g.wall_bak[p]


@njit(cache=True, inline="always")
def _probe_due(g, probe):
    """Count a decision; True when it is the one the probe asks for."""
    i = g.ts[TS_DECISIONS]
    g.ts[TS_DECISIONS] = i + 1
    return probe.shape[0] > 0 and probe[PR_AT] == i


@nrt_free
def _probe_begin(g, probe, seat):
    for i in range(rng.RNG_LEN):
        g.prng_bak[i] = g.prng[seat, i]
    rng.stream_init(np.uint64(probe[PR_SEED]), probe[PR_AT], rng.STREAM_USER, g.probe_rng)


@nrt_free
def _probe_swap(g, probe, seat):
    """Between the two answers: rewind the seat's stream and shuffle."""
    for i in range(rng.RNG_LEN):
        g.prng[seat, i] = g.prng_bak[i]
    probe[PR_MOVED] = _shuffle_hidden(g, seat)


@nrt_free
def _probe_end(g, probe, kind, seat, answer, shuffled):
    _restore_hidden(g)
    probe[PR_KIND] = kind
    probe[PR_SEAT] = seat
    probe[PR_ANSWER] = answer
    probe[PR_SHUFFLED] = shuffled


# ------------------------------------------------------------------ decisions
@nrt_free
def _ask_win(rules, tables, g, policies, params, probe, seat, tile, win_by):
    """Does ``seat`` take its legal win on ``tile``?"""
    code = policies[seat]
    due = _probe_due(g, probe)
    if due:
        _probe_begin(g, probe, seat)
    v = make_view(rules, tables, g, seat)
    a = R.want_win(code, v, params[seat], g.prng[seat], g.pscr, tile, win_by)
    if due:
        _probe_swap(g, probe, seat)
        v2 = make_view(rules, tables, g, seat)
        b = R.want_win(code, v2, params[seat], g.prng[seat], g.pscr, tile, win_by)
        _probe_end(g, probe, np.int64(Q_WIN), seat, 1 if a else 0, 1 if b else 0)
    return a


@nrt_free(inline="always")
def _ask_kong(rules, tables, g, policies, params, probe, seat, n_opt):
    code = policies[seat]
    due = _probe_due(g, probe)
    if due:
        _probe_begin(g, probe, seat)
    v = make_view(rules, tables, g, seat)
    a = R.choose_kong(code, v, params[seat], g.prng[seat], g.pscr, g.opts, n_opt)
    if due:
        _probe_swap(g, probe, seat)
        v2 = make_view(rules, tables, g, seat)
        b = R.choose_kong(code, v2, params[seat], g.prng[seat], g.pscr, g.opts, n_opt)
        _probe_end(g, probe, np.int64(Q_KONG), seat, a, b)
    return a


@nrt_free
def _ask_claim(rules, tables, g, policies, params, probe, seat, tile, can_pung, can_kong):
    code = policies[seat]
    due = _probe_due(g, probe)
    if due:
        _probe_begin(g, probe, seat)
    v = make_view(rules, tables, g, seat)
    a = R.choose_claim(code, v, params[seat], g.prng[seat], g.pscr, tile, can_pung, can_kong,
                       g.chow_ok)
    if due:
        _probe_swap(g, probe, seat)
        v2 = make_view(rules, tables, g, seat)
        b = R.choose_claim(code, v2, params[seat], g.prng[seat], g.pscr, tile, can_pung,
                           can_kong, g.chow_ok)
        _probe_end(g, probe, np.int64(Q_CLAIM), seat, a, b)
    return a


@nrt_free(inline="always")
def _ask_discard(rules, tables, g, policies, params, probe, seat):
    code = policies[seat]
    due = _probe_due(g, probe)
    if due:
        _probe_begin(g, probe, seat)
    v = make_view(rules, tables, g, seat)
    a = R.choose_discard(code, v, params[seat], g.prng[seat], g.pscr, g.allowed)
    if due:
        _probe_swap(g, probe, seat)
        v2 = make_view(rules, tables, g, seat)
        b = R.choose_discard(code, v2, params[seat], g.prng[seat], g.pscr, g.allowed)
        _probe_end(g, probe, np.int64(Q_DISCARD), seat, a, b)
    return a


# ------------------------------------------------------------------ helpers
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


@nrt_free
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
    err = S.score_one(rules, tables, g.hands[seat], g.melds[seat], g.n_melds[seat], g.fl8,
                      tile, win_by, ctx, seat, g.ts[TS_ROUND_WIND], g.ts[TS_INDICATOR],
                      discarder, g.fed_row, g.fed_col, kong_from, liable, g.res, g.iw)
    if err != C.OK:
        out[O_ERROR] = E_ENGINE_SCORE
        return False
    return g.res[C.RES_WIN] == 1


@nrt_free
def _liable(rules, tables, g, winner, discarder, tile):
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


@nrt_free
def _draw(rules, wall, ws, wild, hands, flowers, visible, ts, log, seat, from_tail):
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
def _draw_for(rules, g, seat, from_tail, log):
    """``_draw`` for ``seat`` with the arrays of the state ``g``."""
    return _draw(rules, g.wall, g.ws, g.wild, g.hands, g.flowers, g.visible, g.ts, log, seat,
                 np.bool_(from_tail))


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
def _add_meld(g, seat, typ, kind, frm):
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


@nrt_free
def _fu_all(rules, g, winner, out):
    """Ninghai: each player's own fu (the winner's from its score)."""
    for s in range(4):
        if s == winner:
            out[O_FU + s] = g.res[C.RES_FU]
            continue
        for f in range(C.N_FLOWERS):
            g.fl8[f] = 1 if g.flowers[s] & (1 << f) else 0
        out[O_FU + s] = S.player_fu(rules, g.hands[s], g.melds[s], g.n_melds[s], g.fl8)


@nrt_free
def _set_win(g, outcome, winner, discarder, tile, ctx, liable):
    ts = g.ts
    ts[TS_OUTCOME] = outcome
    ts[TS_WINNER] = winner
    ts[TS_DISCARDER] = discarder
    ts[TS_WIN_TILE] = tile
    ts[TS_WIN_CTX] = ctx
    ts[TS_LIABLE] = liable


# ------------------------------------------------------------------ the steps of a turn
@nrt_free(inline="always")
def _start(rules, tables, seed, deal, round_wind, restrict_first, g, out, log, dealt_hands,
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
def _offer_self_draw(rules, tables, g, policies, params, probe, out, log):
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
        won = try_win(rules, tables, g, cur, drawn, C.WIN_SELF_DRAW, ctx, np.int64(-1), kong_from,
                       np.int64(-1), out)
        if not won and ctx == 0:
            # complete but not a legal self-drawn win: the same until cur's
            # hand or flowers change (_update_may_win forgets it)
            g.no_win[cur, C.N_KINDS + drawn] = True
    g.hands[cur, drawn] += 1
    if won:
        if _ask_win(rules, tables, g, policies, params, probe, cur, drawn, C.WIN_SELF_DRAW):
            _set_win(g, C.OUT_SELF_DRAWN, cur, np.int64(-1), drawn, ctx, np.int64(-1))
            _log(g, log, cur, C.A_WIN, drawn, C.WIN_SELF_DRAW, -1, -1)
            return True
        _log(g, log, cur, C.A_PASS_WIN, drawn, C.WIN_SELF_DRAW, -1, -1)
    return False


@nrt_free(inline="always")
def _robbed(rules, tables, g, policies, params, probe, out, log, cur, k):
    """Offer the tile of cur's added kong of ``k`` to the others
    (counterclockwise): True when one robs it (the deal ends)."""
    for d in range(1, 4):
        o = (cur + d) % 4
        if (g.may_win[o] and complete_with(tables, g.wild, g.hands[o], g.nat, k)
                and try_win(rules, tables, g, o, k, C.WIN_ROBBING_KONG, np.int64(0), cur,
                             np.int64(-1), np.int64(-1), out)):
            if _ask_win(rules, tables, g, policies, params, probe, o, k, C.WIN_ROBBING_KONG):
                _set_win(g, C.OUT_ROBBING_KONG, o, cur, k, np.int64(0), np.int64(-1))
                _log(g, log, o, C.A_WIN, k, C.WIN_ROBBING_KONG, cur, -1)
                return True
            _log(g, log, o, C.A_PASS_WIN, k, C.WIN_ROBBING_KONG, cur, -1)
        g.passed[o, k] = True
    return False


@nrt_free(inline="always")
def _own_kong(rules, tables, g, policies, params, probe, out, log):
    """Own-turn kongs: the seat to play may declare a concealed or an added
    kong (an added kong may be robbed), then draws a replacement. Returns
    GO_ON (no kong: discard next), NEXT (kong made, replacement drawn) or
    ENDED (robbed, or no replacement)."""
    ts = g.ts
    cur = ts[TS_CUR]
    if (ts[TS_KONG_LOCK] >> cur) & 1:
        return GO_ON
    if ts[TS_FIRST_LIMITS] and ts[TS_DISCARDS] < 4:
        return GO_ON
    if W.drawable_left(rules, g.ws, ts[TS_N_KONGS] + 1) <= 0:
        return GO_ON
    n_opt = _kong_options(g.wild, g.hands[cur], g.melds[cur], g.n_melds[cur], g.opts)
    if n_opt == 0:
        return GO_ON
    j = _ask_kong(rules, tables, g, policies, params, probe, cur, n_opt)
    if j < 0:
        return GO_ON
    typ = g.opts[j, 0]
    k = g.opts[j, 1]
    if typ == C.MELD_KONG:
        # added kong: declared, then the others may rob it
        g.hands[cur, k] -= 1
        _log(g, log, cur, C.A_ADDED_KONG, k, -1, -1, -1)
        g.visible[k] += 1
        if _robbed(rules, tables, g, policies, params, probe, out, log, cur, k):
            return ENDED
        for i in range(g.n_melds[cur]):
            if g.melds[cur, i, C.MELD_TYPE] == C.MELD_PUNG and g.melds[cur, i, C.MELD_KIND] == k:
                g.melds[cur, i, C.MELD_TYPE] = C.MELD_KONG
                g.pub_melds[cur, i, C.MELD_TYPE] = C.MELD_KONG
    else:
        g.hands[cur, k] -= 4
        _add_meld(g, cur, C.MELD_CKONG, k, np.int64(-1))
        _log(g, log, cur, C.A_CONCEALED_KONG, k, -1, -1, -1)
    ts[TS_N_KONGS] += 1
    ts[TS_KONG_FROM] = -1
    ts[TS_AFTER_PUNG] = 0
    if not _draw_for(rules, g, cur, True, log):
        return ENDED
    return NEXT


@nrt_free(inline="always")
def _allowed_discards(g):
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
def _apply_discard(tables, g, log, d):
    """The seat to play discards the kind ``d`` (one it holds): the pond,
    the visible copies, the passed marks and its win filter follow."""
    ts = g.ts
    cur = ts[TS_CUR]
    hand = g.hands[cur]
    hand[d] -= 1
    g.visible[d] += 1
    ts[TS_DISCARDS] += 1
    _log(g, log, cur, C.A_DISCARD, d, -1, -1, -1)
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
def _offer_discard_win(rules, tables, g, policies, params, probe, out, log, d):
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
        lia = _liable(rules, tables, g, o, cur, d)
        legal = try_win(rules, tables, g, o, d, C.WIN_DISCARD, ctx, cur, np.int64(-1), lia, out)
        if not legal and ctx == 0:
            # complete but not a legal discard win: the same until o's hand
            # changes (fed counts only change payments)
            g.no_win[o, d] = True
        if legal:
            if _ask_win(rules, tables, g, policies, params, probe, o, d, C.WIN_DISCARD):
                _set_win(g, C.OUT_DISCARD, o, cur, d, ctx, lia)
                g.visible[d] -= 1
                _log(g, log, o, C.A_WIN, d, C.WIN_DISCARD, cur, -1)
                return True
            _log(g, log, o, C.A_PASS_WIN, d, C.WIN_DISCARD, cur, -1)
    for dd in range(1, 4):
        g.passed[(cur + dd) % 4, d] = True
    return False


@nrt_free(inline="always")
def _claim(rules, tables, g, policies, params, probe, log, d):
    """Pung, exposed kong or chow of the discard ``d``. Returns GO_ON (no
    claim: the next seat draws), NEXT (claimed: the claimer plays on) or
    ENDED (the wall ran out on a kong's replacement)."""
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
        if hands[o, d] >= 2:
            can_k = (hands[o, d] == 3 and not (ts[TS_KONG_LOCK] >> o) & 1
                     and W.drawable_left(rules, g.ws, ts[TS_N_KONGS] + 1) > 0)
            g.chow_ok[:] = False
            a = _ask_claim(rules, tables, g, policies, params, probe, o, d, np.bool_(True),
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
            a = _ask_claim(rules, tables, g, policies, params, probe, o, d, np.bool_(False),
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
        _add_meld(g, claimer, C.MELD_PUNG, d, cur)
        _log(g, log, claimer, C.A_PUNG, d, d, cur, -1)
        ts[TS_CUR] = claimer
        if rules[C.R_NO_KONG_AFTER_PUNG]:
            ts[TS_KONG_LOCK] |= 1 << claimer
        ts[TS_AFTER_PUNG] = 1
        return NEXT
    if action == CLAIM_KONG:
        hands[claimer, d] -= 3
        g.visible[d] += 3
        _add_meld(g, claimer, C.MELD_KONG, d, cur)
        _log(g, log, claimer, C.A_KONG, d, d, cur, -1)
        ts[TS_N_KONGS] += 1
        ts[TS_CUR] = claimer
        if not _draw_for(rules, g, claimer, True, log):
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
    _add_meld(g, claimer, C.MELD_CHOW, lo, cur)
    _log(g, log, claimer, C.A_CHOW, d, lo, cur, -1)
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


@nrt_free(inline="always")
def _finish(rules, g, out):
    """Write the result row from the end of the deal."""
    ts = g.ts
    winner = ts[TS_WINNER]
    if winner < 0:
        g.res[:] = 0
    out[O_OUTCOME] = ts[TS_OUTCOME]
    out[O_WINNER] = winner
    out[O_DISCARDER] = ts[TS_DISCARDER]
    out[O_TURNS] = ts[TS_DISCARDS]
    out[O_TILES_LEFT] = W.drawable_left(rules, g.ws, ts[TS_N_KONGS])
    out[O_N_KONGS] = ts[TS_N_KONGS]
    # the dealer's dealt 14 tiles have no winning tile (the scorer took one
    # tile out only to score them)
    out[O_WIN_TILE] = -1 if ts[TS_WIN_CTX] & C.CTX_HEAVENLY else ts[TS_WIN_TILE]
    out[O_CTX] = ts[TS_WIN_CTX]
    out[O_LIABLE] = ts[TS_LIABLE]
    for s in range(4):
        out[O_N_MELDS + s] = g.n_melds[s]
        out[O_FLOWERS_END + s] = g.flowers[s]
    if winner >= 0:
        for i in range(C.RES_LEN):
            out[O_SCORE + i] = g.res[i]
    if rules[C.R_SYSTEM] == C.SYSTEM_FAN_FU:
        _fu_all(rules, g, winner, out)


@nrt_free
def play_from(rules, tables, policies, params, g, out, log, probe, first_discard):
    """Play from the state ``g`` to the end of the deal and write the result
    row ``out`` (int64[OUT_LEN]; the payments are out[O_SCORE + RES_PAY + s]).

    ``first_discard``: -1 to start at the top of a turn (the seat to play
    may win, kong, then discards), or the kind the seat to play has already
    chosen to discard: the lookahead's playouts start here from a state
    built mid-deal (``nbsim.kernels.playout``). policies, params, log and
    probe as ``play_deal``. Returns the number of events."""
    ts = g.ts
    out[:] = 0
    out[O_WINNER] = -1
    out[O_DISCARDER] = -1
    out[O_WIN_TILE] = -1
    out[O_LIABLE] = -1
    steps = 0
    d = first_discard
    while True:
        steps += 1
        if steps > MAX_STEPS:
            out[O_ERROR] = E_ENGINE_LOOP
            break
        if d < 0:
            if ts[TS_JUST_DREW]:
                if _offer_self_draw(rules, tables, g, policies, params, probe, out, log):
                    break
            if ts[TS_JUST_DREW] or ts[TS_AFTER_PUNG]:
                r = _own_kong(rules, tables, g, policies, params, probe, out, log)
                if r == ENDED:
                    break
                if r == NEXT:
                    continue
            _allowed_discards(g)
            d = _ask_discard(rules, tables, g, policies, params, probe, ts[TS_CUR])
        _apply_discard(tables, g, log, d)
        if _offer_discard_win(rules, tables, g, policies, params, probe, out, log, d):
            break
        if W.drawable_left(rules, g.ws, ts[TS_N_KONGS]) <= 0:
            break
        r = _claim(rules, tables, g, policies, params, probe, log, d)
        d = -1
        if r == ENDED:
            break
        if r == NEXT:
            continue
        # the next seat draws: its turn begins (a kong lock from its pung ends)
        nxt = (ts[TS_CUR] + 1) % 4
        ts[TS_CUR] = nxt
        ts[TS_KONG_LOCK] &= ~(1 << nxt)
        if not _draw_for(rules, g, nxt, False, log):
            break
    if ts[TS_WINNER] < 0:
        _log(g, log, -1, C.A_EXHAUSTED, -1, -1, -1, -1)
    _finish(rules, g, out)
    n_log = ts[TS_N_LOG]
    out[O_N_EVENTS] = n_log
    return n_log


@nrt_free
def _play(rules, tables, seed, deal, round_wind, restrict_first, policies, params, g, out,
          log, dealt_hands, dealt_flowers, probe):
    """The deal from a set-up wall (the state's wall, ws and wild) to its end."""
    _start(rules, tables, seed, deal, round_wind, restrict_first, g, out, log, dealt_hands,
           dealt_flowers)
    return play_from(rules, tables, policies, params, g, out, log, probe, np.int64(-1))


# ------------------------------------------------------------------ compiling in parts
# ``nbsim.warmup`` compiles the game engine in two processes: one compiles
# the scorer (``warm_scorer``) and the parts that call no policy
# (``warm_parts``) while the other compiles the policies
# (``warm_policies``) and then the rest of the engine, which loads them
# from the cache. Each probe calls what the engine calls with the engine's
# argument types (so that its compiled code is what the engine looks up),
# and runs none of it unless ``run`` is true.
@njit(cache=True)
def warm_scorer(rules, tables, run):
    """Compile ``try_win`` (the scorer, the engine's largest part) as
    ``_play`` calls it. rules: int64[R_LEN] (read-only); run: bool."""
    g = new_state()
    out = np.zeros(OUT_LEN, np.int64)
    z = np.int64(0)
    if run:
        try_win(rules, tables, g, z, z, np.int64(C.WIN_SELF_DRAW), z, np.int64(-1),
                 np.int64(-1), np.int64(-1), out)
    return out[O_ERROR]


@njit(cache=True)
def warm_parts(rules, tables, run):
    """Compile the parts of the engine that call neither a policy nor the
    scorer (the wall and the draws, melds, win checks, Ninghai liability
    and fu, recording a win) as ``play_deal`` and ``_play`` call them, so
    that the process that compiles the scorer compiles them too.
    rules: int64[R_LEN] (read-only); run: bool."""
    g = new_state()
    out = np.zeros(OUT_LEN, np.int64)
    log = np.zeros((0, C.EV_LEN), np.int32)
    z = np.int64(0)
    r = 0
    if run:
        W.wall_setup(rules, np.uint64(0), z, True, g.wall, g.work, g.st, g.ws, g.wild)
        n_log = W.log_setup(g.ws, log, 0)
        r += W.deal_hands(g.wall, g.ws, g.wild, g.hands, g.flowers, log, n_log)
        rng.stream_init(np.uint64(0), z, rng.STREAM_POLICY + z, g.prng[z])
        update_may_win(tables, g.wild, g.hands[z], g.n_melds[z], g.nat, g.may_win, g.no_win, z)
        if complete_with(tables, g.wild, g.hands[z], g.nat, z):
            r += 1
        r += _liable(rules, tables, g, z, z, z)
        r += W.drawable_left(rules, g.ws, g.ts[TS_N_KONGS])
        r += _kong_options(g.wild, g.hands[z], g.melds[z], g.n_melds[z], g.opts)
        _add_meld(g, z, C.MELD_PUNG, z, z)
        _add_meld(g, z, C.MELD_KONG, z, z)
        _add_meld(g, z, C.MELD_CHOW, z, z)
        _add_meld(g, z, C.MELD_CKONG, z, np.int64(-1))
        if _draw_for(rules, g, z, True, log):
            r += 1
        if _draw_for(rules, g, z, False, log):
            r += 1
        _fu_all(rules, g, z, out)
        _set_win(g, C.OUT_SELF_DRAWN, z, np.int64(-1), z, z, np.int64(-1))
        _set_win(g, C.OUT_ROBBING_KONG, z, z, z, np.int64(0), np.int64(-1))
        _set_win(g, C.OUT_DISCARD, z, z, z, z, z)
    return r


@njit(cache=True)
def warm_policies(rules, tables, policies, params, run):
    """Compile every policy's four decisions as ``_play`` calls them.
    policies: int64[4]; params: float64[4, MAX_PARAMS]; run: bool."""
    g = new_state()
    probe = np.zeros(0, np.int64)
    z = np.int64(0)
    r = 0
    if run:
        if _ask_win(rules, tables, g, policies, params, probe, z, z, np.int64(C.WIN_SELF_DRAW)):
            r += 1
        r += _ask_claim(rules, tables, g, policies, params, probe, z, z, np.bool_(True),
                        np.bool_(False))
        r += _ask_kong(rules, tables, g, policies, params, probe, z, z)
        r += _ask_discard(rules, tables, g, policies, params, probe, z)
    return r


@njit(cache=True, inline="always")
def play_deal(rules, tables, seed, deal, round_wind, restrict_first, policies, params, g,
              out, log, dealt_hands, dealt_flowers, probe):
    """Play deal ``deal`` of seed ``seed`` to its end.

    rules: int64[R_LEN]; tables: nbsim.tables.load_tables(); seed: uint64;
    deal: int (the wall is deal mode's wall of (seed, deal)); round_wind: 0..3;
    restrict_first: bool, apply the first go-around limits of
    ``first_round_restrictions`` to this deal; policies: int64[4] policy codes
    per seat (seat 0 = the dealer; ``policies.catalog``); params:
    float64[4, MAX_PARAMS] each seat's policy parameters; g: ``new_state()``;
    out: int64[OUT_LEN] (written); log: int32[m, EV_LEN] event rows (m = 0: no
    log); dealt_hands int8[4, 42] and dealt_flowers uint8[4] (written): the
    hands and set-aside flowers right after the deal and flower replacement;
    probe: int64[PROBE_LEN] to check one decision for hidden information
    (``PR_*``), or an empty array. Returns the number of events (which may
    exceed m: only the first m are written).
    """
    W.wall_setup(rules, seed, deal, True, g.wall, g.work, g.st, g.ws, g.wild)
    return _play(rules, tables, seed, deal, round_wind, restrict_first, policies, params, g,
                 out, log, dealt_hands, dealt_flowers, probe)


@njit(cache=True)
def play_wall(rules, tables, tiles, dice, indicator_pos, seed, deal, round_wind,
              restrict_first, policies, params, g, out, log, dealt_hands, dealt_flowers,
              probe):
    """Play a deal from a given wall (constructed walls in tests, replays of
    recorded walls): ``tiles`` uint8[144] physical tile ids in draw order
    (position 0 is the first live tile, 143 the first tail tile, see
    ``kernels/wall.py``), ``dice`` int64[4] (for the record only),
    ``indicator_pos`` the indicator's position or -1. The policies' random
    streams are those of (seed, deal). Otherwise as ``play_deal``."""
    wall, ws, wild = g.wall, g.ws, g.wild
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
    return _play(rules, tables, seed, deal, round_wind, restrict_first, policies, params, g,
                 out, log, dealt_hands, dealt_flowers, probe)
