"""Game mode: many played-out deals (or whole matches) into preallocated arrays.

``game_batch`` plays independent deals ``start .. start + n - 1`` of a seed:
each deal has the dealer East, its round wind drawn from the deal's own
stream (``rng.STREAM_ROUND_WIND``), and the same wall as deal mode.
``match_batch`` plays whole matches (docs/rules.md §2: four round winds,
dealer rotation, round-wind advance; section 4: first-hand limits): every
deal j of match m is deal j of the match seed ``rng.deal_key(seed, m)``.
"""
from typing import NamedTuple

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.engine import loop as E
from nbsim.kernels.engine import probe as EP
from nbsim.kernels.engine import state as ES
from nbsim.kernels.jit import njit
from nbsim.kernels.policies.catalog import MAX_PARAMS, Policies

MAX_EVENTS = 1024          # events of one deal never exceed this
MAX_MATCH_DEALS = 256      # safety bound on the deals of one match


class DealRows(NamedTuple):
    """The per-deal outputs of ``game_batch`` / ``match_batch`` (n rows, one
    per deal; written). out: int64[n, engine.OUT_LEN] the result rows
    (``engine.O_*``; tai in tai, payments in points, docs/rules.md §7-§8);
    melds: int8[n, 4, 4, 3] final declared melds per seat (MELD_TYPE,
    MELD_KIND, MELD_FROM); round_winds: int8[n] 0..3 (E S W N); then the
    deal-mode columns (``batch.deal_batch``, docs/rules.md §2-§3):
    dealt_hands int8[n, 4, 42] the hands after the deal and flower
    replacement, dealt_flowers uint8[n, 4] set-aside flower bits per seat,
    wilds_held uint8[n, 4] wild tiles dealt per seat, dice uint8[n, 4],
    indicator int8[n] the indicator's kind (-1: none), complete bool[n] the
    dealer's dealt hand is complete."""
    out: np.ndarray
    melds: np.ndarray
    round_winds: np.ndarray
    dealt_hands: np.ndarray
    dealt_flowers: np.ndarray
    wilds_held: np.ndarray
    dice: np.ndarray
    indicator: np.ndarray
    complete: np.ndarray


class EventRows(NamedTuple):
    """The event log of a batch (written only when events are asked for):
    events int32[m, EV_LEN] (``codes.EV_*`` columns, ``codes.A_*`` actions),
    event_deal int64[m] the row (deal) of each event, event_step int32[m]
    its step within the deal."""
    events: np.ndarray
    event_deal: np.ndarray
    event_step: np.ndarray


class MatchRows(NamedTuple):
    """``match_batch``'s own outputs (docs/rules.md §2, §4). Per deal row:
    match_of int64[n] the match, deal_in_match int32[n] the deal's index in
    it, players int8[n, 4] the player (0..3) in each seat E S W N; totals
    int64[n_matches, 4] each player's net points over its match."""
    match_of: np.ndarray
    deal_in_match: np.ndarray
    players: np.ndarray
    totals: np.ndarray


@njit(cache=True, kernel_only=True)
def _dealt_columns(state, tables, rows, i):
    """Fill row i of the deal-mode columns of ``rows`` (``DealRows``) from
    the dealt hands (written by play_deal) and the wall state (same meaning
    as ``batch.deal_batch``)."""
    ws = state.ws
    wild = state.wild
    nat = state.nat
    dealt_hands = rows.dealt_hands
    wilds_held = rows.wilds_held
    for s in range(4):
        w = 0
        for k in range(C.N_KINDS):
            if wild[k]:
                w += dealt_hands[i, s, k]
        wilds_held[i, s] = w
    for k in range(C.N_PLAY):
        nat[k] = 0 if wild[k] else dealt_hands[i, 0, k]
    rows.complete[i] = H.is_complete(nat, np.int64(wilds_held[i, 0]), tables)
    for k in range(W.MAX_DICE):
        rows.dice[i, k] = ws[W.WS_DICE + k]
    rows.indicator[i] = ws[W.WS_IND_KIND]


@njit(cache=True, inline="always")
def _final_melds(state, melds_out, i):
    """The final declared melds of the deal in ``state`` into melds_out[i]."""
    melds = state.melds
    for s in range(4):
        for m in range(C.MAX_MELDS):
            for c in range(3):
                melds_out[i, s, m, c] = melds[s, m, c]


