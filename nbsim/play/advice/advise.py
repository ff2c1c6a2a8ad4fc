"""Discard and claim advice for a player at the table: ``nbsim advise`` and
``nbsim.advise`` (this module is ``advice``, so that the package attribute
``nbsim.advise`` stays the function).

From a ``nbsim.play.position.Position`` (built from the table state by
``nbsim.play.advice.state``), for every candidate

* a discard, when the seat holds 3k + 2 tiles (its turn), and each kong
  it may declare then (concealed, or added to its own pung), or
* pass / pung / kong / chow, when a discard is offered to it (a claim),
  and the win on the offered tile when it completes the hand (scored as
  ``nbsim score`` scores it; a legal win ranks first),

``advise`` reports the shanten and the tile acceptance toward each target
the bots play for (``nbsim/kernels/policies/common.py``: the open hand, the
full and half flushes by suit, all pungs; shanten as in docs/rules.md
§10.2), and from the lookahead evaluator (``nbsim.play.evaluation.evaluate``) the
chance to win, the expected payment with its 95% interval, the chance of
dealing in to each opponent and the paired difference to the best
candidate; for a discard that leaves the hand ready, the exact chance of
completing it with the seat's own remaining draws alone
(``nbsim.play.evaluation.exact_own_draws``, no opponents). The recommendation is
the best candidate; candidates whose paired difference to it has a 95%
interval containing 0 are "within the noise".

The answer's records are ``nbsim.play.advice.fits``, its text, JSON and plot
``nbsim.play.advice.text``; this module re-exports both and the table-state
functions of ``nbsim.play.advice.state``, so ``from nbsim.play.advice.advise import ...``
reaches every public name.

Units: payments are points per deal for the seat (the variant's scoring:
tai with its base points, Ninghai points), probabilities are per deal.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.play.advice.fits import (
    TARGETS,
    Z95,
    Advice,
    CandidateAdvice,
    TargetFit,
    best_target,
    fit_key,
)
from nbsim.play.advice.notation import POND_CLAIMED, SEATS
from nbsim.play.advice.state import (
    check_position,
    position_to_state,
    seen_copies,
)
from nbsim.play.advice.wins import (
    chow_just_made,
    chow_swap,
    hand_waits,
    just_claimed,
    score_command,
    win_on_offered,
    win_self_drawn,
)
from nbsim.play.position import Position
from nbsim.play.worlds import ADVICE_OPPONENTS
from nbsim.rules.ruleset import RuleSet, as_rules
from nbsim.rules.tiles import KIND_NAMES, format_tiles

__all__ = ["advise", "DEFAULT_BUDGET", "DEFAULT_CAP", "race_plan", "build_advice", "after_claim"]

_CLAIM_PASS, _CLAIM_PUNG, _CLAIM_KONG, _CLAIM_CHOW = 0, 1, 2, 3   # common.CLAIM_*
KONG_CONCEALED_CODE, KONG_ADDED_CODE = -2, -3   # kongs at a discard (never simulated)


# ================================================================ shanten and acceptance
def _allowed(rs: RuleSet, target: int) -> bool:
    pats = set(rs.config.win.allowed_patterns)
    if not pats:
        return True
    if target == 0:
        return False
    if target < 4:
        return "full_flush" in pats
    if target < 7:
        return "half_flush" in pats
    return "all_pungs" in pats


class _Fitter:
    """Shanten and acceptance of the seat's possible hands, with the kernels'
    functions (``common.target_shanten``, ``common.target_ok``) over the 34
    natural kinds and the wilds."""

    def __init__(self, rs: RuleSet, pos: Position) -> None:
        from nbsim.kernels.policies import common as CM
        from nbsim.kernels.wilds import wild_mask
        from nbsim.rules.lookups import load_tables
        self.cm = CM
        self.rs = rs
        self.tables = load_tables()
        self.tmp = np.zeros(C.N_PLAY, dtype=np.int8)
        self.wild = np.zeros(C.N_KINDS, dtype=np.bool_)
        wild_mask(rs.array, pos.indicator, self.wild)
        parts = seen_copies(pos.hand, pos.melds, pos.n_melds, pos.pond, pos.pond_flags, pos.n_pond,
                      pos.flowers, pos.indicator)
        seen = np.sum(list(parts.values()), axis=0)
        limit = np.array([4] * C.N_PLAY + [1] * C.N_FLOWERS, dtype=np.int64)
        self.unseen = np.maximum(limit - seen, 0)
        self.wild_kinds = [k for k in range(C.N_KINDS) if self.wild[k] and self.unseen[k] > 0]
        self.wild_unseen = int(sum(self.unseen[k] for k in self.wild_kinds))
        self.pos = pos
        self._waits: dict[bytes, tuple[tuple[int, bool, bool], ...]] = {}

    def waits(self, hand: np.ndarray, melds: np.ndarray,
              n_melds: int) -> tuple[tuple[int, bool, bool], ...]:
        """``advice_wins.hand_waits`` of a 3k + 1 ``hand`` beside ``melds``
        (kept per hand and melds)."""
        key = hand.tobytes() + np.asarray(melds, np.int8).tobytes() + bytes([n_melds])
        if key not in self._waits:
            self._waits[key] = hand_waits(self.rs, self.pos, self, hand, melds, n_melds)
        return self._waits[key]

    def split(self, hand: np.ndarray) -> tuple[np.ndarray, int]:
        nat = np.where(self.wild[:C.N_PLAY], 0, hand[:C.N_PLAY]).astype(np.int8)
        return nat, int(hand[self.wild].sum())

    def fits(self, hand: np.ndarray, melds: np.ndarray, n_melds: int) -> list[TargetFit]:
        """Every target compatible with the declared ``melds`` (int8[4, 3]):
        its shanten for the concealed ``hand`` (int8[42], 3k + 1 tiles) and
        the acceptance; a ready target (shanten 0) also tells whether one of
        the tiles it accepts makes a legal win (``waits``)."""
        cm = self.cm
        nat, w = self.split(hand)
        out = []
        legal: set[int] | None = None
        for name, t in TARGETS:
            if not cm.target_ok(t, melds, n_melds):
                continue
            s = int(cm.target_shanten(t, nat, w, n_melds, self.tables, self.tmp))
            accepted: list[int] = []
            n = 0
            if self.wild_unseen and int(cm.target_shanten(t, nat, w + 1, n_melds, self.tables,
                                                          self.tmp)) < s:
                accepted += self.wild_kinds
                n += self.wild_unseen
            for d in range(C.N_PLAY):
                if self.wild[d] or self.unseen[d] == 0 or nat[d] >= 4:
                    continue
                nat[d] += 1
                s2 = int(cm.target_shanten(t, nat, w, n_melds, self.tables, self.tmp))
                nat[d] -= 1
                if s2 < s:
                    accepted.append(d)
                    n += int(self.unseen[d])
            ready = None
            if s == 0:
                if legal is None:
                    legal = {k for k, sd, dc in self.waits(hand, melds, n_melds) if sd or dc}
                ready = bool(legal.intersection(accepted))
            out.append(TargetFit(name, s, n, tuple(sorted(accepted)), _allowed(self.rs, t),
                                 legal_ready=ready))
        return out

    def best_after_discard(self, hand: np.ndarray, melds: np.ndarray, n_melds: int,
                           forbidden=()) -> list[TargetFit]:
        """For a 3k + 2 hand (after a claim): per target, the discard that
        leaves the lowest shanten, then the most acceptance."""
        best: dict[str, TargetFit] = {}
        held = [k for k in range(C.N_KINDS) if hand[k] > 0]
        allowed = [k for k in held if k not in forbidden or self.wild[k]] or held
        for k in allowed:
            hand[k] -= 1
            for f in self.fits(hand, melds, n_melds):
                b = best.get(f.target)
                if b is None or fit_key(f) < fit_key(b):
                    best[f.target] = dataclasses.replace(f, then_discard=k)
            hand[k] += 1
        return [best[n] for n, _ in TARGETS if n in best]


def _key(fits: Sequence[TargetFit]) -> tuple[int, int]:
    """Rank of a candidate by its targets alone: the lowest shanten toward
    an allowed target, then the most acceptance toward it."""
    f = best_target(fits)
    return (99, 0) if f is None else fit_key(f)


# ================================================================ the advice
def _not_after_chow(rs: RuleSet, pos: Position, fit: _Fitter) -> tuple[int, ...]:
    """The held kinds the seat may not discard because it has just chowed
    (``chow_swap``); () when the rule is off, there was no chow, or they are
    all the seat holds (then any tile may go, as in the engine)."""
    made = chow_just_made(pos) if rs.config.claims.forbid_chow_swap else None
    if made is None:
        return ()
    forbid = tuple(k for k in chow_swap(*made, int(pos.hand.sum()), fit.wild) if pos.hand[k])
    if all(pos.hand[k] == 0 or k in forbid for k in range(C.N_KINDS)):
        return ()
    return forbid


def _candidates(rs: RuleSet, pos: Position, fit: _Fitter) -> list[CandidateAdvice]:
    """Every legal move with its targets: at a discard, the self-drawn win
    of a complete hand, each held kind as a discard and each concealed or
    added kong; at a claim, the win on the offered tile when it completes
    the hand, pass / pung / kong / chow of the offered tile (docs/rules.md
    §4-§5)."""
    me = pos.seat
    own = pos.melds[me].copy()
    n = int(pos.n_melds[me])
    hand = pos.hand.copy()
    out: list[CandidateAdvice] = []
    if pos.offered < 0:
        win = win_self_drawn(rs, pos, fit)
        if win is not None:
            out.append(win)
        forbid = _not_after_chow(rs, pos, fit)
        for k in range(C.N_KINDS):
            if hand[k] == 0 or k in forbid:
                continue
            hand[k] -= 1
            label = KIND_NAMES[k] + (" (wild)" if fit.wild[k] else "")
            out.append(CandidateAdvice("discard", k, k, label, tuple(fit.fits(hand, own, n)),
                                       waits=fit.waits(hand, own, n)))
            hand[k] += 1
        return out + _own_kongs(rs, pos, fit)
    d = int(pos.offered)
    win = win_on_offered(rs, pos, fit)
    if win is not None:
        out.append(win)
    out.append(CandidateAdvice("pass", d, _CLAIM_PASS, "pass", tuple(fit.fits(hand, own, n)),
                               waits=fit.waits(hand, own, n)))
    if fit.wild[d] or d >= C.N_PLAY or n >= C.MAX_MELDS:
        return out               # a wild (or a flower) is never claimed (docs/rules.md §3)
    name = KIND_NAMES[d]

    def with_meld(typ: int, kind: int) -> np.ndarray:
        m = own.copy()
        m[n] = (typ, kind, pos.to_play)
        return m
    if hand[d] >= 2:
        h = hand.copy()
        h[d] -= 2
        m = with_meld(C.MELD_PUNG, d)
        fits = fit.best_after_discard(h, m, n + 1)
        out.append(CandidateAdvice("pung", d, _CLAIM_PUNG, f"pung {name}", tuple(fits),
                                   then_discard=_then(fits),
                                   waits=_then_waits(fit, h, m, n + 1, _then(fits))))
    if hand[d] == 3 and pos.tiles_left - 2 * rs.config.wall.reserve_stacks_per_kong > 0:
        h = hand.copy()
        h[d] -= 3
        m = with_meld(C.MELD_KONG, d)
        out.append(CandidateAdvice("kong", d, _CLAIM_KONG, f"kong {name}",
                                   tuple(fit.fits(h, m, n + 1)), waits=fit.waits(h, m, n + 1)))
    if (rs.config.claims.allow_chow and d < C.HONOR0 and me == (pos.to_play + 1) % 4):
        r = d % 9
        for j in range(3):
            lo = d - j
            if r - j < 0 or r - j + 2 > 8:
                continue
            need = [lo + t for t in range(3) if lo + t != d]
            if any(hand[k] == 0 or fit.wild[k] for k in need):
                continue
            h = hand.copy()
            for k in need:
                h[k] -= 1
            forbid = (chow_swap(lo, d, int(h.sum()), fit.wild)
                      if rs.config.claims.forbid_chow_swap else ())
            m = with_meld(C.MELD_CHOW, lo)
            fits = fit.best_after_discard(h, m, n + 1, forbid)
            out.append(CandidateAdvice("chow", d, _CLAIM_CHOW + j,
                                       f"chow {format_tiles([lo, lo + 1, lo + 2])}",
                                       tuple(fits), chow=lo, then_discard=_then(fits),
                                       waits=_then_waits(fit, h, m, n + 1, _then(fits))))
    return out


def _own_kongs(rs: RuleSet, pos: Position, fit: _Fitter) -> list[CandidateAdvice]:
    """The kongs the seat may declare on its turn (docs/rules.md §4): a
    concealed kong of four held copies, or a kong added to its own pung with
    the fourth copy; never of a wild or a flower, only while a replacement
    tile is left to draw, and not right after a pung or chow when
    ``claims.no_kong_after_pung`` forbids it (``just_claimed``). Each with
    its targets after the kong (before the replacement draw)."""
    me = pos.seat
    n = int(pos.n_melds[me])
    own = pos.melds[me]
    if (pos.tiles_left - rs.config.wall.reserve_stacks_per_kong * 2 <= 0
            or (rs.config.claims.no_kong_after_pung and just_claimed(pos))):
        return []
    from nbsim.play.evaluation import kong_kinds
    out = []
    for k in kong_kinds(rs, pos):
        if pos.hand[k] == 4 and n < C.MAX_MELDS:
            h = pos.hand.copy()
            h[k] = 0
            m = own.copy()
            m[n] = (C.MELD_CKONG, k, -1)
            out.append(CandidateAdvice("kong", k, KONG_CONCEALED_CODE,
                                       f"concealed kong {KIND_NAMES[k]}",
                                       tuple(fit.fits(h, m, n + 1)), waits=fit.waits(h, m, n + 1)))
        for i in range(n):
            if int(own[i, 0]) == C.MELD_PUNG and int(own[i, 1]) == k and pos.hand[k] >= 1:
                h = pos.hand.copy()
                h[k] -= 1
                m = own.copy()
                m[i, 0] = C.MELD_KONG
                out.append(CandidateAdvice("kong", k, KONG_ADDED_CODE,
                                           f"add kong {KIND_NAMES[k]}",
                                           tuple(fit.fits(h, m, n)), waits=fit.waits(h, m, n)))
    return out


def _then_waits(fit: _Fitter, hand: np.ndarray, melds: np.ndarray, n_melds: int,
                then: int) -> tuple[tuple[int, bool, bool], ...]:
    """The waits after a claim's meld (``hand``: 3k + 2 tiles) and its
    discard ``then`` (none when it is -1)."""
    if then < 0:
        return ()
    h = hand.copy()
    h[then] -= 1
    return fit.waits(h, melds, n_melds)


def _then(fits: Sequence[TargetFit]) -> int:
    b = best_target(fits)
    return b.then_discard if b is not None else -1


def _notes(rs: RuleSet, pos: Position, fit: _Fitter,
           cands: Sequence[CandidateAdvice]) -> list[str]:
    notes = []
    me = pos.seat
    if pos.offered < 0:
        from nbsim.rules.scorer import why_text
        for c in cands:
            if c.action == "win" and c.score is not None:
                if c.score.win:
                    pay = (c.score.payments or {}).get(SEATS[me])
                    notes.append("the hand is complete: a legal self-drawn win"
                                 + (f", {pay:+d} points to the seat" if pay is not None else "")
                                 + "; the discards below are what the hand would do instead; "
                                 f"the items: {score_command(rs, pos, c)}")
                else:
                    notes.append("the hand is complete, but a self-drawn win is not legal: "
                                 f"{why_text(c.score, rs)}")
        if just_claimed(pos):
            notes.append("the seat's last meld claimed the last discard of its source: a "
                         "discard after a claim, so no self-drawn win"
                         + (" and no kong (claims.no_kong_after_pung)"
                            if rs.config.claims.no_kong_after_pung else "")
                         + "; give --drawn if the seat has drawn since")
            forbid, made = _not_after_chow(rs, pos, fit), chow_just_made(pos)
            if forbid and made is not None:
                notes.append(f"after chowing {KIND_NAMES[made[1]]} the seat may not discard "
                             + " or ".join(KIND_NAMES[k] for k in forbid)
                             + " this turn (claims.forbid_chow_swap): not a candidate")
        if any(c.action == "kong" for c in cands):
            notes.append("a kong is played out on the same sampled deals as the discards: "
                         "the kong, its replacement draw, then the seat's play as the base "
                         "policy plays it; its shanten and acceptance are before the "
                         "replacement draw")
        if int(pos.n_pond.sum()) == 0 and rs.config.claims.first_round_restrictions != "off":
            notes.append("first go-around limits (claims.first_round_restrictions) are not "
                         "applied to the candidates")
    else:
        from nbsim.rules.scorer import why_text
        name = KIND_NAMES[pos.offered]
        for c in cands:
            if c.action != "win" or c.score is None:
                continue
            if c.score.win:
                pay = (c.score.payments or {}).get(SEATS[me])
                notes.append(f"{name} completes the hand: a legal win on this discard"
                             + (f", {pay:+d} points to the seat" if pay is not None else "")
                             + f"; the items: {score_command(rs, pos, c)}")
            else:
                notes.append(f"{name} completes the hand, but a win on it is not legal: "
                             f"{why_text(c.score, rs)}")
    return notes


def _value_fields(v: Any, paired: bool) -> dict[str, Any]:
    """CandidateAdvice fields of an evaluator's ``CandidateValue`` (the 95%
    intervals: estimate +- 1.96 se); ``paired``: keep the paired difference
    to the best (same position, common random numbers)."""
    mean, se = float(v.mean_pay), float(v.se_pay)
    kw: dict[str, Any] = dict(
        mean_pay=mean, se_pay=se, pay_low=mean - Z95 * se, pay_high=mean + Z95 * se,
        p_win=float(v.p_win), se_win=float(v.se_win), p_deal_in=float(v.p_deal_in),
        p_deal_in_to=tuple(float(x) for x in v.p_deal_in_to),
        p_exhausted=float(v.p_exhausted), deals=int(getattr(v, "deals", 0) or v.n),
        dropped=int(getattr(v, "dropped", 0)))
    w = getattr(v, "win_pay", None)
    if w is not None and math.isfinite(float(w)):
        kw["win_pay"] = float(w)
    if paired:
        diff, dse = float(v.diff), float(v.diff_se)
        kw.update(diff=diff, diff_se=dse, diff_low=diff - Z95 * dse,
                  diff_high=diff + Z95 * dse)
    return kw


def build_advice(rules: RuleSet | str | Path, pos: Position, evaluation: Any = None,
                 exact: Mapping[int, Any] | None = None, *, samples: int = 0,
                 seed: int = 0, base: str = "",
                 opponents: int = ADVICE_OPPONENTS, budget: float | None = None) -> Advice:
    """The ``Advice`` of a Position from the lookahead's answers.

    evaluation: the lookahead's ``Evaluation`` (best first), which ranks the
    candidates: for a discard, ``nbsim.play.evaluation.evaluate``'s (keyed
    by the discarded kind, and a kong row by its kind); for a claim,
    ``evaluate_claims``'s (keyed by the claim code, ``common.CLAIM_*``:
    pass, pung, kong, each chow); None: the
    candidates are ranked by shanten and acceptance only. exact:
    ``nbsim.play.evaluation.exact_own_draws`` (discard kind -> .p_win,
    .draws). samples, seed, base, opponents, budget: the settings, when
    ``evaluation`` does not carry them (its race: rounds, stopped, budget,
    cap). The Advice's ``reason`` says why the first candidate beats the
    next one (``evaluation.why_best`` for two simulated moves)."""
    rs = as_rules(rules)
    fit = _Fitter(rs, pos)
    cands = _candidates(rs, pos, fit)
    notes = _notes(rs, pos, fit, cands)
    exact = dict(exact or {})
    by_code: dict[Any, Any] = {}
    ranked: dict[Any, int] = {}
    race: dict[str, Any] = dict(rounds=0, stopped="", budget=budget, cap=int(samples))
    if evaluation is not None:
        by_code = {_value_key(c): c for c in evaluation.candidates}
        ranked = {_value_key(c): i for i, c in enumerate(evaluation.candidates)}
        samples, seed, base = int(evaluation.samples), int(evaluation.seed), \
            str(evaluation.base)
        opponents = int(evaluation.opponents)
        race = dict(rounds=int(getattr(evaluation, "rounds", 1)),
                    stopped=str(getattr(evaluation, "stopped", "samples")),
                    budget=getattr(evaluation, "budget", None),
                    cap=int(getattr(evaluation, "cap", 0) or samples))
    rows = []
    for c in cands:
        kw: dict[str, Any] = {}
        if c.action != "win" and _key_of(c) in by_code:
            kw = _value_fields(by_code[_key_of(c)], paired=True)
        if c.action == "discard" and c.kind in exact:
            e = exact[c.kind]
            kw["exact_p_win"] = float(e.p_win)
            kw["exact_draws"] = int(e.draws)
        rows.append(_replace(c, **kw))
    rows.sort(key=lambda c: _rank(c, ranked))
    if ranked:
        # within the noise of the best simulated candidate (a legal win ranks
        # above it and is not simulated)
        top = next(i for i, c in enumerate(rows) if c.action != "win" and _key_of(c) in ranked)
        # a move the race dropped was clearly behind the leader then: not within the noise
        rows = rows[:top + 1] + [_replace(c, within_noise=c.diff_low is not None
                                          and c.diff_high is not None and not c.dropped
                                          and c.diff_low <= 0.0 <= c.diff_high)
                                 for c in rows[top + 1:]]
    if pos.offered >= 0 and ranked:
        notes.append("each answer is played out on the same sampled deals: a claim, then the "
                     f"seat's discards as {base} plays them (the 'then' tile is the discard "
                     "toward the best target); pass lets every claim of the seat go")
    from nbsim.kernels.wilds import wild_kinds
    return Advice(variant=rs.name, position=pos, state=position_to_state(pos),
                  decision="claim" if pos.offered >= 0 else "discard",
                  wilds=tuple(wild_kinds(rs.array, pos.indicator)), candidates=tuple(rows),
                  samples=int(samples), seed=int(seed), base=str(base), notes=tuple(notes),
                  ranked_by="lookahead" if ranked else "shanten", opponents=int(opponents),
                  reason=_reason(rs, pos, rows), **race)


def _reason(rs: RuleSet, pos: Position, rows: Sequence[CandidateAdvice]) -> str:
    """Why the first of ``rows`` is recommended, in one sentence: a legal
    win is certain; between two simulated moves, ``evaluation.why_best``
    (win chance, value when won, losses); else their targets."""
    from nbsim.play.advice.text import _move
    from nbsim.play.evaluation import why_best
    if not rows:
        return ""
    best = rows[0]
    if best.action == "win" and best.score is not None and best.score.win:
        pay = (best.score.payments or {}).get(SEATS[pos.seat], 0)
        return (f"{_move(best)} is a legal win: {pay:+d} points to the seat now, certain, "
                f"where every other move risks the deal")
    runner = next((c for c in rows[1:] if c.mean_pay is not None), None)
    if best.mean_pay is not None and runner is not None:
        text = why_best(best, runner, _move(best), _move(runner))
        if runner.within_noise:
            text = text[:-1] + ", though within the noise of the sampled deals."
        return text
    runner = next((c for c in rows[1:] if c.action != "win"), None)
    b = best.best_target
    if b is None or runner is None:
        return ""
    r = runner.best_target
    if r is not None and fit_key(r) == fit_key(b):
        return (f"{_move(best)} leaves the hand {_closeness(b)}, as {_move(runner)} does: "
                f"shanten and acceptance do not tell them apart")
    return (f"{_move(best)} leaves the hand {_closeness(b)}"
            + (f", {_move(runner)} {_closeness(r)}" if r is not None else "") + ".")


def _closeness(f: TargetFit) -> str:
    """'ready for a legal win with 8 tiles accepted (open hand)' and the like."""
    from nbsim.play.advice.text import _target_label
    where = f"({_target_label(f.target)})"
    if f.shanten == 0 and f.legal_ready is False:
        return f"ready but with no legal win {where}"
    if f.shanten <= 0:
        return f"ready for a legal win on {f.acceptance} tiles {where}"
    return f"{f.shanten} from ready with {f.acceptance} tiles accepted {where}"


def _key_of(c: CandidateAdvice) -> Any:
    """The key of a candidate's row in an Evaluation: ("kong", kind) for an
    own-turn kong, else its code (a discard's kind, a claim's answer)."""
    if c.code in (KONG_CONCEALED_CODE, KONG_ADDED_CODE):
        return ("kong", int(c.kind))
    return int(c.code)


def _value_key(v: Any) -> Any:
    """``_key_of`` for an evaluator's ``CandidateValue``."""
    return ("kong", int(v.kind)) if getattr(v, "kong", False) else int(v.kind)


