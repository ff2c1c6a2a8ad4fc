"""The lookahead evaluator from Python: every candidate discard of a
``Position`` (or every answer to a discard offered to it) played to the end
of the deal on sampled hidden tiles, and the exact own-draw chance of a
ready hand.

``evaluate`` is the engine of ``nbsim advise`` and the numbers behind the
``lookahead`` policy (``nbsim/kernels/playout.py`` does the work; docs/rules.md
§2-§5 for the play it simulates). ``exact_own_draws`` is the one answer
that needs no sampling: with no opponent acting, a ready hand that keeps its
wait completes on one of its own remaining draws with a hypergeometric
probability.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.kernels.policies.catalog import code_of
from nbsim.play.position import MAX_POND, Position
from nbsim.play.worlds import ADVICE_OPPONENTS as DEFAULT_OPPONENTS
from nbsim.play.worlds import OPPONENT_MODELS, check_opponents
from nbsim.rules.ruleset import RuleSet, as_rules

__all__ = ["CandidateValue", "DEFAULT_OPPONENTS", "Evaluation", "ExactOwnDraw",
           "OPPONENT_MODELS", "check_opponents", "evaluate", "evaluate_claims",
           "exact_own_draws", "kong_kinds", "view_of", "own_draws_left"]

PLAYOUT_POLICIES = ("greedy", "value", "defend")


@dataclass(frozen=True)
class CandidateValue:
    """One candidate discard's outcome over the samples, for the deciding
    seat: ``kind`` (0..41), mean payment ``mean_pay`` and its standard error
    ``se_pay`` (points per deal), ``p_win``/``se_win``, ``p_deal_in``,
    ``p_deal_in_to`` (by seat E S W N; 0 for the seat itself),
    ``p_exhausted``, and the paired difference ``diff`` to the best
    candidate's mean payment with its standard error ``diff_se`` (common
    random numbers; 0 and 0 for the best), over ``n`` samples played.
    ``kong``: the candidate is the own-turn kong of ``kind`` (concealed or
    added), not its discard."""
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


@dataclass(frozen=True)
class Evaluation:
    """``evaluate``'s answer: the candidates, best (highest mean payment)
    first, with the samples, seed, playout policy and opponent model
    (``OPPONENT_MODELS``) that produced them."""
    candidates: tuple[CandidateValue, ...]
    samples: int
    seed: int
    base: str
    opponents: int = DEFAULT_OPPONENTS

    @property
    def best_kind(self) -> int:
        """The recommended discard (kind; the kong's kind when the best
        candidate is a kong, ``candidates[0].kong``)."""
        return self.candidates[0].kind


@dataclass(frozen=True)
class ExactOwnDraw:
    """Exact (own draws, no opponents): after discarding ``kind`` the hand
    is ready on ``waits`` (kinds completing a legal self-drawn win), with
    ``winning_unseen`` of the ``unseen`` tiles; over its ``draws`` own draws
    it wins with probability ``p_win`` (hypergeometric: the seat keeps its
    wait and nobody else wins or claims)."""
    kind: int
    waits: tuple[int, ...]
    winning_unseen: int
    unseen: int
    draws: int
    p_win: float


@cache
def _tables():
    from nbsim.rules.lookups import load_tables
    return load_tables()


def own_draws_left(pos: Position) -> int:
    """Draws the seat still gets after its discard if the play goes round
    without claims: every fourth of the ``tiles_left`` drawable tiles."""
    return max(int(pos.tiles_left), 0) // 4


def _visible(rs: RuleSet, pos: Position) -> np.ndarray:
    """Face-up copies by kind (int8[42]) as the engine counts them: every
    discard (a claimed one once: in its meld, the pond's copy marked
    ``POND_CLAIMED`` is not counted again), every tile of the declared
    melds, the flowers set aside and the indicator; never a face-down kong
    (the seat's own counts apart: ``playout.build_world``)."""
    from nbsim.play.advice_notation import POND_CLAIMED, meld_kinds
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


def view_of(rs: RuleSet, pos: Position, kong_turn: bool = False):
    """The kernels' ``View`` (``nbsim/kernels/policies/view.py``) of a
    Position, with the wall's state and the turn state made up from what
    it tells: ``tiles_left`` drawable tiles from position 53 on, every seat
    has drawn, no kong lock or chow-swap limit, the kinds each seat let go
    by (``View.passed``) from ``pos.passed`` (none when None).
    ``kong_turn``: the seat to play is at its own-turn kong question (its
    self-drawn win already passed: the turn resumes at the kong,
    ``engine_turn.own_kong``). Raises RunError for a position the engine
    cannot continue from (a seat or a tile count out of range)."""
    from nbsim.kernels import engine as E
    from nbsim.kernels import wall as W
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
    ts = np.zeros(E.TS_LEN, np.int64)
    ts[E.TS_CUR] = to_play
    drawn = int(pos.drawn) if seat == to_play else -1
    ts[E.TS_JUST_DREW] = 1 if drawn >= 0 and not kong_turn else 0
    ts[E.TS_AFTER_PUNG] = 1 if kong_turn else 0      # opens the kong question only
    ts[E.TS_HAS_DRAWN] = 1 if drawn >= 0 else 0
    ts[E.TS_DRAWN] = drawn
    ts[E.TS_KONG_FROM] = -1
    ts[E.TS_FORBID_A] = -1
    ts[E.TS_FORBID_B] = -1
    ts[E.TS_N_KONGS] = n_kongs
    ts[E.TS_DISCARDS] = int(n_pond.sum())
    ts[E.TS_CLAIMS] = claims
    ts[E.TS_FIRST_DRAW] = 15
    ts[E.TS_OUTCOME] = C.OUT_WALL_EXHAUSTED
    for i in (E.TS_WINNER, E.TS_DISCARDER, E.TS_WIN_TILE, E.TS_LIABLE, E.TS_EARTHLY_RULE):
        ts[i] = -1
    ts[E.TS_ROUND_WIND] = int(pos.round_wind)
    ts[E.TS_INDICATOR] = int(pos.indicator)
    ts[E.TS_FIRST_LIMITS] = 1 if (rules[C.R_FIRST_ROUND] == C.FIRST_ROUND_EVERY_HAND
                                  and ts[E.TS_DISCARDS] < 4) else 0
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
    return View(rules, _tables(), seat, to_play, int(pos.round_wind), int(pos.indicator),
                int(pos.tiles_left), int(ts[E.TS_DISCARDS]), n_kongs, hands[seat], own, pub,
                n_melds, np.ascontiguousarray(pos.flowers, dtype=np.uint8), _visible(rs, pos),
                wild, pond, flags, n_pond, passed, fed, ws, ts)


def _key(seed: int) -> np.uint64:
    from nbsim.kernels import rng
    return np.uint64(rng.deal_key(np.uint64(seed), np.int64(0)))


def _checked(rules: RuleSet | str | Path, pos: Position) -> RuleSet:
    """The rules (a RuleSet, a shipped variant's name or a TOML path) and
    ``pos`` checked as a position of them (``advice_state.check_position``:
    HandError for a non-Position or one built for another variant)."""
    from nbsim.play.advice_state import check_position
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
           claim_q: int) -> tuple[np.ndarray, np.ndarray]:
    """``playout.evaluate_into`` on one kind of candidates (discard kinds,
    claim answers when ``claim_q`` >= 0, own-turn kong kinds when
    ``claim_q`` is ``playout.KONG_Q``): their ``ST_*`` sums and payments,
    float64[n, SEARCH_STATS] and float64[n, samples]. The worlds depend on
    the seed and the opponent model only, so groups played from one seed
    share them; they never give a seat a hand that would have won on a kind
    it let go by (``playout.RESPECT_PASSED``; ``pos.passed``), and a
    refined flush target keeps the honours (``playout.FLUSH_HONOURS``:
    docs/calibration.md)."""
    from nbsim.kernels import engine as E
    from nbsim.kernels import playout as PL

    view = view_of(rules, pos, kong_turn=claim_q == PL.KONG_Q)
    n, ns = len(cands), int(samples)
    sr = E.new_search(n, ns)
    sr.cands[:n] = cands
    PL.evaluate_into(view, sr, np.int64(n), np.int64(ns), _key(seed),
                     np.int64(code_of(base)), np.int64(claim_tile), np.int64(claim_q), -1.0,
                     np.int64(opponents) | PL.RESPECT_PASSED | PL.FLUSH_HONOURS)
    return sr.stats[:n].copy(), sr.pays[:n].copy()