# inlined (numba IR), as is engine.play_deal, so that a batch is one compiled
# function; the engine's turn loop is not linked in but called by its
# address (``Policies.engine``: nbsim.kernels.entry)
@njit(cache=True, inline="always")
def _play_one(rules, tables, seed, deal, round_wind, restrict_first, pols, state, rows, log,
              i, probe):
    """Deal ``deal`` of ``seed`` played into row i of ``rows`` (``DealRows``)."""
    n_log = E.play_deal(rules, tables, seed, deal, round_wind, restrict_first, pols, state,
                        rows.out[i], log, rows.dealt_hands[i], rows.dealt_flowers[i], probe)
    _dealt_columns(state, tables, rows, i)
    _final_melds(state, rows.melds, i)
    return n_log


@njit(cache=True, nogil=True)
def game_batch(rules, tables, seed, start, pols, state, with_events, rows, ev):
    """Independent deals ``start .. start + n - 1`` of ``seed`` played out.

    rules: int64[R_LEN]; tables: ``load_tables()``; seed: uint64; start:
    int64; pols: the seats' policies, seat 0 the dealer
    (``policies.catalog.Policies``: ``nbsim.policy_specs.kernel_arrays``,
    which holds the engine's turn loop); state: a ``Game``
    (``engine.state.new_state()``), the deals are played on it (one state
    per concurrent call); with_events: bool. rows:
    ``DealRows`` of n rows (written); ev: ``EventRows`` of at least
    n * MAX_EVENTS rows, written only when with_events. Returns the number
    of event rows written.
    """
    n = rows.out.shape[0]
    log = np.zeros((MAX_EVENTS if with_events else 0, C.EV_LEN), np.int32)
    rw = np.zeros(rng.RNG_LEN, np.uint64)
    no_probe = np.zeros(0, np.int64)
    # independent deals are never "the first hand of a match"; every_hand applies
    every_hand = rules[C.R_FIRST_ROUND] == C.FIRST_ROUND_EVERY_HAND
    n_ev = 0
    for i in range(n):
        deal = start + i
        rng.stream_init(seed, deal, rng.STREAM_ROUND_WIND, rw)
        round_wind = rng.below(rw, 4)
        rows.round_winds[i] = round_wind
        n_log = _play_one(rules, tables, seed, deal, round_wind, every_hand, pols, state, rows,
                          log, i, no_probe)
        if with_events:
            m = min(n_log, MAX_EVENTS)
            for r in range(m):
                for c in range(C.EV_LEN):
                    ev.events[n_ev, c] = log[r, c]
                ev.event_deal[n_ev] = deal
                ev.event_step[n_ev] = r
                n_ev += 1
    return n_ev


@njit(cache=True)
def match_seed(seed, match):
    """uint64 seed of match ``match`` of run seed ``seed``: deal j of the match
    is deal j of this seed."""
    return rng.deal_key(seed, match)


