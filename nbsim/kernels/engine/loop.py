"""The game engine (Numba): one deal played from the break to its end.

docs/rules.md §2, §4 and §5. Seats are seat winds: 0 E (the dealer), 1 S,
2 W, 3 N; play goes 0 -> 1 -> 2 -> 3 -> 0. The wall comes from
``nbsim.kernels.wall`` (same seed and deal index -> same wall as deal mode),
decisions from the policies (``nbsim.kernels.policies``: each decision gets
the deciding seat's public ``View`` only, its parameter row and its own
random stream ``rng.STREAM_POLICY + seat``), scoring and payments from
``nbsim.kernels.scoring.score.score_one`` (through ``engine.wins.try_win``).
The turn loop calls the decisions, the scorer and, from the batches, itself
by their addresses (``nbsim.kernels.entry``; the entries are in the seats'
policy record, ``policy_record``): each is compiled once, apart, and the
three compile in parallel (``nbsim.warmup``).

This module is the turn loop (``play_from``) and its entries (``play_deal``,
``play_wall``). The engine's other modules, one job each:

* ``engine.state``: the ``Game`` state, the turn state ``TS_*``, the result
  row ``O_*``, the event log, a search policy's ``Search``;
* ``engine.probe``: the no-leak probe (``PR_*``, ``Q_*``);
* ``engine.decisions``: the public ``View`` and the four decisions asked of
  the policies;
* ``engine.wins``: win checks, the scorer's verdict, Ninghai liability and fu;
* ``engine.moves``: draws, own-turn kong options, declared melds;
* ``engine.turn``: the steps of a turn (deal set-up, self-drawn win, kongs,
  discards, wins on a discard);
* ``engine.claims``: pungs, exposed kongs and chows of a discard.

Callers import each name from the module that defines it
(``engine.state.TS_CUR``, ``engine.state.new_state``, ...).

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
draw or chow; docs/rules.md §4). After a chow the chow-swap kinds are
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
replacement tile to draw (documented choice; docs/rules.md is silent).

Constants passed to compiled callees
------------------------------------
A constant passed straight to a compiled callee (``f(-1)``, ``f(True)``) is
typed as a literal, and numba compiles the callee once per distinct
literal. Constants that reach a callee that is not inlined are wrapped
(``np.int64(-1)``, ``np.bool_(x)``), so that each callee (the scorer above
all) compiles once.
"""
import numba
import numpy as np
from numba import types

from nbsim.kernels import codes as C
from nbsim.kernels import wall as W
from nbsim.kernels.engine.claims import claim_discard
from nbsim.kernels.engine.decisions import ask_discard, decision_argtypes
from nbsim.kernels.engine.moves import draw_for
from nbsim.kernels.engine.state import (
    E_ENGINE_LOOP,
    ENDED,
    MAX_STEPS,
    NEXT,
    O_CTX,
    O_DISCARDER,
    O_ERROR,
    O_FLOWERS_END,
    O_LIABLE,
    O_N_EVENTS,
    O_N_KONGS,
    O_N_MELDS,
    O_OUTCOME,
    O_SCORE,
    O_TILES_LEFT,
    O_TURNS,
    O_WIN_TILE,
    O_WINNER,
    TS_AFTER_PUNG,
    TS_CUR,
    TS_DISCARDER,
    TS_DISCARDS,
    TS_JUST_DREW,
    TS_KONG_LOCK,
    TS_LIABLE,
    TS_N_KONGS,
    TS_N_LOG,
    TS_OUTCOME,
    TS_WIN_CTX,
    TS_WIN_TILE,
    TS_WINNER,
    add_event,
    engine_signature,
    new_state,
    scorer_signature,
)
from nbsim.kernels.engine.turn import (
    allowed_discards,
    apply_discard,
    offer_discard_win,
    offer_self_draw,
    own_kong,
    start_deal,
)
from nbsim.kernels.engine.wins import fu_all, try_win
from nbsim.kernels.entry import KernelEntry, call
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.policies.catalog import (
    DECISIONS,
    MAX_PARAMS,
    POLICY_TABLE,
    Policies,
    played_codes,
)
from nbsim.kernels.policies.registry import decision_entries
from nbsim.kernels.ref import ref_of, stash
from nbsim.kernels.wilds import wild_mask

