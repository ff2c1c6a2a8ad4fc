"""The lookahead evaluator from Python: every candidate discard of a
``Position`` (or every answer to a discard offered to it) played to the end
of the deal on sampled hidden tiles, and the exact own-draw chance of a
ready hand.

``evaluate`` is the engine of ``nbsim advise`` and the numbers behind the
``lookahead`` policy (``nbsim/kernels/search/playout.py`` does the work; docs/rules.md
§2-§5 for the play it simulates). ``exact_own_draws`` is the one answer
that needs no sampling: with no opponent winning, claiming or declaring a
kong, the chance that a ready hand keeping its wait completes on one of its
own remaining draws, the flowers drawn and replaced on the way and the
tiles never drawn (others' hands, Ninghai's reserve) counted exactly by a
Markov chain over the wall's composition.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.kernels.policies.catalog import code_of
from nbsim.kernels.policies.view import MAX_POND
from nbsim.play.position import Position
from nbsim.play.worlds import ADVICE_OPPONENTS as DEFAULT_OPPONENTS
from nbsim.play.worlds import check_opponents
from nbsim.rules.ruleset import RuleSet, as_rules

__all__ = ["CandidateValue", "Evaluation", "ExactOwnDraw", "evaluate", "evaluate_claims",
           "exact_own_draws", "kong_kinds", "own_draw_chain", "view_of", "own_draws_left"]

PLAYOUT_POLICIES = ("greedy", "value", "defend")
RACE_FIRST = 50         # deals of a race's first round (``_played``; fewer when capped)


@dataclass(frozen=True)
class CandidateValue:
    """One candidate discard's outcome over the samples, for the deciding
    seat: ``kind`` (0..41), mean payment ``mean_pay`` and its standard error
    ``se_pay`` (points per deal), ``p_win``/``se_win``, ``p_deal_in``,
    ``p_deal_in_to`` (by seat E S W N; 0 for the seat itself),
    ``p_exhausted``, and the paired difference ``diff`` to the best
    candidate's mean payment with its standard error ``diff_se`` (common
    random numbers; 0 and 0 for the best), over ``n`` samples played (of
    ``deals`` sampled: a failed sample is not played; fewer than the best's
    when a race dropped it). ``kong``: the candidate is the own-turn kong
    of ``kind`` (concealed or added), not its discard. ``win_pay``: the
    mean payment in the deals it won (points; nan when it won none).
    ``dropped``: the race's round after which it left the race, its paired
    95% interval to the leader then below 0 (0: it stayed to the end)."""
    kind: int
    mean_pay: float
    se_pay: float
    p_win: float
    se_win: float
    p_deal_in: float
    p_deal_in_to: tuple[float, float, float, float]
    p_exhausted: float
    diff: float
    diff_se: float
    n: int
    kong: bool = False
    win_pay: float = math.nan
    deals: int = 0
    dropped: int = 0


@dataclass(frozen=True)
class Evaluation:
    """``evaluate``'s answer: the candidates, best (highest mean payment)
    first, with the samples (the deals the best was played on), seed,
    playout policy and opponent model (``OPPONENT_MODELS``) that produced
    them, and the race (``_played``): ``rounds`` of common worlds played,
    why it ended (``stopped``: "decided" one candidate left, "samples" the
    ``cap`` of deals reached, "budget" the ``budget`` in seconds spent);
    ``claim``: the candidates are claim answers (``evaluate_claims``)."""
    candidates: tuple[CandidateValue, ...]
    samples: int
    seed: int
    base: str
    opponents: int = DEFAULT_OPPONENTS
    rounds: int = 1
    stopped: str = "samples"
    budget: float | None = None
    cap: int = 0
    claim: bool = False

    @property
    def reason(self) -> str:
        """Why the best candidate beats the runner-up, in one sentence
        (``why_best``; tiles in notation, a kong as "kong 5z", a claim
        answer by its code); "" with a single candidate."""
        if len(self.candidates) < 2:
            return ""
        from nbsim.rules.tiles import KIND_NAMES

        def name(c: CandidateValue) -> str:
            return f"kong {KIND_NAMES[c.kind]}" if c.kong else (
                f"answer {c.kind}" if self.claim else f"discard {KIND_NAMES[c.kind]}")
        b, r = self.candidates[:2]
        return why_best(b, r, name(b), name(r))

    @property
    def best_kind(self) -> int:
        """The recommended discard (kind; the kong's kind when the best
        candidate is a kong, ``candidates[0].kong``)."""
        return self.candidates[0].kind


@dataclass(frozen=True)
class ExactOwnDraw:
    """Exact (own draws, no opponents): after discarding ``kind`` the hand
    is ready on ``waits`` (kinds whose drawn tile completes a legal
    self-drawn win in some draw: a live draw, a flower's replacement or the
    last drawable tile), with ``winning_unseen`` unseen tiles of them among
    the ``unseen`` non-flower tiles the seat has not seen (the others'
    face-down kongs left out), ``flowers_unseen`` non-wild flowers unseen
    and ``wall_tiles`` tiles where those flowers can lie (the wall with its
    reserve, and the tiles that left it unlisted). Of the ``drawable``
    tiles left to draw the seat gets at most ``draws`` own draws (every
    fourth, when no flower is drawn); it wins with probability ``p_win``
    (``exact_own_draws`` gives the model)."""
    kind: int
    waits: tuple[int, ...]
    winning_unseen: int
    unseen: int
    draws: int
    p_win: float
    flowers_unseen: int = 0
    wall_tiles: int = 0
    drawable: int = 0


@cache
def _tables():
    from nbsim.rules.lookups import load_tables
    return load_tables()


def own_draws_left(pos: Position) -> int:
    """The most draws the seat still gets after its discard if the play
    goes round without claims: every fourth of the ``tiles_left`` drawable
    tiles (fewer when flowers are drawn: each is replaced from the same
    drawable tiles in the same turn)."""
    return max(int(pos.tiles_left), 0) // 4


def _visible(rs: RuleSet, pos: Position) -> np.ndarray:
    """Face-up copies by kind (int8[42]) as the engine counts them: every
    discard (a claimed one once: in its meld, the pond's copy marked
    ``POND_CLAIMED`` is not counted again), every tile of the declared
    melds, the flowers set aside and the indicator; never a face-down kong
    (the seat's own counts apart: ``playout.build_world``)."""
    from nbsim.play.advice.notation import POND_CLAIMED, meld_kinds
    vis = np.zeros(C.N_KINDS, np.int64)
    for s in range(4):
        for p in range(int(pos.n_pond[s])):
            if not int(pos.pond_flags[s, p]) & POND_CLAIMED:
                vis[int(pos.pond[s, p])] += 1
        for m in range(int(pos.n_melds[s])):
            typ, kind = int(pos.melds[s, m, 0]), int(pos.melds[s, m, 1])
            if typ != C.MELD_CKONG:
                for k in meld_kinds(typ, kind):
                    vis[k] += 1
        for f in range(C.N_FLOWERS):
            if int(pos.flowers[s]) >> f & 1:
                vis[C.FLOWER0 + f] += 1
    if pos.indicator >= 0:
        vis[int(pos.indicator)] += 1
    return np.clip(vis, 0, 4).astype(np.int8)


def view_of(rs: RuleSet, pos: Position, kong_turn: bool = False, base: str = "defend"):
    """The kernels' ``View`` (``nbsim/kernels/policies/view.py``) of a
    Position, with the wall's state and the turn state made up from what
    it tells: ``tiles_left`` drawable tiles from position 53 on, every seat
    has drawn, no kong lock or chow-swap limit, the kinds each seat let go
    by (``View.passed``) from ``pos.passed`` (none when None).
    ``kong_turn``: the seat to play is at its own-turn kong question (its
    self-drawn win already passed: the turn resumes at the kong,
    ``engine_turn.own_kong``). Raises RunError for a position the engine
    cannot continue from (a seat or a tile count out of range). Its
    ``playout`` holds the entries of the game engine and of the decisions
    of ``base`` (one of ``PLAYOUT_POLICIES``: the policy its playouts
    play; ``engine.loop.policy_record``: compiled or loaded from the
    cache)."""
    from nbsim.kernels import wall as W
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.policies.view import View
    from nbsim.kernels.wilds import wild_mask

    rules = rs.array
    seat, to_play = int(pos.seat), int(pos.to_play)
    if not (0 <= seat < 4 and 0 <= to_play < 4):
        raise RunError(f"seat {seat} / seat to play {to_play}: seats are 0..3 (E S W N)")
    wild = np.zeros(C.N_KINDS, np.bool_)
    n_wilds = wild_mask(rules, np.int64(pos.indicator), wild)
    melds = np.ascontiguousarray(pos.melds, dtype=np.int8).reshape(4, C.MAX_MELDS, 3)
    n_melds = np.ascontiguousarray(pos.n_melds, dtype=np.int64)
    n_kongs = int(sum(1 for s in range(4) for m in range(int(n_melds[s]))
                      if melds[s, m, C.MELD_TYPE] in (C.MELD_KONG, C.MELD_CKONG)))
    reserve = 2 * (int(rules[C.R_RESERVE_STACKS])
                   + int(rules[C.R_RESERVE_STACKS_PER_KONG]) * n_kongs)
    ws = np.zeros(W.WS_LEN, np.int64)
    ws[W.WS_LIVE] = W.DEAL_TILES
    ws[W.WS_TAIL] = W.DEAL_TILES + int(pos.tiles_left) + reserve - 1
    if ws[W.WS_TAIL] >= C.N_TILES:
        raise RunError(f"{pos.tiles_left} tiles left in the wall: at most "
                       f"{C.N_TILES - W.DEAL_TILES - reserve} can be")
    ws[W.WS_INDICATOR] = -1
    ws[W.WS_FILLED] = C.N_TILES
    ws[W.WS_IND_KIND] = int(pos.indicator)
    ws[W.WS_N_WILDS] = n_wilds
    n_pond = np.ascontiguousarray(pos.n_pond, dtype=np.int64)
    fed = np.zeros((4, 4), np.int8)
    claims = 0
    for s in range(4):
        for m in range(int(n_melds[s])):
            frm = int(melds[s, m, C.MELD_FROM])
            if melds[s, m, C.MELD_TYPE] != C.MELD_CKONG and 0 <= frm < 4 and frm != s:
                fed[s, frm] += 1
                claims += 1
    ts = np.zeros(ES.TS_LEN, np.int64)
    ts[ES.TS_CUR] = to_play
    drawn = int(pos.drawn) if seat == to_play else -1
    ts[ES.TS_JUST_DREW] = 1 if drawn >= 0 and not kong_turn else 0
    ts[ES.TS_AFTER_PUNG] = 1 if kong_turn else 0      # opens the kong question only
    ts[ES.TS_HAS_DRAWN] = 1 if drawn >= 0 else 0
    ts[ES.TS_DRAWN] = drawn
    ts[ES.TS_KONG_FROM] = -1
    ts[ES.TS_FORBID_A] = -1
    ts[ES.TS_FORBID_B] = -1
    ts[ES.TS_N_KONGS] = n_kongs
    ts[ES.TS_DISCARDS] = int(n_pond.sum())
    ts[ES.TS_CLAIMS] = claims
    ts[ES.TS_FIRST_DRAW] = 15
    ts[ES.TS_OUTCOME] = C.OUT_WALL_EXHAUSTED
    for i in (ES.TS_WINNER, ES.TS_DISCARDER, ES.TS_WIN_TILE, ES.TS_LIABLE, ES.TS_EARTHLY_RULE):
        ts[i] = -1
    ts[ES.TS_ROUND_WIND] = int(pos.round_wind)
    ts[ES.TS_INDICATOR] = int(pos.indicator)
    ts[ES.TS_FIRST_LIMITS] = 1 if (rules[C.R_FIRST_ROUND] == C.FIRST_ROUND_EVERY_HAND
                                  and ts[ES.TS_DISCARDS] < 4) else 0
    own = melds[seat].copy()
    pub = melds.copy()
    for s in range(4):
        if s != seat:
            for m in range(int(n_melds[s])):
                if pub[s, m, C.MELD_TYPE] == C.MELD_CKONG:
                    pub[s, m, C.MELD_KIND] = -1
    pond = np.zeros((4, MAX_POND), np.int8)
    pond[:, :] = np.asarray(pos.pond, dtype=np.int8)[:, :MAX_POND]
    flags = np.zeros((4, MAX_POND), np.int8)
    flags[:, :] = np.asarray(pos.pond_flags, dtype=np.int8)[:, :MAX_POND]
    hands = np.zeros((4, C.N_KINDS), np.int8)
    hands[seat] = np.asarray(pos.hand, dtype=np.int8)
    passed = np.zeros((4, C.N_KINDS), np.bool_)
    if pos.passed is not None:
        passed[:, :] = np.asarray(pos.passed, dtype=np.bool_).reshape(4, C.N_KINDS)
    tables = _tables()
    return View(rules, tables, seat, to_play, int(pos.round_wind), int(pos.indicator),
                int(pos.tiles_left), int(ts[ES.TS_DISCARDS]), n_kongs, hands[seat], own, pub,
                n_melds, np.ascontiguousarray(pos.flowers, dtype=np.uint8), _visible(rs, pos),
                wild, pond, flags, n_pond, passed, fed, ws, ts,
                _playout(rules, tables, code_of(base)))


def _playout(rules: np.ndarray, tables, code: int):
    """A ``View.playout`` for the evaluator's Views: the entries of the game
    engine and of the decisions of the policy of ``code``
    (``engine.loop.policy_record`` of four seats playing it: only its
    entries are used)."""
    from nbsim.kernels.engine.loop import policy_record
    from nbsim.kernels.policies.catalog import MAX_PARAMS
    from nbsim.kernels.policies.view import Playout
    record = policy_record(np.full(4, code, np.int64), np.zeros((4, MAX_PARAMS)), rules, tables)
    return Playout(record.engine, record.decisions, record.scorer)


def _key(seed: int, round_: int = 0) -> np.uint64:
    """The worlds' key of round ``round_`` of a race from ``seed`` (round 0:
    the worlds of an unraced evaluation)."""
    from nbsim.kernels import rng
    return np.uint64(rng.deal_key(np.uint64(seed), np.int64(round_)))


def _checked(rules: RuleSet | str | Path, pos: Position) -> RuleSet:
    """The rules (a RuleSet, a shipped variant's name or a TOML path) and
    ``pos`` checked as a position of them (``advice_state.check_position``:
    HandError for a non-Position or one built for another variant)."""
    from nbsim.play.advice.state import check_position
    rs = as_rules(rules)
    check_position(rs, pos)
    return rs


def _check_settings(samples: int, seed: int, base: str, opponents: int) -> tuple[int, int, int]:
    """(samples, seed, opponents) as ints, checked: samples 2 .. 100,000, seed
    0 .. 2**64 - 1 (whole numbers), base one of ``PLAYOUT_POLICIES``, an
    opponent model of ``OPPONENT_MODELS``; RunError otherwise."""
    from nbsim.args import whole_number
    samples = whole_number(samples, "samples", error=RunError)
    if not 2 <= samples <= 100_000:
        raise RunError(f"samples must be 2 .. 100,000 (an interval needs two), got {samples}")
    seed = whole_number(seed, "seed", 0, 2**64 - 1, RunError)
    if not isinstance(base, str) or base not in PLAYOUT_POLICIES:
        raise RunError(f"base policy {base!r}: allowed {', '.join(PLAYOUT_POLICIES)}")
    return samples, seed, check_opponents(opponents)


def check_race(first, budget) -> tuple[int | None, float | None]:
    """(first, budget) of a race checked: ``first`` None (no race: one round)
    or a whole number 2 .. 100,000, the first round's deals; ``budget`` None
    or 0 (no clock) or seconds > 0, finite (a number, not a bool). RunError
    otherwise."""
    from nbsim.args import whole_number
    if first is not None:
        first = whole_number(first, "first", 2, 100_000, RunError)
    if budget is None:
        return first, None
    if isinstance(budget, bool) or not isinstance(budget, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(budget)) or budget < 0:
        raise RunError(f"budget {budget!r}: seconds, a number >= 0 (0: no time limit)")
    return first, float(budget) or None


def _whole_numbers(values, what: str, items: str, each: str, lo: int | None = None,
                   hi: int | None = None) -> list[int]:
    """``values`` (a sequence of whole numbers, each lo .. hi when given) as a
    list of ints; RunError for anything else (a string, None, a bool, a
    number out of range). ``items`` and ``each`` name them in messages."""
    from nbsim.args import whole_number
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence | np.ndarray):
        raise RunError(f"{what}: expected a sequence of {items}, got {values!r}")
    return [whole_number(k, f"{what}: each {each}", lo, hi, RunError) for k in values]