@njit(cache=True, nogil=True)
def match_batch(rules, tables, seed, match_start, n_matches, player_pols, state, with_events,
                rows, mrows, ev):
    """Whole matches ``match_start .. match_start + n_matches - 1``.

    A match: player p (0..3) starts in seat p (player 0 deals first). The
    dealer keeps the deal on a win, and on an exhaustive draw when
    ``dealer_keeps_on_draw``; otherwise the next player deals. When the deal
    has passed all four players and returns to player 0, the round wind
    advances E -> S -> W -> N; the match ends after the North round.
    ``first_round_restrictions`` apply to the first deal of the match
    ("first_hand") or to every deal ("every_hand"). Players keep their
    policy (player_pols: ``policies.catalog.Policies`` by player,
    ``nbsim.policy_specs.kernel_arrays``) as they change seats; the deals
    are played on ``state`` (a ``Game``, ``engine.state.new_state()``).

    Rows are appended per deal, up to rows.out.shape[0] rows (the caller
    sizes the outputs for n_matches * MAX_MATCH_DEALS or grows them): rows
    (``DealRows``) as ``game_batch`` writes them, mrows (``MatchRows``) the
    match columns (its totals n_matches rows), ev (``EventRows``) the events
    when with_events, with event_deal counting rows from this call's first.
    Returns (rows written, event rows written); rows written = -1 when the
    outputs were too small.
    """
    log = np.zeros((MAX_EVENTS if with_events else 0, C.EV_LEN), np.int32)
    # the seats' record: the players' codes and parameters by seat, deal by
    # deal, and the players' entries
    pols = Policies(np.zeros(4, np.int64), np.zeros((4, MAX_PARAMS), np.float64),
                    player_pols.decisions, player_pols.engine, player_pols.scorer)
    pol = pols.codes
    par = pols.params
    no_probe = np.zeros(0, np.int64)
    out = rows.out
    totals = mrows.totals
    row = 0
    n_ev = 0
    cap = out.shape[0]
    first_rule = rules[C.R_FIRST_ROUND]
    for mi in range(n_matches):
        m = match_start + mi
        mseed = match_seed(seed, m)
        dealer = 0                 # player who deals
        round_wind = 0
        passes = 0                 # times the deal passed in this round wind
        for s in range(4):
            totals[mi, s] = 0
        for j in range(MAX_MATCH_DEALS):
            if row >= cap:
                return -1, n_ev
            for s in range(4):
                p = (dealer + s) % 4
                pol[s] = player_pols.codes[p]
                for q in range(par.shape[1]):
                    par[s, q] = player_pols.params[p, q]
                mrows.players[row, s] = p
            restrict = first_rule == C.FIRST_ROUND_EVERY_HAND or (
                first_rule == C.FIRST_ROUND_FIRST_HAND and j == 0)
            rows.round_winds[row] = round_wind
            n_log = _play_one(rules, tables, mseed, j, np.int64(round_wind), restrict, pols,
                              state, rows, log, row, no_probe)
            mrows.match_of[row] = m
            mrows.deal_in_match[row] = j
            for s in range(4):
                totals[mi, (dealer + s) % 4] += out[row, ES.O_SCORE + C.RES_PAY + s]
            if with_events:
                k = min(n_log, MAX_EVENTS)
                for r in range(k):
                    if n_ev < ev.events.shape[0]:
                        for c in range(C.EV_LEN):
                            ev.events[n_ev, c] = log[r, c]
                        ev.event_deal[n_ev] = row
                        ev.event_step[n_ev] = r
                        n_ev += 1
            row += 1
            winner = out[row - 1, ES.O_WINNER]
            keep = winner == 0 or (winner < 0 and rules[C.R_DEALER_KEEPS_ON_DRAW] != 0)
            if not keep:
                dealer = (dealer + 1) % 4
                passes += 1
                if passes == 4:
                    passes = 0
                    round_wind += 1
                    if round_wind == 4:
                        break
    return row, n_ev


@njit(cache=True)
def wall_game(rules, tables, tiles, dice, indicator_pos, seed, deal, round_wind, pols, state,
              rows, log):
    """One deal played from a given wall (``engine.play_wall``: tiles
    uint8[144] in draw order, dice int64[4], indicator_pos or -1) with the
    seats' policies ``pols`` on ``state`` (a ``Game``,
    ``engine.state.new_state()``) into row 0 of ``rows`` (``DealRows``); the
    event log goes to ``log`` (int32[m, EV_LEN]). Returns the number of events."""
    n_log = E.play_wall(rules, tables, tiles, dice, indicator_pos, seed, deal, round_wind,
                        np.bool_(False), pols, state, rows.out[0], log, rows.dealt_hands[0],
                        rows.dealt_flowers[0], np.zeros(0, np.int64))
    _dealt_columns(state, tables, rows, np.int64(0))
    _final_melds(state, rows.melds, np.int64(0))
    return n_log


@njit(cache=True)
def probe_batch(rules, tables, seed, start, pols, state, probes):
    """The no-leak check (``engine.PR_*``): independent deal ``start + i`` is
    played with the probe row ``probes[i]`` (int64[n, PROBE_LEN]; PR_AT and
    PR_SEED in, the rest written), which answers decision PR_AT twice: with
    the real hidden tiles and after shuffling every tile the deciding seat
    cannot see. The deals themselves are played as ``game_batch`` plays
    them, with the seats' policies ``pols``, on ``state`` (a ``Game``,
    ``engine.state.new_state()``). Returns the number of probes whose two
    answers differ."""
    log = np.zeros((0, C.EV_LEN), np.int32)
    out = np.zeros(ES.OUT_LEN, np.int64)
    rw = np.zeros(rng.RNG_LEN, np.uint64)
    hands = np.zeros((4, C.N_KINDS), np.int8)
    flowers = np.zeros(4, np.uint8)
    every_hand = rules[C.R_FIRST_ROUND] == C.FIRST_ROUND_EVERY_HAND
    bad = 0
    for i in range(probes.shape[0]):
        deal = start + i
        rng.stream_init(seed, deal, rng.STREAM_ROUND_WIND, rw)
        round_wind = rng.below(rw, 4)
        probes[i, EP.PR_KIND] = -1
        E.play_deal(rules, tables, seed, deal, round_wind, every_hand, pols, state, out, log,
                    hands, flowers, probes[i])
        if probes[i, EP.PR_KIND] >= 0 and probes[i, EP.PR_ANSWER] != probes[i, EP.PR_SHUFFLED]:
            bad += 1
    return bad