# what callers use from here: the state's and the probe's layouts, the
# helpers the lookahead's playouts call, the warm-up probes (``rng`` and
# the probe's two private names for tests/test_no_leak.py)
__all__ = ["decision_pairs", "engine_entry", "play_deal", "play_from", "play_wall",
           "policy_record", "scorer_entry"]


@nrt_free(inline="always")
def finish_deal(rules, g, out):
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
        fu_all(rules, g, winner, out)


@nrt_free
def play_from(rules, tables, pols, game, out, log, probe, first_discard, claim_seat,
              claim_q, claim_action, kong_kind):
    """Play from the state ``game`` to the end of the deal and write the result
    row ``out`` (int64[OUT_LEN]; the payments are out[O_SCORE + RES_PAY + s]).

    ``first_discard``: -1 to start at the top of a turn (the seat to play
    may win, kong, then discards), or the kind the seat to play has already
    chosen to discard: the lookahead's playouts start here from a state
    built mid-deal (``nbsim.kernels.search.playout``). ``claim_seat`` >= 0: that
    discard is already made and nobody won on it; play starts at its claims
    with ``claim_seat``'s answer to question ``claim_q`` fixed to
    ``claim_action`` (``engine.claims.claim_discard``); -1 for the others.
    ``kong_kind``: -2 asks every kong question; -1 or a kind fixes the
    first own-turn kong answer of the seat to play (decline, or the kong of
    that kind: ``engine.turn.own_kong``), as the lookahead's kong search
    plays it. ``game``: the state (a ``Game``; the turn's functions get it
    as a Ref: ``nbsim.kernels.ref``). pols, log and probe as ``play_deal``.
    Returns the number of events."""
    g = ref_of(game)
    stash(g.pscr_mem, g.pscr)     # what the decisions' scratch Refs point to
    ts = g.ts
    out[:] = 0
    out[O_WINNER] = -1
    out[O_DISCARDER] = -1
    out[O_WIN_TILE] = -1
    out[O_LIABLE] = -1
    steps = 0
    d = first_discard
    fs = claim_seat
    kk = kong_kind
    while True:
        steps += 1
        if steps > MAX_STEPS:
            out[O_ERROR] = E_ENGINE_LOOP
            break
        if fs < 0:
            if d < 0:
                if ts[TS_JUST_DREW]:
                    if offer_self_draw(rules, tables, g, pols, probe, out, log):
                        break
                if ts[TS_JUST_DREW] or ts[TS_AFTER_PUNG]:
                    r = own_kong(rules, tables, g, pols, probe, out, log, kk)
                    kk = np.int64(-2)
                    if r == ENDED:
                        break
                    if r == NEXT:
                        continue
                allowed_discards(g)
                d = ask_discard(rules, tables, g, pols, probe, ts[TS_CUR])
            apply_discard(tables, g, log, d)
            if offer_discard_win(rules, tables, g, pols, probe, out, log, d):
                break
            if W.drawable_left(rules, g.ws, ts[TS_N_KONGS]) <= 0:
                break
        r = claim_discard(rules, tables, g, pols, probe, log, d, fs, claim_q,
                          claim_action)
        fs = -1
        d = -1
        kk = np.int64(-2)
        if r == ENDED:
            break
        if r == NEXT:
            continue
        # the next seat draws: its turn begins (a kong lock from its pung ends)
        nxt = (ts[TS_CUR] + 1) % 4
        ts[TS_CUR] = nxt
        ts[TS_KONG_LOCK] &= ~(1 << nxt)
        if not draw_for(rules, g, nxt, False, log):
            break
    if ts[TS_WINNER] < 0:
        add_event(g, log, -1, C.A_EXHAUSTED, -1, -1, -1, -1)
    finish_deal(rules, g, out)
    n_log = ts[TS_N_LOG]
    out[O_N_EVENTS] = n_log
    return n_log