def _rank(c: CandidateAdvice, ranked: Mapping[Any, int]) -> tuple[int, int, int]:
    """Sort key of a candidate: a legal win first, then the lookahead's
    order, then shanten and acceptance; a win that is not legal last."""
    if c.action == "win":
        return (-1, 0, 0) if c.score is not None and c.score.win else (3, 0, 0)
    if _key_of(c) in ranked:
        return (0, ranked[_key_of(c)], 0)
    if c.code in (KONG_CONCEALED_CODE, KONG_ADDED_CODE):
        return (2, *_key(c.targets))        # after the discards, simulated or not
    return (1, *_key(c.targets))


def _replace(c: CandidateAdvice, **kw) -> CandidateAdvice:
    return dataclasses.replace(c, **kw) if kw else c


def after_claim(pos: Position, action: str, kind: int, chow: int = -1) -> Position:
    """The Position after the deciding seat pungs or chows the offered tile
    (``chow``: the chow's lowest kind): the tiles leave its hand for a meld
    claimed from the discarder, whose last discard is marked claimed, and
    the seat is to discard (docs/rules.md §4)."""
    if pos.offered < 0 or action not in ("pung", "chow"):
        raise RunError(f"after_claim: a pung or chow of an offered tile, not {action!r}")
    me, d = pos.seat, int(pos.offered)
    hand = pos.hand.copy()
    if action == "pung":
        hand[d] -= 2
        meld = (C.MELD_PUNG, d, pos.to_play)
    else:
        for k in range(chow, chow + 3):
            if k != d:
                hand[k] -= 1
        meld = (C.MELD_CHOW, chow, pos.to_play)
    melds = pos.melds.copy()
    n_melds = pos.n_melds.copy()
    melds[me, int(n_melds[me])] = meld
    n_melds[me] += 1
    flags = pos.pond_flags.copy()
    flags[pos.to_play, int(pos.n_pond[pos.to_play]) - 1] |= POND_CLAIMED
    return dataclasses.replace(pos, to_play=me, hand=hand, melds=melds, n_melds=n_melds,
                               pond_flags=flags, drawn=-1, offered=-1)


