"""The game state of one deal (Numba): its arrays, the turn's scalars, the
result row and the event log (docs/rules.md §2, §4 and §5).

``new_state()`` returns a ``Game`` named tuple of arrays, reused from deal to
deal: the wall (``wall``, ``ws``, ``wild``), every seat's concealed tiles
(``hands`` int8[4, 42]) and melds (``melds`` int8[4, 4, 3] type, kind, from),
the public record the policies see (``pub_melds`` with concealed kongs face
down, ``pond`` / ``pond_flags`` / ``n_pond``, ``passed``, ``visible``,
``flowers``, ``fed``), the policies' streams and scratch (``pscr``, and
``pscr_mem``, where the decisions reach it: ``nbsim.kernels.ref``), the scorer's
scratch, the no-leak probe's copies, and ``ts`` (int64[TS_LEN]): the
scalars of the turn (``TS_*`` below).

Outputs: the result row ``out`` (int64[OUT_LEN], layout ``O_*`` below) and,
when ``log`` has rows, the event log (int32[m, EV_LEN], ``codes.A_*``;
``log_event``, ``add_event``).

A search policy's working memory (``Search``, ``new_search``) lives here
too: its playouts run on a ``Game`` built from it (``search_game``).
"""
from collections import namedtuple

import numpy as np
from numba.core import types

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.jit import njit
from nbsim.kernels.policies.catalog import DECISIONS, MAX_PARAMS, POLICY_TABLE, Policies
from nbsim.kernels.policies.view import MAX_POND, scratch_arrays, scratch_of
from nbsim.kernels.ref import STASH_WORDS, RefType
from nbsim.kernels.scoring.scratch import IW_LEN

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

# step results
GO_ON = 0              # the turn goes on (discard next)
NEXT = 1               # restart the loop (a fresh draw or a claim to discard)
ENDED = 2              # the deal ended (a win, or the wall ran out)

Game = namedtuple("Game", (
    "wall", "work", "st", "ws", "wild", "hands", "melds", "n_melds", "pub_melds", "flowers",
    "visible", "fed", "pond", "pond_flags", "n_pond", "passed", "prng", "pscr", "res", "nat",
    "allowed", "opts", "fl8", "fed_row", "fed_col", "chow_ok", "may_win", "no_win", "iw",
    "ts", "hands_bak", "wall_bak", "pool", "prng_bak", "probe_rng", "pts", "pscr_mem"))


# a search policy's working memory (``nbsim.kernels.search.playout``): the arrays
# of the state its playouts run on and of that state's policy scratch (the
# playouts' Game is assembled from them with this Search as its scratch's
# ``search``, so it has the type of every other Game and the playouts run
# the engine that plays the runs), a result row, an empty event log and
# probe, the candidates' statistics and per-sample payments, the world
# builder's scratch, the playouts' policies (``catalog.Policies``; a playout
# never plays a search policy) and the candidates
Search = namedtuple("Search", ("game", "scratch", "out", "log", "probe", "stats", "pays",
                               "pool", "unseen", "st", "pols", "cands"))
SEARCH_CANDS = 8           # candidates one search compares, at most
SEARCH_SAMPLES = 1024      # samples per candidate, at most
SEARCH_STATS = 12          # statistics per candidate (playout.ST_*)


def new_search(n_cands, n_samples):
    """A search policy's working memory for ``n_cands`` candidates of
    ``n_samples`` samples each (``Search``), made by numpy in Python (no
    compiling)."""
    return Search(game_arrays(), scratch_arrays(),
                  np.zeros(OUT_LEN, np.int64), np.zeros((0, C.EV_LEN), np.int32),
                  np.zeros(0, np.int64), np.zeros((n_cands, SEARCH_STATS), np.float64),
                  np.zeros((n_cands, n_samples), np.float64), np.zeros(C.N_TILES, np.uint8),
                  np.zeros(C.N_KINDS, np.int64), np.zeros(rng.RNG_LEN, np.uint64),
                  empty_policies(),
                  np.zeros(n_cands, np.int64))


def _field(t, name):
    """The numba type of field ``name`` of the named-tuple type ``t``."""
    return t.types[t.fields.index(name)]