def _played(rules: RuleSet, pos: Position, cands: Sequence[int], samples: int, seed: int,
            base: str, opponents: int, claim_tile: int, claim_q: int,
            kongs: Sequence[int] = ()) -> Evaluation:
    """The candidates (discard kinds, or claim answers when ``claim_q`` >=
    0) and the own-turn ``kongs`` (kinds) played on the same worlds, and
    their rows, best mean payment first (``_group``)."""
    from nbsim.kernels import playout as PL

    ns = int(samples)
    parts = [_group(rules, pos, cands, ns, seed, base, opponents, claim_tile, claim_q)]
    keys = [(int(k), False) for k in cands]
    if kongs:
        parts.append(_group(rules, pos, kongs, ns, seed, base, opponents, -1, PL.KONG_Q))
        keys += [(int(k), True) for k in kongs]
    stats = np.concatenate([p[0] for p in parts])
    pays = np.concatenate([p[1] for p in parts])
    n = len(keys)
    played = stats[:, PL.ST_N]
    if played.min() < 1:
        raise RunError("no sampled deal fits this position: the unseen tiles cannot fill the "
                       "other hands and the wall (check the wall left and the discards)")
    mean = stats[:, PL.ST_PAY] / played
    order = sorted(range(n), key=lambda i: -mean[i])
    best = order[0]
    rows = []
    for i in order:
        m = played[i]
        var = max(stats[i, PL.ST_PAY2] / m - mean[i] ** 2, 0.0) * m / max(m - 1, 1)
        p_win = stats[i, PL.ST_WIN] / m
        d = pays[i] - pays[best]
        rows.append(CandidateValue(
            kind=int(keys[i][0]), mean_pay=float(mean[i]), se_pay=math.sqrt(var / m),
            p_win=float(p_win), se_win=math.sqrt(p_win * (1 - p_win) / m),
            p_deal_in=float(stats[i, PL.ST_DEAL_IN] / m),
            p_deal_in_to=(float(stats[i, PL.ST_DEAL_IN_TO] / m),
                          float(stats[i, PL.ST_DEAL_IN_TO + 1] / m),
                          float(stats[i, PL.ST_DEAL_IN_TO + 2] / m),
                          float(stats[i, PL.ST_DEAL_IN_TO + 3] / m)),
            p_exhausted=float(stats[i, PL.ST_EXHAUSTED] / m),
            diff=float(d.mean()), diff_se=float(d.std(ddof=1) / math.sqrt(ns)) if ns > 1 else 0.0,
            n=int(m), kong=keys[i][1]))
    return Evaluation(tuple(rows), ns, int(seed), base, int(opponents))