DEFAULT_BUDGET = 2.0        # seconds of a race when neither samples nor budget is given
DEFAULT_CAP = 3200          # deals per candidate at most, then


def race_plan(samples: int | None, budget: float | None,
              first: int | None = None) -> tuple[int, int, float | None]:
    """(cap, first, budget) of ``advise``'s race from its ``samples`` and
    ``budget`` (checked by the caller): neither given, ``DEFAULT_CAP`` deals
    and ``DEFAULT_BUDGET`` seconds; ``samples`` alone, the race runs to
    ``samples`` deals for the candidates left, with no clock; ``budget``
    alone, the clock (0: none) with ``DEFAULT_CAP`` deals, or 100,000 with
    a clock; both, whichever ends first. The first round plays ``first``
    deals (default ``evaluation.RACE_FIRST``; all of them when the cap is
    smaller or equal: no race, every candidate on every deal)."""
    from nbsim.play.evaluation import RACE_FIRST
    if samples is None and budget is None:
        cap, budget = DEFAULT_CAP, DEFAULT_BUDGET
    elif samples is None:
        cap = 100_000 if budget else DEFAULT_CAP
    else:
        cap = int(samples)
    first = RACE_FIRST if first is None else int(first)
    return cap, min(first, cap), (float(budget) or None) if budget is not None else None