@nrt_free(kernel_only=True)
def _play(rules, tables, seed, deal, round_wind, restrict_first, pols, g, out,
          log, dealt_hands, dealt_flowers, probe):
    """The deal from a set-up wall (the state's wall, ws and wild) to its
    end: ``play_from`` called by its address (``pols.engine``)."""
    start_deal(rules, tables, seed, deal, round_wind, restrict_first, g, out, log, dealt_hands,
               dealt_flowers)
    return call(pols.engine[0], pols.engine[1], types.int64,
                (rules, tables, pols, g, out, log, probe, np.int64(-1), np.int64(-1),
                 np.int64(0), np.int64(0), np.int64(-2)))


@njit(cache=True, inline="always")
def play_deal(rules, tables, seed, deal, round_wind, restrict_first, pols, g,
              out, log, dealt_hands, dealt_flowers, probe):
    """Play deal ``deal`` of seed ``seed`` to its end.

    rules: int64[R_LEN]; tables: nbsim.rules.lookups.load_tables(); seed: uint64;
    deal: int (the wall is deal mode's wall of (seed, deal)); round_wind: 0..3;
    restrict_first: bool, apply the first go-around limits of
    ``first_round_restrictions`` to this deal; pols: the seats' policies
    (``policies.catalog.Policies``, from ``policy_record``: int64[4]
    policy codes per seat, seat 0 the dealer, float64[4, MAX_PARAMS]
    parameter rows, and the entries of the policies' decisions, of the
    engine's turn loop ``play_from`` and of its scorer ``wins.try_win``,
    called by their addresses: a compiled caller does not link them and
    emit their code again); g: ``new_state()``;
    out: int64[OUT_LEN] (written); log: int32[m, EV_LEN] event rows (m = 0: no
    log); dealt_hands int8[4, 42] and dealt_flowers uint8[4] (written): the
    hands and set-aside flowers right after the deal and flower replacement;
    probe: int64[PROBE_LEN] to check one decision for hidden information
    (``PR_*``), or an empty array. Returns the
    number of events (which may exceed m: only the first m are written).
    """
    W.wall_setup(rules, seed, deal, True, g.wall, g.work, g.st, g.ws, g.wild)
    return _play(rules, tables, seed, deal, round_wind, restrict_first, pols, g,
                 out, log, dealt_hands, dealt_flowers, probe)


