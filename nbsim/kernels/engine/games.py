"""Game mode: many played-out deals (or whole matches) into preallocated arrays.

``game_batch`` plays independent deals ``start .. start + n - 1`` of a seed:
each deal has the dealer East, its round wind drawn from the deal's own
stream (``rng.STREAM_ROUND_WIND``), and the same wall as deal mode.
``match_batch`` plays whole matches (docs/rules.md §2: four round winds,
dealer rotation, round-wind advance; section 4: first-hand limits): every
deal j of match m is deal j of the match seed ``rng.deal_key(seed, m)``.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.engine import loop as E
from nbsim.kernels.engine import probe as EP
from nbsim.kernels.engine import state as ES
from nbsim.kernels.engine import warm as EW
from nbsim.kernels.jit import njit

MAX_EVENTS = 1024          # events of one deal never exceed this
MAX_MATCH_DEALS = 256      # safety bound on the deals of one match


@njit(cache=True)
def _dealt_columns(state, tables, dealt_hands, dealt_flowers, wilds_held, dice, indicator,
                   complete, i):
    """Fill row i of the deal-mode columns from the dealt hands (written by
    play_deal) and the wall state (same meaning as ``batch.deal_batch``)."""
    ws = state.ws
    wild = state.wild
    nat = state.nat
    for s in range(4):
        w = 0
        for k in range(C.N_KINDS):
            if wild[k]:
                w += dealt_hands[i, s, k]
        wilds_held[i, s] = w
    for k in range(C.N_PLAY):
        nat[k] = 0 if wild[k] else dealt_hands[i, 0, k]
    complete[i] = H.is_complete(nat, np.int64(wilds_held[i, 0]), tables)
    for k in range(W.MAX_DICE):
        dice[i, k] = ws[W.WS_DICE + k]
    indicator[i] = ws[W.WS_IND_KIND]


# inlined (numba IR), as is engine.play_deal: every compiled function that is
# not inlined links and optimizes the whole engine below it once more
# (docs/layout.md, "The kernels")
@njit(cache=True, inline="always")
def _play_one(rules, tables, seed, deal, round_wind, restrict_first, policies, params, state,
              out_row, melds_out, log, dealt_hands, dealt_flowers, wilds_held, dice, indicator,
              complete, i, probe):
    n_log = E.play_deal(rules, tables, seed, deal, round_wind, restrict_first, policies,
                        params, state, out_row, log, dealt_hands[i], dealt_flowers[i], probe)
    _dealt_columns(state, tables, dealt_hands, dealt_flowers, wilds_held, dice, indicator,
                   complete, i)
    melds = state.melds
    for s in range(4):
        for m in range(C.MAX_MELDS):
            for c in range(3):
                melds_out[i, s, m, c] = melds[s, m, c]
    return n_log


@njit(cache=True, nogil=True)
def game_batch(rules, tables, seed, start, policies, params, with_events, out, melds_out,
               round_winds, dealt_hands, dealt_flowers, wilds_held, dice, indicator, complete,
               events, event_deal, event_step):
    """Independent deals ``start .. start + n - 1`` of ``seed`` played out.

    policies: int64[4] policy codes per seat (seat 0 = dealer;
    ``policies.catalog``); params: float64[4, MAX_PARAMS] their parameters
    per seat. Outputs (n rows):
    out int64[n, engine.OUT_LEN]; melds_out int8[n, 4, 4, 3] final declared
    melds per seat; round_winds int8[n]; dealt_hands int8[n, 4, 42],
    dealt_flowers uint8[n, 4], wilds_held uint8[n, 4], dice uint8[n, 4],
    indicator int8[n], complete bool[n] (deal-mode columns). Events (only
    when with_events): events int32[n * MAX_EVENTS, EV_LEN], event_deal
    int64[...] and event_step int32[...] (deal index and step of each row).
    Returns the number of event rows written.
    """
    n = out.shape[0]
    state = ES.new_state()
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
        round_winds[i] = round_wind
        n_log = _play_one(rules, tables, seed, deal, round_wind, every_hand, policies, params,
                          state, out[i], melds_out, log, dealt_hands, dealt_flowers, wilds_held,
                          dice, indicator, complete, i, no_probe)
        if with_events:
            m = min(n_log, MAX_EVENTS)
            for r in range(m):
                for c in range(C.EV_LEN):
                    events[n_ev, c] = log[r, c]
                event_deal[n_ev] = deal
                event_step[n_ev] = r
                n_ev += 1
    return n_ev


@njit(cache=True)
def warm_parts(rules, tables, run):
    """``engine.warm_parts`` and the deal-mode columns of a played deal
    (``_dealt_columns``) as ``game_batch`` calls them: the engine's parts
    that call no policy, compiled beside the scorer (``nbsim.warmup``).
    rules: int64[R_LEN] (read-only); run: bool."""
    r = EW.warm_parts(rules, tables, run)
    state = ES.new_state()
    dealt_hands = np.zeros((1, 4, C.N_KINDS), np.int8)
    dealt_flowers = np.zeros((1, 4), np.uint8)
    wilds_held = np.zeros((1, 4), np.uint8)
    dice = np.zeros((1, 4), np.uint8)
    indicator = np.zeros(1, np.int8)
    complete = np.zeros(1, np.bool_)
    if run:
        _dealt_columns(state, tables, dealt_hands, dealt_flowers, wilds_held, dice, indicator,
                       complete, np.int64(0))
    return r


@njit(cache=True)
def match_seed(seed, match):
    """uint64 seed of match ``match`` of run seed ``seed``: deal j of the match
    is deal j of this seed."""
    return rng.deal_key(seed, match)


@njit(cache=True, nogil=True)
def match_batch(rules, tables, seed, match_start, n_matches, player_policies, player_params,
                with_events, out, melds_out, round_winds, dealt_hands, dealt_flowers, wilds_held,
                dice, indicator, complete, match_of, deal_in_match, players, totals, events,
                event_deal, event_step):
    """Whole matches ``match_start .. match_start + n_matches - 1``.

    A match: player p (0..3) starts in seat p (player 0 deals first). The
    dealer keeps the deal on a win, and on an exhaustive draw when
    ``dealer_keeps_on_draw``; otherwise the next player deals. When the deal
    has passed all four players and returns to player 0, the round wind
    advances E -> S -> W -> N; the match ends after the North round.
    ``first_round_restrictions`` apply to the first deal of the match
    ("first_hand") or to every deal ("every_hand"). Players keep their
    policy (player_policies int64[4] and player_params float64[4, MAX_PARAMS],
    by player) as they change seats.

    Rows are appended per deal, up to out.shape[0] rows (the caller sizes the
    outputs for n_matches * MAX_MATCH_DEALS or grows them). Per row, besides
    the game_batch outputs: match_of int64, deal_in_match int32, players
    int8[4] (the player in each seat E S W N). totals: int64[n_matches, 4]
    each player's net points over the match. Returns (rows written, event
    rows written); rows written = -1 when the outputs were too small.
    """
    state = ES.new_state()
    log = np.zeros((MAX_EVENTS if with_events else 0, C.EV_LEN), np.int32)
    pol = np.zeros_like(player_policies)
    par = np.zeros_like(player_params)
    no_probe = np.zeros(0, np.int64)
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
                pol[s] = player_policies[p]
                for q in range(par.shape[1]):
                    par[s, q] = player_params[p, q]
                players[row, s] = p
            restrict = first_rule == C.FIRST_ROUND_EVERY_HAND or (
                first_rule == C.FIRST_ROUND_FIRST_HAND and j == 0)
            round_winds[row] = round_wind
            n_log = _play_one(rules, tables, mseed, j, np.int64(round_wind), restrict, pol, par,
                              state,
                              out[row], melds_out, log, dealt_hands, dealt_flowers, wilds_held,
                              dice, indicator, complete, row, no_probe)
            match_of[row] = m
            deal_in_match[row] = j
            for s in range(4):
                totals[mi, (dealer + s) % 4] += out[row, ES.O_SCORE + C.RES_PAY + s]
            if with_events:
                k = min(n_log, MAX_EVENTS)
                for r in range(k):
                    if n_ev < events.shape[0]:
                        for c in range(C.EV_LEN):
                            events[n_ev, c] = log[r, c]
                        event_deal[n_ev] = row
                        event_step[n_ev] = r
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
def wall_game(rules, tables, tiles, dice, indicator_pos, seed, deal, round_wind, policies,
              params, out, melds_out, dealt_hands, dealt_flowers, wilds_held, dice_out,
              indicator, complete, log):
    """One deal played from a given wall (``engine.play_wall``) into row 0 of
    the game_batch outputs; the event log goes to ``log``. Returns the number
    of events."""
    state = ES.new_state()
    n_log = E.play_wall(rules, tables, tiles, dice, indicator_pos, seed, deal, round_wind,
                        np.bool_(False), policies, params, state, out[0], log, dealt_hands[0],
                        dealt_flowers[0], np.zeros(0, np.int64))
    _dealt_columns(state, tables, dealt_hands, dealt_flowers, wilds_held, dice_out, indicator,
                   complete, np.int64(0))
    melds = state.melds
    for s in range(4):
        for m in range(C.MAX_MELDS):
            for c in range(3):
                melds_out[0, s, m, c] = melds[s, m, c]
    return n_log


@njit(cache=True)
def probe_batch(rules, tables, seed, start, policies, params, probes):
    """The no-leak check (``engine.PR_*``): independent deal ``start + i`` is
    played with the probe row ``probes[i]`` (int64[n, PROBE_LEN]; PR_AT and
    PR_SEED in, the rest written), which answers decision PR_AT twice: with
    the real hidden tiles and after shuffling every tile the deciding seat
    cannot see. The deals themselves are played as ``game_batch`` plays
    them. Returns the number of probes whose two answers differ."""
    state = ES.new_state()
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
        E.play_deal(rules, tables, seed, deal, round_wind, every_hand, policies, params, state,
                    out, log, hands, flowers, probes[i])
        if probes[i, EP.PR_KIND] >= 0 and probes[i, EP.PR_ANSWER] != probes[i, EP.PR_SHUFFLED]:
            bad += 1
    return bad