def _kinds(values, what: str) -> list[int]:
    """``values`` (a sequence of tile kinds, ints 0 .. 41) as a list of ints
    (``_whole_numbers``)."""
    return _whole_numbers(values, what, f"tile kinds (ints 0..{C.N_KINDS - 1})", "kind", 0,
                          C.N_KINDS - 1)


def _group(rules: RuleSet, pos: Position, cands: Sequence[int], samples: int, seed: int,
           base: str, opponents: int, claim_tile: int,
           claim_q: int, round_: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``playout.evaluate_into`` on one kind of candidates (discard kinds,
    claim answers when ``claim_q`` >= 0, own-turn kong kinds when
    ``claim_q`` is ``playout.KONG_Q``): their ``ST_*`` sums and payments,
    float64[n, SEARCH_STATS] and float64[n, samples]. The worlds depend on
    the seed, the race's round (``_key``) and the opponent model only, so
    groups played from one seed and round share them; they never give a
    seat a hand that would have won on a kind it let go by
    (``playout.RESPECT_PASSED``; ``pos.passed``), and a refined flush
    target keeps the honours (``playout.FLUSH_HONOURS``:
    docs/results/calibration.md)."""
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.search import playout as PL

    view = view_of(rules, pos, kong_turn=claim_q == PL.KONG_Q, base=base)
    n, ns = len(cands), int(samples)
    sr = ES.new_search(n, ns)
    sr.cands[:n] = cands
    PL.evaluate_into(view, sr, np.int64(n), np.int64(ns), _key(seed, round_),
                     np.int64(code_of(base)), np.int64(claim_tile), np.int64(claim_q), -1.0,
                     np.int64(opponents) | PL.RESPECT_PASSED | PL.FLUSH_HONOURS)
    return sr.stats[:n].copy(), sr.pays[:n].copy()


def _round_size(first: int, cap: int, done: int, round_: int) -> int:
    """Deals of round ``round_`` of a race: ``first``, then ``first``,
    2 x ``first``, 4 x ``first``, ... (the deals so far double each round),
    never past ``cap`` deals in all (``done`` played)."""
    return min(first if round_ == 0 else first << (round_ - 1), cap - done)


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of the paired difference ``a - b`` (the same
    deals: common random numbers)."""
    d = a - b
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0


def _played(rules: RuleSet, pos: Position, cands: Sequence[int], samples: int, seed: int,
            base: str, opponents: int, claim_tile: int, claim_q: int,
            kongs: Sequence[int] = (), first: int | None = None,
            budget: float | None = None) -> Evaluation:
    """The candidates (discard kinds, or claim answers when ``claim_q`` >=
    0) and the own-turn ``kongs`` (kinds) raced on common worlds, and their
    rows, best first (``_group``).

    Round r plays every candidate still in the race on the same new worlds
    (``_round_size``: ``first`` deals, then as many as all the rounds before);
    after it, a candidate whose paired 95% interval of the difference to the
    best (highest mean so far) lies below 0 leaves the race. The race ends
    when one candidate is left ("decided"), the survivors have played
    ``samples`` deals ("samples") or the ``budget`` (seconds of computing:
    the CPU time of the thread that plays the race, so a busy machine takes
    longer but plays as many deals; None: no clock) is spent or would be by
    the next round ("budget"; the clock is read between rounds only, so the
    answer is the one ``samples`` = the deals played gives with no budget).
    ``first`` None or >= ``samples``: one round, every candidate on every
    deal. Rows: the survivors by mean
    payment, then the candidates dropped, the later first."""
    from nbsim.kernels.search import playout as PL
    from nbsim.play.advice.fits import Z95

    keys = [(int(k), False) for k in cands] + [(int(k), True) for k in kongs]
    n = len(keys)
    first = samples if first is None else max(2, min(int(first), samples))
    stats: np.ndarray | None = None
    pays: list[list[np.ndarray]] = [[] for _ in range(n)]
    dropped = [-1] * n
    alive = list(range(n))
    done = rounds = work = 0
    stopped = "samples"
    start = time.thread_time()
    while True:
        size = _round_size(first, samples, done, rounds)
        if rounds and budget is not None:
            elapsed = time.thread_time() - start
            fits = int((budget - elapsed) * work / max(elapsed, 1e-9) / len(alive))
            if fits < min(size, RACE_FIRST // 5):
                stopped = "budget"
                break
            size = min(size, fits)
        parts = []
        discards = [keys[i][0] for i in alive if not keys[i][1]]
        if discards:
            parts.append(_group(rules, pos, discards, size, seed, base, opponents, claim_tile,
                                claim_q, rounds))
        own_kongs = [keys[i][0] for i in alive if keys[i][1]]
        if own_kongs:
            parts.append(_group(rules, pos, own_kongs, size, seed, base, opponents, -1,
                                PL.KONG_Q, rounds))
        st = np.concatenate([p[0] for p in parts])
        py = np.concatenate([p[1] for p in parts])
        order = [i for i in alive if not keys[i][1]] + [i for i in alive if keys[i][1]]
        if stats is None:
            stats = np.zeros((n, st.shape[1]))
        for row, i in enumerate(order):
            stats[i] += st[row]
            pays[i].append(py[row])
        done += size
        work += size * len(alive)
        rounds += 1
        if done >= samples:
            break
        if budget is not None and time.thread_time() - start >= budget:
            stopped = "budget"
            break
        whole = {i: np.concatenate(pays[i]) for i in alive}
        lead = max(alive, key=lambda i: whole[i].mean())
        for i in alive:
            mean, se = _paired(whole[i], whole[lead])
            if i != lead and mean + Z95 * se < 0:
                dropped[i] = rounds
        alive = [i for i in alive if dropped[i] < 0]
        if len(alive) == 1:
            stopped = "decided"
            break
    assert stats is not None
    played = stats[:, PL.ST_N]
    if played.min() < 1:
        raise RunError("no sampled deal fits this position: the unseen tiles cannot fill the "
                       "other hands and the wall (check the wall left and the discards)")
    every = [np.concatenate(p) for p in pays]
    mean = stats[:, PL.ST_PAY] / played
    ranked = sorted(range(n), key=lambda i: (dropped[i] >= 0, -dropped[i], -mean[i]))
    best = ranked[0]
    rows = []
    for i in ranked:
        m = played[i]
        var = max(stats[i, PL.ST_PAY2] / m - mean[i] ** 2, 0.0) * m / max(m - 1, 1)
        p_win = stats[i, PL.ST_WIN] / m
        ns = len(every[i])
        diff, diff_se = _paired(every[i], every[best][:ns])
        won = every[i][every[i] > 0]
        rows.append(CandidateValue(
            kind=int(keys[i][0]), mean_pay=float(mean[i]), se_pay=math.sqrt(var / m),
            p_win=float(p_win), se_win=math.sqrt(p_win * (1 - p_win) / m),
            p_deal_in=float(stats[i, PL.ST_DEAL_IN] / m),
            p_deal_in_to=(float(stats[i, PL.ST_DEAL_IN_TO] / m),
                          float(stats[i, PL.ST_DEAL_IN_TO + 1] / m),
                          float(stats[i, PL.ST_DEAL_IN_TO + 2] / m),
                          float(stats[i, PL.ST_DEAL_IN_TO + 3] / m)),
            p_exhausted=float(stats[i, PL.ST_EXHAUSTED] / m),
            diff=diff, diff_se=diff_se, n=int(m), kong=keys[i][1],
            win_pay=float(won.mean()) if len(won) else math.nan, deals=ns,
            dropped=max(dropped[i], 0)))
    return Evaluation(tuple(rows), done, int(seed), base, int(opponents), rounds=rounds,
                      stopped=stopped, budget=budget, cap=int(samples), claim=claim_q >= 0)


def why_best(best, runner, best_name: str, runner_name: str) -> str:
    """One sentence on why ``best`` beats ``runner`` (two ``CandidateValue``
    or ``CandidateAdvice`` rows of one position: mean_pay, p_win, win_pay,
    p_deal_in), naming them ``best_name`` and ``runner_name``. The gap in
    mean payment (points per deal) is split exactly into the win chance
    (the change in P(win) times the mean payment of a won deal), the value
    of a won deal (the change in that payment times P(win)) and the losses
    when not winning (dealing in, the others' self-drawn wins); the largest
    share names the reason, with its numbers."""
    def won(c) -> float:
        w = getattr(c, "win_pay", None)
        return float(w) if w is not None and math.isfinite(w) else 0.0
    pb, pr, wb, wr = float(best.p_win), float(runner.p_win), won(best), won(runner)
    gap = float(best.mean_pay) - float(runner.mean_pay)
    shares = {"chance": (pb - pr) * (wb + wr) / 2, "value": (wb - wr) * (pb + pr) / 2}
    shares["losses"] = gap - shares["chance"] - shares["value"]
    main = max(shares, key=lambda k: shares[k])
    why = {"chance": f"a higher chance to win (P(win) {pb:.3f} vs {pr:.3f})",
           "value": f"a more valuable hand when it wins ({wb:+.1f} vs {wr:+.1f} points in the "
                    f"deals it wins)",
           "losses": f"smaller losses when it does not win (P(deal in) "
                     f"{float(best.p_deal_in):.3f} vs {float(runner.p_deal_in):.3f})"}[main]
    return (f"{best_name} beats {runner_name} by {gap:+.2f} points per deal, mainly through "
            f"{why}.")


def evaluate(rules: RuleSet | str | Path, pos: Position, *, samples: int = 400, seed: int = 0,
             base: str = "defend", kinds: Sequence[int] | None = None,
             kongs: Sequence[int] = (), opponents: int = DEFAULT_OPPONENTS,
             first: int | None = None, budget: float | None = None) -> Evaluation:
    """Every candidate discard of ``pos`` (the seat to play holds 3k+2
    tiles) played to the end of the deal on ``samples`` sampled worlds, or
    raced over rounds of them (``first``, ``budget``).

    Each world deals the tiles the seat has not seen at random (the others'
    hands, face-down kongs and the wall; ``nbsim/kernels/search/playout.py``), the
    candidate is discarded, and every seat plays ``base`` (greedy, value or
    defend) to the end. ``opponents``: how the others' hidden hands are
    dealt (``OPPONENT_MODELS``; the default, ``DEFAULT_OPPONENTS`` = 3,
    refines them as players' hands, toward a flush in the suit their
    discards point to, so that the forecasts agree with real deals:
    docs/lookahead.md, "Calibration of the worlds"; a refined flush target
    keeps the honours: each tile's deal-in chance against played deals,
    docs/results/calibration.md); no world gives a seat a hand that would have won
    on a kind it let go by (``pos.passed``).
    The same worlds for every candidate (common random numbers). ``kinds``:
    the candidates
    (held kinds; default every held kind). ``kongs``: kinds whose own-turn
    kong (concealed: four held; added: the fourth copy to an own pung) is
    played out too, on the same worlds: the kong, its replacement draw,
    then ``base``'s play (rows with ``kong`` True; docs/rules.md §4).
    ``rules``: a RuleSet, a shipped variant's name or a TOML path.
    ``first``: None, every candidate on all ``samples`` worlds; a number of
    deals, a race (``_played``): a first round of ``first`` worlds for
    every candidate, then rounds of new common worlds (as many as all
    before) for the candidates whose paired 95% interval to the best still
    reaches 0, until one is left or they reach ``samples`` deals, or
    ``budget`` seconds of computing (the CPU time of the calling thread;
    None or 0: no clock; read between rounds) are spent. The same seed,
    samples and first give the same answer; a race the clock ended is
    replayed by ``samples`` = the deals it played (``Evaluation.samples``)
    without a budget. Returns an Evaluation, best
    mean payment first (points per deal for the seat; ``reason``: why the
    best beats the runner-up). Raises HandError for a ``pos`` that is not a Position of these
    rules (``advice_state.check_position``), RunError: the seat is not the
    one to play, a candidate is not held or not a kind (0..41), a kong the
    seat cannot declare, samples out of 2 .. 100,000, a seed out of 0 ..
    2**64 - 1, an unknown base policy or opponent model, a bad first or
    budget (``check_race``), or no sample could be dealt (the position
    leaves too few unseen tiles for the others' hands and the wall)."""
    rules = _checked(rules, pos)
    if pos.seat != pos.to_play:
        raise RunError("evaluate: the position is not the seat's discard (to_play differs)")
    samples, seed, opponents = _check_settings(samples, seed, base, opponents)
    first, budget = check_race(first, budget)
    hand = np.asarray(pos.hand)
    held = [k for k in range(C.N_KINDS) if hand[k] > 0]
    cands = list(held) if kinds is None else _kinds(kinds, "kinds")
    bad = [k for k in cands if k not in held]
    if bad or not cands:
        from nbsim.rules.tiles import format_tiles
        raise RunError(f"candidate discards {format_tiles(bad) if bad else '(none)'}: "
                       f"not held; the hand holds {format_tiles(held)}")
    kongs = _kinds(kongs, "kongs")
    allowed = kong_kinds(rules, pos) if kongs else []
    bad = [k for k in kongs if k not in allowed]
    if bad:
        from nbsim.rules.tiles import format_tiles
        raise RunError(f"kongs {format_tiles(bad)}: not a kong the seat may declare; it may "
                       f"declare {format_tiles(allowed) or 'none'} (four held "
                       f"copies, or the fourth copy of an own pung; never a wild)")
    return _played(rules, pos, cands, samples, seed, base, opponents, -1, -1, kongs, first,
                   budget)


def kong_kinds(rules: RuleSet, pos: Position) -> list[int]:
    """The kinds (ascending) of the own-turn kongs the seat of ``pos`` holds
    the tiles for: four held copies (concealed), or the fourth copy of one
    of its pungs (added); never a wild or a flower (docs/rules.md §3-§4).
    The wall and the turn's limits are the caller's (``nbsim.play.advice.advise``)."""
    from nbsim.kernels.wilds import wild_mask
    wild = np.zeros(C.N_KINDS, np.bool_)
    wild_mask(rules.array, np.int64(pos.indicator), wild)
    me = int(pos.seat)
    pungs = {int(pos.melds[me, i, C.MELD_KIND]) for i in range(int(pos.n_melds[me]))
             if int(pos.melds[me, i, C.MELD_TYPE]) == C.MELD_PUNG}
    return [k for k in range(C.N_PLAY) if not wild[k]
            and (pos.hand[k] == 4 or (k in pungs and pos.hand[k] >= 1))]


C_CLAIM_CODES = 6       # common.CLAIM_*: pass, pung, kong and the three chows


def evaluate_claims(rules: RuleSet | str | Path, pos: Position, answers: Sequence[int], *,
                    samples: int = 400, seed: int = 0, base: str = "defend",
                    opponents: int = DEFAULT_OPPONENTS, first: int | None = None,
                    budget: float | None = None) -> Evaluation:
    """Every answer of the deciding seat to the offered discard of ``pos``
    (``pos.offered``; the seat is not the discarder ``pos.to_play``) played
    to the end of the deal on ``samples`` sampled worlds, the same worlds
    for every answer (common random numbers).

    answers: claim codes (``common.CLAIM_*``: 0 pass, 1 pung, 2 kong, 3 + j
    the chow whose lowest tile is the offered one minus j), legal in the
    position (the caller's check: ``nbsim.play.advice.advise`` lists them). A pass
    passes every claim of the seat; after a claim the seat discards as
    ``base`` would, and so on to the end (``playout.evaluate_into``, docs/
    rules.md §4); ``opponents``, ``first`` and ``budget`` (a race over the
    answers) as ``evaluate``'s. Each row's ``kind`` is
    the answer's code; payments in points per deal for the seat. Raises
    HandError as ``evaluate``; RunError: no offered discard, the seat is the
    discarder, an unknown answer, samples, seed, base policy or opponent
    model, first or budget as ``evaluate``'s, or no sample could be dealt."""
    rules = _checked(rules, pos)
    if pos.offered < 0 or pos.seat == pos.to_play:
        raise RunError("evaluate_claims: the position offers no discard to the seat (a claim "
                       "needs --offered and a discarder other than the seat)")
    samples, seed, opponents = _check_settings(samples, seed, base, opponents)
    first, budget = check_race(first, budget)
    codes = _whole_numbers(answers, "claim answers", "claim codes", "code")
    bad = [a for a in codes if not 0 <= a < C_CLAIM_CODES]
    if bad or not codes:
        raise RunError(f"claim answers {bad or '(none)'}: allowed 0 pass, 1 pung, 2 kong, "
                       f"3..5 chow")
    return _played(rules, pos, codes, samples, seed, base, opponents, int(pos.offered), 1,
                   first=first, budget=budget)


def exact_own_draws(rules: RuleSet | str | Path, pos: Position) -> dict[int, ExactOwnDraw]:
    """For every discard after which the hand is ready, the exact chance
    that the seat completes it by its own remaining draws.

    The model (docs/rules.md §2, §4-§5): after the discard the play goes
    round from the next seat; nobody else wins, claims or declares a kong,
    and the seat keeps its hand (it discards every tile it draws that does
    not win, and declares no kong). Each turn draws one tile from the
    ``pos.tiles_left`` drawable tiles; a drawn non-wild flower is set aside
    and replaced from the same drawable tiles in the same turn, by whichever
    seat draws it, so it gives no extra turn; the deal ends when no drawable
    tile is left. What the seat has not seen is dealt at random with every
    arrangement equally likely, except that a non-wild flower never stays
    in a hand: the others' concealed tiles are non-flower tiles never
    drawn, and the unseen flowers lie among the wall's tiles (the drawable
    ones, Ninghai's reserve, which is never drawn, and the tiles that left
    the wall unlisted when ``tiles_left`` is less than the table allows,
    ``advice_state.max_wall_left``). Another seat's face-down kong is four
    copies of a kind of which the seat sees none, each such kind (not a
    wild) equally likely. A drawn tile wins when it completes a legal
    self-drawn win in the context it is drawn in: a live draw, a flower's
    replacement (out with a replacement) or the last drawable tile, judged
    with the flowers the seat has set aside at ``pos`` (a context only adds
    tai). The chance is a Markov chain over the wall's composition
    (``own_draw_chain``); tests/exact_own_draw_reference.py checks it
    against an enumeration of small walls and a simulation of real ones.

    Keys: the discarded kind; values ExactOwnDraw (``draws``: the most own
    draws, ``own_draws_left``). ``rules`` and ``pos`` as ``evaluate``'s
    (HandError likewise); RunError when the position is not the seat's
    discard, or as ``view_of``."""
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.search import playout as PL
    from nbsim.play.advice.state import wall_tiles

    rules = _checked(rules, pos)
    if pos.seat != pos.to_play or pos.offered >= 0:
        raise RunError("exact_own_draws: the position is not the seat's discard (to_play "
                       "differs, or a discard is offered)")
    view = view_of(rules, pos)
    sr = ES.new_search(1, 1)
    hand = np.asarray(pos.hand)
    wins = np.zeros(C.N_KINDS, np.bool_)
    drawable = max(int(pos.tiles_left), 0)
    slots = wall_tiles(rules, pos)
    face_down = sum(1 for s in range(4) if s != pos.seat for m in range(int(pos.n_melds[s]))
                    if int(pos.melds[s, m, C.MELD_TYPE]) == C.MELD_CKONG)
    res: dict[int, ExactOwnDraw] = {}
    for k in range(C.N_KINDS):
        if hand[k] <= 0:
            continue
        pool = int(PL.self_draw_waits(view, sr, np.int64(k), _key(0), wins))
        u = np.asarray(sr.unseen).astype(np.int64)
        after = hand.astype(np.int64).copy()
        after[k] -= 1
        sigs = _win_contexts(rules, pos, view.wild, after, wins, u)
        if pool <= 0 or not sigs:
            continue
        flowers = int(sum(int(u[t]) for t in range(C.FLOWER0, C.N_KINDS) if not view.wild[t]))
        p = _with_face_down(drawable, slots, flowers, pool, sigs, u, view.wild, face_down)
        res[k] = ExactOwnDraw(k, tuple(sorted(sigs)), int(sum(int(u[t]) for t in sigs)), pool,
                              own_draws_left(pos), p, flowers, slots, drawable)
    return res


ALL_CONTEXTS = 0b1111      # a kind that wins in every draw context (bit ctx: CTX_* 0..3)


def _win_contexts(rs: RuleSet, pos: Position, wild: np.ndarray, after: np.ndarray,
                  wins: np.ndarray, u: np.ndarray) -> dict[int, int]:
    """The unseen kinds whose drawn tile completes a legal self-drawn win of
    ``after`` (the hand after the discard, int64[42]), each with the draw
    contexts it wins in: bit ``ctx`` for ctx = ``CTX_AFTER_KONG`` (a
    flower's replacement) | ``CTX_LAST_TILE`` (the last drawable tile), 0..3.
    ``wins``: the kinds legal on a live draw (``playout.self_draw_waits``),
    legal in every context; a kind that completes the hand but is not legal
    there is scored (``kernels.score.score_win``, as ``nbsim score`` scores
    it) in the three other contexts, the both-context one first (a context
    only adds tai: a kind not legal there is legal in none)."""
    from nbsim.kernels import hand as H
    from nbsim.kernels.scoring.score import HandTiles, Win, score_win
    from nbsim.play.advice.wins import fed_counts, pond_flowers

    me = int(pos.seat)
    n_melds = int(pos.n_melds[me])
    out = {int(t): ALL_CONTEXTS for t in np.flatnonzero(wins)}
    tiles = None
    res = np.zeros(C.RES_LEN, np.int64)
    both = C.CTX_AFTER_KONG | C.CTX_LAST_TILE
    for t in range(C.N_KINDS):
        if t in out or u[t] <= 0 or (t >= C.FLOWER0 and not wild[t]):
            continue
        h = after.copy()
        h[t] += 1
        nat = np.where(wild[:C.N_PLAY], 0, h[:C.N_PLAY]).astype(np.int8)
        if int(H.shanten(nat, int(h[wild].sum()), n_melds, _tables())) != -1:
            continue
        if tiles is None:
            fed, fed_by = fed_counts(pos)
            tiles = HandTiles(after.astype(np.int8), np.ascontiguousarray(pos.melds[me], np.int8),
                              n_melds, pond_flowers(pos))
        bits = 0
        for ctx in (both, C.CTX_AFTER_KONG, C.CTX_LAST_TILE):
            code = score_win(rs.array, _tables(), tiles,
                             Win(t, C.WIN_SELF_DRAW, ctx, me, int(pos.round_wind),
                                 int(pos.indicator), -1, fed, fed_by, -1, -1), res)
            if code != C.OK or not res[C.RES_WIN]:
                if ctx == both:
                    break
                continue
            bits |= 1 << ctx
        if bits:
            out[t] = bits
    return out


def _with_face_down(drawable: int, slots: int, flowers: int, pool: int, sigs: dict[int, int],
                    u: np.ndarray, wild: np.ndarray, face_down: int) -> float:
    """``own_draw_chain`` averaged over the kinds of the others'
    ``face_down`` kongs: distinct kinds, not wild, with all four copies
    unseen (``u``, int64[42]), every choice equally likely; a kong of a
    winning kind takes its four copies out of the winning tiles."""
    by_sig: dict[int, int] = {}
    for t, b in sigs.items():
        by_sig[b] = by_sig.get(b, 0) + int(u[t])
    order = sorted(by_sig)
    if face_down == 0:
        return own_draw_chain(drawable, slots, flowers, pool,
                              tuple(by_sig[b] for b in order), tuple(order))
    cands = [t for t in range(C.N_PLAY) if not wild[t] and u[t] == 4]
    n_kinds = [sum(1 for t in cands if sigs.get(t) == b) for b in order]
    n_other = len(cands) - sum(n_kinds)
    total = math.comb(len(cands), face_down)
    if total == 0:
        raise RunError(f"{face_down} face-down kongs of the other seats, and only "
                       f"{len(cands)} kinds with all four copies unseen to make them")
    p = 0.0
    for js in _splits(face_down, n_kinds):
        w = math.comb(n_other, face_down - sum(js))
        for n, j in zip(n_kinds, js, strict=True):
            w *= math.comb(n, j)
        if w:
            groups = tuple(by_sig[b] - 4 * j for b, j in zip(order, js, strict=True))
            p += w / total * own_draw_chain(drawable, slots, flowers, pool, groups,
                                            tuple(order))
    return p


def _splits(n: int, caps: list[int]) -> list[tuple[int, ...]]:
    """Every tuple of len(caps) counts 0 .. cap each, with sum at most n."""
    if not caps:
        return [()]
    return [(j, *rest) for j in range(min(n, caps[0]) + 1) for rest in _splits(n - j, caps[1:])]


@lru_cache(maxsize=4096)
def own_draw_chain(drawable: int, slots: int, flowers: int, pool: int,
                   groups: tuple[int, ...], contexts: tuple[int, ...]) -> float:
    """The chance that the seat wins on one of its own draws (the model of
    ``exact_own_draws``; docs/lookahead.md, "The exact own-draw answer").

    ``drawable``: tiles left to draw; ``slots``: the tiles where the
    ``flowers`` unseen non-wild flowers lie (the wall with its reserve, and
    the tiles that left it unlisted), >= drawable; ``pool``: the unseen
    non-flower tiles (the others' concealed tiles and the wall's non-flower
    tiles: pool = concealed + slots - flowers); ``groups``: the winning
    tiles in the pool, by kinds that win in the same draw contexts
    ``contexts`` (bit ``ctx`` set for ctx = ``CTX_AFTER_KONG`` (a flower's
    replacement) | ``CTX_LAST_TILE``, 0..3; ``ALL_CONTEXTS``: every one).
    Draws go round from the seat after the deciding one, which draws every
    fourth turn; each draw is a flower with chance flowers left / slots
    left (the same seat then draws its replacement), else one of the
    pool's undrawn tiles, each equally likely.

    Two steps. Where the flowers fall decides how many draws the seat
    makes and in which contexts (``_seat_draws``: a Markov chain over the
    flowers). The non-flower tiles drawn are a uniform sample of the pool
    whoever draws them, so the seat's own are one too, and the chance that
    none of them wins where it is drawn is a product of hypergeometric
    terms (``_none_wins``). With no unseen flower and every group winning
    everywhere this is 1 - C(pool - W, n) / C(pool, n) for W winning tiles
    and n = drawable // 4 own draws. Returns the probability (0 .. 1)."""
    wins_in = tuple(sum(n for n, c in zip(groups, contexts, strict=True) if c >> ctx & 1)
                    for ctx in range(4))
    only_last = tuple(sum(n for n, c in zip(groups, contexts, strict=True)
                          if c >> ctx & 1 and not c >> C.CTX_AFTER_KONG & 1) for ctx in range(4))
    p_none = sum(p * _none_wins(pool, wins_in, only_last, m0, m1, last)
                 for (m0, m1, last), p in _seat_draws(drawable, slots, flowers).items())
    return min(max(1.0 - p_none, 0.0), 1.0)


@lru_cache(maxsize=256)
def _seat_draws(drawable: int, slots: int, flowers: int) -> dict[tuple[int, int, int], float]:
    """The seat's own non-flower draws until no drawable tile is left, as
    {(m0, m1, last): probability}: m0 live draws and m1 flowers'
    replacements before the last drawable tile, and ``last`` the context of
    the seat's draw of that last tile (``CTX_LAST_TILE``, | ``CTX_AFTER_KONG``
    for a replacement), -1 when another seat draws it. A Markov chain, one
    step per drawable tile, over (replacement or not, flowers left,
    replacements the seat drew): float64[2, flowers + 1, flowers + 1]; the
    turn is the seat's when the non-flower draws so far are 3 mod 4."""
    a = np.zeros((2, flowers + 1, flowers + 1))
    a[0, flowers, 0] = 1.0
    f = np.arange(flowers + 1).reshape(1, -1, 1)
    out: dict[tuple[int, int, int], float] = {}

    def add(key: tuple[int, int, int], p: float) -> None:
        if p > 0:
            out[key] = out.get(key, 0.0) + p

    n_draws = min(drawable, slots)
    for k in range(n_draws):
        p_flower = f / (slots - k)
        turns = k - (flowers - f)                    # turns ended by a non-flower draw
        mine = turns % 4 == 3
        tile = a * (1.0 - p_flower)
        new = np.zeros_like(a)
        new[1, :-1] += (a * p_flower).sum(axis=0)[1:]
        new[0] += np.where(mine, 0.0, tile).sum(axis=0)
        seat = np.where(mine, tile, 0.0)
        if k == n_draws - 1:
            for r in (0, 1):
                for fl, m1 in zip(*np.nonzero(seat[r]), strict=True):
                    n = (k + 1 - (flowers - int(fl))) // 4
                    add((n - int(m1) - 1, int(m1), C.CTX_LAST_TILE | r * C.CTX_AFTER_KONG),
                        float(seat[r, fl, m1]))
        else:
            new[0] += seat[0]
            new[0, :, 1:] += seat[1, :, :-1]
        a = new
    for fl, m1 in zip(*np.nonzero(a.sum(axis=0)), strict=True):
        n = (n_draws - (flowers - int(fl))) // 4
        add((n - int(m1), int(m1), -1), float(a[:, fl, m1].sum()))
    return out


def _falling_ratio(total: int, bad: int, n: int) -> float:
    """The chance that n tiles drawn without replacement from ``total``
    miss ``bad`` of them: (total - bad)_n / (total)_n."""
    p = 1.0
    for i in range(n):
        p *= max(total - bad - i, 0) / max(total - i, 1)
    return p


def _none_wins(pool: int, wins_in: tuple[int, ...], only_last: tuple[int, ...], m0: int,
               m1: int, last: int) -> float:
    """The chance that none of the seat's draws wins: m1 replacement draws,
    then the last tile's draw in context ``last`` (-1: none), then m0 live
    draws, a uniform sample of the ``pool`` (the order of an exchangeable
    sample does not change the chance). ``wins_in[ctx]``: the pool's tiles
    winning on a draw in context ctx; ``only_last[ctx]``: those of them
    that do not win on a replacement. The tiles winning on a live draw win
    everywhere (``_win_contexts``), so no earlier draw took one of them."""
    repl = wins_in[C.CTX_AFTER_KONG]
    p = _falling_ratio(pool, repl, m1)
    left = pool - m1
    if last >= 0:
        # the replacement draws missed the tiles winning on them; of the
        # others winning on the last draw, j were drawn
        z, k = pool - repl, only_last[last]
        p_last = 0.0
        for j in range(min(k, m1) + 1):
            pj = math.comb(k, j) * math.comb(z - k, m1 - j) / math.comb(z, m1) if z >= m1 else 0.0
            p_last += pj * (left - (wins_in[last] - j)) / max(left, 1)
        p *= p_last
        left -= 1
    return p * _falling_ratio(left, wins_in[0], m0)