def engine_signature(rules_t, tables_t, g_t):
    """The numba Signature of the engine's turn loop ``loop.play_from`` as
    the batches and a search's playouts call it, from the numba types of
    the rules array, the lookup tables and a ``Game``: the policy record
    has the type of the Game's ``Search.pols`` (``catalog.Policies``), the
    result row, event log and probe those of the Search (int64[::1],
    int32[:, ::1], int64[::1]), and the five trailing arguments are
    int64."""
    sr_t = _field(_field(g_t, "pscr"), "search")
    args = (rules_t, tables_t, _field(sr_t, "pols"), g_t, _field(sr_t, "out"),
            _field(sr_t, "log"), _field(sr_t, "probe")) + (types.int64,) * 5
    return types.int64(*args)


def scorer_signature(rules_t, tables_t, g_t):
    """The numba Signature of the engine's scorer ``wins.try_win`` as the
    turn loop calls it (``wins.call_scorer``), from the numba types of the
    rules array, the lookup tables and a ``Game``: the state as a Ref
    (``nbsim.kernels.ref``), seven int64 and the result row of a Search
    (int64[::1]); it returns a bool."""
    sr_t = _field(_field(g_t, "pscr"), "search")
    return types.boolean(rules_t, tables_t, RefType(g_t), *(types.int64,) * 7,
                         _field(sr_t, "out"))


def empty_policies():
    """A ``catalog.Policies`` record of four seats with zero codes and
    parameters and no entries (the playouts' record, filled by the search:
    ``search.playout.evaluate_into``), made by numpy in Python."""
    return Policies(np.zeros(4, np.int64), np.zeros((4, MAX_PARAMS), np.float64),
                    np.zeros((len(POLICY_TABLE), len(DECISIONS), 2), np.int64),
                    np.zeros(2, np.int64), np.zeros(2, np.int64))


@njit(cache=True, inline="always")
def search_game(sr):
    """The playouts' ``Game`` over the arrays of the Search ``sr``."""
    return game_of(sr.game, scratch_of(sr.scratch, sr))


def new_state():
    """A fresh ``Game`` state for ``play_deal``, made by numpy in Python (no
    compiling): the batches take it as an argument and reuse it from deal
    to deal. ``game_of`` and ``scratch_of`` assemble it, run as Python
    (their ``py_func``), so a kernel's ``search_game`` builds the same type."""
    sr = new_search(SEARCH_CANDS, SEARCH_SAMPLES)
    return game_of.py_func(game_arrays(), scratch_of.py_func(scratch_arrays(), sr))


@njit(cache=True, inline="always")
def game_of(a, pscr):
    """A ``Game`` of the arrays ``a`` (``game_arrays``) and the policy
    scratch ``pscr``."""
    return Game(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                a[13], a[14], a[15], a[16], pscr, a[17], a[18], a[19], a[20], a[21], a[22], a[23],
                a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33], a[34],
                a[35])


def game_arrays():
    """Fresh arrays of a ``Game``, in its field order less ``pscr`` (numpy,
    in Python)."""
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
        np.zeros(IW_LEN, np.int64),                  # iw: the scorer's scratch
        np.zeros(TS_LEN, np.int64),                    # ts: turn state
        np.zeros((4, C.N_KINDS), np.int8),             # hands_bak (probe)
        np.zeros(C.N_TILES, np.uint8),                 # wall_bak (probe)
        np.zeros(C.N_TILES, np.uint8),                 # pool (probe)
        np.zeros(rng.RNG_LEN, np.uint64),              # prng_bak (probe)
        np.zeros(rng.RNG_LEN, np.uint64),              # probe_rng
        np.zeros(TS_LEN, np.int64),                    # pts: the View's public turn state
        # pscr_mem: the policy scratch as the decisions reach it (``ref.stash``)
        np.zeros(STASH_WORDS, np.int64))


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
def add_event(g, log, seat, action, tile, meld, frm, pos):
    """``log_event`` counting in the turn state (``TS_N_LOG``) of ``g``."""
    g.ts[TS_N_LOG] = log_event(log, g.ts[TS_N_LOG], seat, action, tile, meld, frm, pos)