@njit(cache=True, inline="always")
def play_wall(rules, tables, tiles, dice, indicator_pos, seed, deal, round_wind,
              restrict_first, pols, g, out, log, dealt_hands, dealt_flowers,
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
    return _play(rules, tables, seed, deal, round_wind, restrict_first, pols, g,
                 out, log, dealt_hands, dealt_flowers, probe)


_ENGINES: dict = {}
_SCORERS: dict = {}
_DECISIONS: dict = {}


def _entry(found_in, kernel, signature_of, rules, tables):
    """``kernel`` compiled apart (or loaded from the cache) for the rules
    array ``rules`` and the lookup tables ``tables`` that the kernels will
    be given, once per process and argument types: an
    ``entry.KernelEntry`` of ``signature_of(rules_t, tables_t, game_t)``,
    kept in the dict ``found_in``."""
    key = (numba.typeof(rules), numba.typeof(tables))
    found = found_in.get(key)
    if found is None:
        sig = signature_of(key[0], key[1], numba.typeof(new_state()))
        found = found_in[key] = KernelEntry(kernel, sig.args)
    return found


def engine_entry(rules, tables):
    """The engine's turn loop ``play_from``, compiled apart for the rules
    array ``rules`` (int64[R_LEN]) and the lookup tables ``tables`` that
    the kernels will be given, as an ``entry.KernelEntry`` of
    ``state.engine_signature``. Compiling it (or loading it from the cache)
    happens here, once per process and argument types. Raises numba's
    errors if the engine does not compile for them."""
    return _entry(_ENGINES, play_from, engine_signature, rules, tables)


def scorer_entry(rules, tables):
    """The engine's scorer ``wins.try_win``, compiled apart for the rules
    array ``rules`` (int64[R_LEN]) and the lookup tables ``tables`` that
    the kernels will be given, as an ``entry.KernelEntry`` of
    ``state.scorer_signature``: the turn loop calls it by its address
    (``wins.call_scorer``). Compiling it (or loading it from the cache)
    happens here, once per process and argument types. Raises numba's
    errors if it does not compile for them."""
    return _entry(_SCORERS, try_win, scorer_signature, rules, tables)


def _decision_argtypes(key):
    """The engine's argument types of each decision (``decision_argtypes``)
    for ``key`` = (rules type, tables type)."""
    empty = Policies(np.zeros(4, np.int64), np.zeros((4, MAX_PARAMS), np.float64),
                     np.zeros((len(POLICY_TABLE), len(DECISIONS), 2), np.int64),
                     np.zeros(2, np.int64), np.zeros(2, np.int64))
    return decision_argtypes(key[0], key[1], numba.typeof(new_state()), numba.typeof(empty))


def decision_pairs(codes, rules, tables):
    """The entry pairs of the policies' decisions, int64[len(POLICY_TABLE),
    len(DECISIONS), 2] by code and decision (``catalog.Policies.decisions``),
    for the rules array ``rules`` and the tables ``tables`` the kernels will
    be given: those of the policies of ``codes`` (the codes that play,
    ``catalog.played_codes``), (0, 0) for the others: calling one raises
    (``nbsim.kernels.entry``). Compiles (or loads from the cache) what is
    not yet compiled in this process, each policy's decisions apart;
    raises numba's errors if one does not compile."""
    key = (numba.typeof(rules), numba.typeof(tables))
    pairs = np.zeros((len(POLICY_TABLE), len(DECISIONS), 2), np.int64)
    argtypes = None
    for c in sorted({int(c) for c in codes}):
        found = _DECISIONS.get(key + (c,))
        if found is None:
            if argtypes is None:
                argtypes = _decision_argtypes(key)
            found = _DECISIONS[key + (c,)] = decision_entries(c, argtypes)
        for d, e in enumerate(found):
            pairs[c, d] = e.pair
    return pairs


def compile_decisions(code, decisions, rules, tables):
    """Compile (or load from the cache) the decisions ``decisions``
    (indices into ``catalog.DECISIONS``) of the policy of ``code`` for the
    rules array ``rules`` and the tables ``tables`` the kernels will be
    given, as ``decision_pairs`` compiles them; the warm-up splits the
    default policy's decisions over the game engine's two compiling
    processes so (``nbsim.cli.warm``). Raises numba's errors if one does
    not compile."""
    decision_entries(int(code), _decision_argtypes((numba.typeof(rules), numba.typeof(tables))),
                     decisions)


def policy_record(codes, params, rules, tables):
    """The seats' policy record (``catalog.Policies``) for the kernels:
    ``codes`` int64[n] policy codes and ``params`` float64[n, MAX_PARAMS]
    parameter rows (n = 4 seats, or a match's players), with the entry
    pairs of the decisions of the policies that play (``decision_pairs``
    of ``catalog.played_codes``: the seats' and those a search seat plays
    in its playouts) and of the engine's turn loop (``engine_entry``). ``rules`` and ``tables`` are
    those the kernels will be given. Compiles (or loads from the cache)
    what is not yet compiled in this process; raises numba's errors if
    something does not compile."""
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    params = np.ascontiguousarray(params, dtype=np.float64)
    pairs = decision_pairs(played_codes(codes, params), rules, tables)
    return Policies(codes, params, pairs, engine_entry(rules, tables).pair,
                    scorer_entry(rules, tables).pair)