def advise(rules: RuleSet | str | Path, pos: Position, *, samples: int | None = None,
           seed: int = 0, base: str = "defend", opponents: int = ADVICE_OPPONENTS,
           budget: float | None = None, first: int | None = None) -> Advice:
    """Advice for the deciding seat of ``pos``.

    Every legal candidate with its targets' shanten and acceptance, the
    tiles that would complete a legal win after it (``waits``, the scorer's
    decision: the variant's minimum met, self-drawn and on a discard) and,
    from the lookahead (``nbsim.play.evaluation.evaluate``: sampled deals
    from ``seed``, the rest of the deal played by the policy ``base``:
    greedy, value or defend; the others' hidden hands dealt by the opponent
    model ``opponents``, ``worlds.OPPONENT_MODELS``: the default 3 gives
    forecasts that agree with real deals, docs/lookahead.md "Calibration of
    the worlds"), its P(win), expected payment (points per deal, 95%
    interval), deal-in chance per opponent and the paired difference to the
    best; for a ready hand the exact chance of completing it with its own
    draws (``exact_own_draws``).

    The candidates are raced (``evaluate``'s ``first``): all of them on a
    first round of common sampled deals, then, round by round on new
    common deals, only those whose paired 95% interval to the best still
    reaches 0, until one is left, they reach the cap of deals or the
    ``budget`` (seconds of computing: the CPU time of the simulation) is
    spent (``race_plan``: ``samples`` alone caps the
    deals with no clock, the same seed then giving the same answer;
    ``budget`` alone or neither, a clock; 0: no clock). ``first``: the
    first round's deals (default ``evaluation.RACE_FIRST``, 50; ``first``
    = ``samples``: no race, every candidate on the same ``samples`` deals,
    as ``evaluate`` plays them by default). The Advice's
    ``reason`` says in one sentence why the best beats the runner-up.
    Both decisions are ranked by the lookahead: a discard by ``evaluate``,
    a claim (pass, pung, kong, each chow: ``evaluate_claims``, on the same
    worlds) after a legal win on the offered tile, which is not simulated;
    at a discard the own-turn kongs are raced with the discards
    (``evaluate``'s ``kongs``). ``samples=0``: no simulation, everything
    ranked by shanten toward a legal win and acceptance. Raises NbsimError
    subclasses (HandError for a ``pos`` that is not a Position or breaks
    this variant's rules, e.g. one built for another variant:
    ``check_position``; RunError for a position the engine cannot continue
    from or one with no tile left to draw, bad samples, budget, seed, base
    or opponents)."""
    from nbsim.args import whole_number
    from nbsim.play.evaluation import PLAYOUT_POLICIES, check_race
    from nbsim.play.worlds import check_opponents
    rs = as_rules(rules)
    check_position(rs, pos)
    opponents = check_opponents(opponents)
    if samples is not None:
        samples = whole_number(samples, "samples", 0, 100_000, RunError)
        if samples == 1:
            raise RunError("samples 1: an interval needs two sampled deals or more; give 0 "
                           "(no simulation, ranked by shanten and acceptance) or 2..100000")
    check_race(first, budget)
    seed = whole_number(seed, "seed", 0, 2**64 - 1, RunError)
    if not isinstance(base, str) or base not in PLAYOUT_POLICIES:
        raise RunError(f"base policy {base!r}: allowed {', '.join(PLAYOUT_POLICIES)}")
    if samples == 0:
        return build_advice(rs, pos, samples=0, seed=seed, base=base, opponents=opponents)
    cap, first, clock = race_plan(samples, budget, first)
    if pos.tiles_left < 1:
        from nbsim.play.advice.state import max_wall_left
        raise RunError(f"wall_left {pos.tiles_left}: the lookahead simulates the rest of the "
                       f"deal, so it needs a tile left to draw: give wall_left 1 .. "
                       f"{max_wall_left(rs, pos)} (--wall-left), or --samples 0 to rank the "
                       f"moves by shanten and acceptance alone")
    from nbsim.play.evaluation import evaluate, evaluate_claims, exact_own_draws
    from nbsim.warmup import ensure_compiled
    ensure_compiled("advice")          # says so before a first compile of the playouts
    cands = _candidates(rs, pos, _Fitter(rs, pos))
    if pos.offered < 0:
        kinds = [c.kind for c in cands if c.action == "discard"]
        kongs = [c.kind for c in cands if c.action == "kong"]
        return build_advice(rs, pos, evaluate(rs, pos, kinds=kinds, kongs=kongs, samples=cap,
                                              seed=seed, base=base, opponents=opponents,
                                              first=first, budget=clock),
                            exact_own_draws(rs, pos))
    answers = [c.code for c in cands if c.action != "win"]
    return build_advice(rs, pos, evaluate_claims(rs, pos, answers, samples=cap, seed=seed,
                                                 base=base, opponents=opponents, first=first,
                                                 budget=clock))