def evaluate(rules: RuleSet | str | Path, pos: Position, *, samples: int = 400, seed: int = 0,
             base: str = "defend", kinds: Sequence[int] | None = None,
             kongs: Sequence[int] = (), opponents: int = DEFAULT_OPPONENTS) -> Evaluation:
    """Every candidate discard of ``pos`` (the seat to play holds 3k+2
    tiles) played to the end of the deal on ``samples`` sampled worlds.

    Each world deals the tiles the seat has not seen at random (the others'
    hands, face-down kongs and the wall; ``nbsim/kernels/playout.py``), the
    candidate is discarded, and every seat plays ``base`` (greedy, value or
    defend) to the end. ``opponents``: how the others' hidden hands are
    dealt (``OPPONENT_MODELS``; the default, ``DEFAULT_OPPONENTS`` = 3,
    refines them as players' hands, toward a flush in the suit their
    discards point to, so that the forecasts agree with real deals:
    docs/lookahead.md, "Calibration of the worlds"; a refined flush target
    keeps the honours: each tile's deal-in chance against played deals,
    docs/calibration.md); no world gives a seat a hand that would have won
    on a kind it let go by (``pos.passed``).
    The same worlds for every candidate (common random numbers). ``kinds``:
    the candidates
    (held kinds; default every held kind). ``kongs``: kinds whose own-turn
    kong (concealed: four held; added: the fourth copy to an own pung) is
    played out too, on the same worlds: the kong, its replacement draw,
    then ``base``'s play (rows with ``kong`` True; docs/rules.md §4).
    ``rules``: a RuleSet, a shipped variant's name or a TOML path.
    Returns an Evaluation, best mean payment first (points per deal for the
    seat). Raises HandError for a ``pos`` that is not a Position of these
    rules (``advice_state.check_position``), RunError: the seat is not the
    one to play, a candidate is not held or not a kind (0..41), a kong the
    seat cannot declare, samples out of 2 .. 100,000, a seed out of 0 ..
    2**64 - 1, an unknown base policy or opponent model, or no sample could
    be dealt (the position leaves too few unseen tiles for the others'
    hands and the wall)."""
    rules = _checked(rules, pos)
    if pos.seat != pos.to_play:
        raise RunError("evaluate: the position is not the seat's discard (to_play differs)")
    samples, seed, opponents = _check_settings(samples, seed, base, opponents)
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
    return _played(rules, pos, cands, samples, seed, base, opponents, -1, -1, kongs)


def kong_kinds(rules: RuleSet, pos: Position) -> list[int]:
    """The kinds (ascending) of the own-turn kongs the seat of ``pos`` holds
    the tiles for: four held copies (concealed), or the fourth copy of one
    of its pungs (added); never a wild or a flower (docs/rules.md §3-§4).
    The wall and the turn's limits are the caller's (``nbsim.play.advice``)."""
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
                    opponents: int = DEFAULT_OPPONENTS) -> Evaluation:
    """Every answer of the deciding seat to the offered discard of ``pos``
    (``pos.offered``; the seat is not the discarder ``pos.to_play``) played
    to the end of the deal on ``samples`` sampled worlds, the same worlds
    for every answer (common random numbers).

    answers: claim codes (``common.CLAIM_*``: 0 pass, 1 pung, 2 kong, 3 + j
    the chow whose lowest tile is the offered one minus j), legal in the
    position (the caller's check: ``nbsim.play.advice`` lists them). A pass
    passes every claim of the seat; after a claim the seat discards as
    ``base`` would, and so on to the end (``playout.evaluate_into``, docs/
    rules.md §4); ``opponents`` as ``evaluate``'s. Each row's ``kind`` is
    the answer's code; payments in points per deal for the seat. Raises
    HandError as ``evaluate``; RunError: no offered discard, the seat is the
    discarder, an unknown answer, samples, seed, base policy or opponent
    model as ``evaluate``'s, or no sample could be dealt."""
    rules = _checked(rules, pos)
    if pos.offered < 0 or pos.seat == pos.to_play:
        raise RunError("evaluate_claims: the position offers no discard to the seat (a claim "
                       "needs --offered and a discarder other than the seat)")
    samples, seed, opponents = _check_settings(samples, seed, base, opponents)
    codes = _whole_numbers(answers, "claim answers", "claim codes", "code")
    bad = [a for a in codes if not 0 <= a < C_CLAIM_CODES]
    if bad or not codes:
        raise RunError(f"claim answers {bad or '(none)'}: allowed 0 pass, 1 pung, 2 kong, "
                       f"3..5 chow")
    return _played(rules, pos, codes, samples, seed, base, opponents, int(pos.offered), 1)


def exact_own_draws(rules: RuleSet | str | Path, pos: Position) -> dict[int, ExactOwnDraw]:
    """For every discard after which the hand is ready (some unseen kind
    completes a legal self-drawn win), the exact chance of drawing one of
    those tiles in the seat's own remaining draws (``own_draws_left``), when
    no other seat wins or claims and the seat keeps its wait:
    1 - C(U - W, n) / C(U, n) for U unseen tiles, W of them winning, n
    draws. Keys: the discarded kind. ``rules`` and ``pos`` as
    ``evaluate``'s (HandError likewise); raises RunError as ``view_of``."""
    from nbsim.kernels import engine as E
    from nbsim.kernels import playout as PL

    rules = _checked(rules, pos)
    view = view_of(rules, pos)
    sr = E.new_search(1, 1)
    hand = np.asarray(pos.hand)
    wins = np.zeros(C.N_KINDS, np.bool_)
    draws = own_draws_left(pos)
    res: dict[int, ExactOwnDraw] = {}
    for k in range(C.N_KINDS):
        if hand[k] <= 0:
            continue
        unseen = PL.self_draw_waits(view, sr, np.int64(k), _key(0), wins)
        if unseen <= 0 or not wins.any():
            continue
        u = np.asarray(sr.unseen)
        w_tiles = int(sum(int(u[t]) for t in range(C.N_KINDS) if wins[t]))
        n = min(draws, unseen)
        p = 1.0 - math.comb(unseen - w_tiles, n) / math.comb(unseen, n) if n > 0 else 0.0
        res[k] = ExactOwnDraw(k, tuple(int(t) for t in np.flatnonzero(wins)), w_tiles,
                              int(unseen), draws, p)
    return res
