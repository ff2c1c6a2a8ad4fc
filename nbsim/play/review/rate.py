"""Each decision of a review rated: the move made against the best move.

A decision's table state (what the seat could see; ``decisions``) becomes a
``Position`` and goes to the advice (``nbsim.play.advice.advise.advise``):
every legal move, the simulated ones played to the end of the deal on
common sampled deals (the evaluator's race, ``nbsim.play.evaluation``; the
hidden tiles are sampled, never read from the record), a legal win scored.
The race picks the best move. Picking the largest of noisy estimates
would overstate how much better it is, so the move made and the best are
then played again on fresh common sampled deals (a seed of their own) and
compared there:

* both simulated: the expected loss is the paired difference best - made
  on those deals (common random numbers), with its 95% interval;
* a legal win against a simulated move: the win pays a known amount
  (``nbsim score``'s payment for the seat), so the loss is the gap
  between it and the simulated move's mean payment, with the mean's 95%
  interval.

Losses are points per deal for the seat (the variant's payments). A
decision is flagged when its interval lies above 0: the move made was
worse than the best beyond the noise of the sampled deals.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from nbsim.errors import HandError
from nbsim.play.advice.fits import Z95, Advice, CandidateAdvice
from nbsim.play.advice.notation import SEATS
from nbsim.play.review.decisions import Decision, Move
from nbsim.play.worlds import ADVICE_OPPONENTS
from nbsim.rules.ruleset import RuleSet

__all__ = ["Rating", "rate", "move_of", "rating_json", "rating_from_json"]


@dataclass(frozen=True)
class Rating:
    """One decision rated.

    number, step, kind, state, made: the ``Decision``'s; best: the best
    move (``Move``); loss: the expected loss of the move made against the
    best, points per deal for the seat (0 when it is the best), with its
    95% interval ``low`` .. ``high``; flagged: ``low`` > 0; made_pay,
    best_pay: their expected payments (points per deal; a win's is its
    payment); deals: the sampled deals behind the comparison (0: a win
    against a win, none needed); moves: the legal moves compared; reason:
    the advice's sentence on why the best beats the runner-up."""
    number: int
    step: int
    kind: str
    state: dict[str, Any]
    made: Move
    best: Move
    loss: float
    low: float
    high: float
    flagged: bool
    made_pay: float
    best_pay: float
    deals: int
    moves: int
    reason: str = ""


def move_of(c: CandidateAdvice) -> Move:
    """The ``Move`` of an advice candidate."""
    if c.action == "chow":
        return Move("chow", c.kind, c.chow)
    return Move(c.action, c.kind if c.action != "pass" else c.kind)


def _same(c: CandidateAdvice, m: Move) -> bool:
    if c.action != m.action:
        return False
    if m.action in ("discard", "kong"):
        return c.kind == m.kind
    if m.action == "chow":
        return c.chow == m.chow
    return True


def _win_pay(c: CandidateAdvice, me: int) -> float | None:
    """A legal win's payment for the seat (points); None otherwise."""
    if c.action != "win" or c.score is None or not c.score.win:
        return None
    return float((c.score.payments or {}).get(SEATS[me], 0))


def rate(rs: RuleSet, dec: Decision, adv: Advice, *, samples: int, seed: int,
         base: str = "defend", opponents: int = ADVICE_OPPONENTS) -> Rating | None:
    """The rating of ``dec`` from the advice ``adv`` of its position (the
    module doc gives the comparison): the best move is the advice's
    (``adv``: its race picks it), then the move made and the best are
    played again on ``samples`` fresh common sampled deals from ``seed``
    (independent of the race's, so that picking the best among noisy
    estimates does not inflate the loss), the rest of the deal by ``base``
    with the opponent model ``opponents``. None when the seat had one move
    only (e.g. a win on the offered tile that the scorer finds not legal,
    leaving only a pass). Raises HandError when the move made is not among
    the legal moves (e.g. a win that is not legal, a claim the rules do
    not allow)."""
    me = adv.position.seat
    legal = [c for c in adv.candidates if c.action != "win" or _win_pay(c, me) is not None]
    made = next((c for c in adv.candidates if _same(c, dec.made)), None)
    if made is None or (made.action == "win" and _win_pay(made, me) is None):
        allowed = ", ".join(move_of(c).label for c in legal)
        raise HandError(f"record play action {dec.step}: {dec.made.label} was not possible "
                        f"(a claim or win the rules do not allow); the legal moves were "
                        f"{allowed}")
    if len(legal) < 2:
        return None
    sims = [c for c in legal if c.mean_pay is not None and not c.dropped]
    top = max(sims, key=lambda c: c.mean_pay or 0.0) if sims else None
    win = next((c for c in legal if c.action == "win"), None)
    w = _win_pay(win, me) if win is not None else None
    best_is_win = w is not None and (top is None or w >= (top.mean_pay or 0.0))
    best = win if best_is_win else top
    assert best is not None
    if _same(best, dec.made):
        pay = float(w) if best_is_win and w is not None else float(best.mean_pay or 0.0)
        return Rating(dec.number, dec.step, dec.kind, dec.state, dec.made, move_of(best), 0.0,
                      0.0, 0.0, False, pay, pay, 0, len(legal), "")
    played = [c for c in (best, made) if c.action != "win"]
    fresh = _fresh(rs, adv, played, samples, seed, base, opponents)
    if made.action == "win" or best_is_win:
        sim = fresh[_key(played[0])]
        value = float(w or 0.0)
        made_pay, best_pay = (value, sim.mean_pay) if made.action == "win" else \
            (sim.mean_pay, value)
        loss, se = best_pay - made_pay, sim.se_pay
        deals = sim.n
    else:
        rb, rm = fresh[_key(best)], fresh[_key(made)]
        made_pay, best_pay = rm.mean_pay, rb.mean_pay
        # the fresh rows' differences are to the fresher leader: the pair's paired gap
        loss, se = (-rm.diff, rm.diff_se) if rm.diff or not rb.diff else (rb.diff, rb.diff_se)
        deals = min(rb.n, rm.n)
    low, high = loss - Z95 * se, loss + Z95 * se
    return Rating(dec.number, dec.step, dec.kind, dec.state, dec.made, move_of(best), loss, low,
                  high, bool(low > 0 and math.isfinite(low)), made_pay, best_pay, deals,
                  len(legal), _why(best, made, best_pay, made_pay))


def _key(c: CandidateAdvice) -> tuple[bool, int]:
    """The key of a candidate's row in an Evaluation: (own-turn kong, the
    kind) at a turn, (False, the claim's code) at a claim."""
    return (c.action == "kong" and c.code < 0, int(c.code if c.code >= 0 else c.kind))


def _fresh(rs: RuleSet, adv: Advice, moves: list[CandidateAdvice], samples: int, seed: int,
           base: str, opponents: int) -> dict[tuple[bool, int], Any]:
    """``moves`` (one or two simulated candidates of ``adv``) played out on
    ``samples`` common sampled deals of ``seed``: their ``CandidateValue``
    rows by ``_key``."""
    from nbsim.play.evaluation import evaluate, evaluate_claims
    pos = adv.position
    if pos.offered >= 0:
        ev = evaluate_claims(rs, pos, [c.code for c in moves], samples=samples, seed=seed,
                             base=base, opponents=opponents)
    else:
        kinds = [c.kind for c in moves if not (c.action == "kong" and c.code < 0)]
        kongs = [c.kind for c in moves if c.action == "kong" and c.code < 0]
        if not kinds:                # evaluate plays a discard beside the kongs: the first held
            kinds = [int(next(k for k in range(len(pos.hand)) if pos.hand[k] > 0))]
        ev = evaluate(rs, pos, kinds=kinds, kongs=kongs, samples=samples, seed=seed, base=base,
                      opponents=opponents)
    return {(bool(v.kong), int(v.kind)): v for v in ev.candidates}


def _why(best: CandidateAdvice, made: CandidateAdvice, best_pay: float, made_pay: float) -> str:
    """One sentence on why the best move beats the move made ("" when they
    are the same): the evaluator's split of the gap (``why_best``), or a
    won hand's payment against the expected payment."""
    from nbsim.play.evaluation import why_best
    if best is made:
        return ""
    if best.action == "win" or made.action == "win":
        return (f"{move_of(best).label} expects {best_pay:+.2f} points, {move_of(made).label} "
                f"{made_pay:+.2f} (a win pays its scored amount; the other move is played "
                f"out on the sampled deals).")
    # the evaluator's split of the gap, without its unpaired size (the loss
    # above is the paired one, on the deals both moves were played on)
    text = why_best(best, made, move_of(best).label, move_of(made).label)
    return re.sub(r" by [-+0-9.]+ points per deal,", "", text)


def rating_json(r: Rating) -> dict[str, Any]:
    """A rating as a JSON object (moves as labels; ``rating_from_json``
    reads it back)."""
    def move(m: Move) -> dict[str, Any]:
        return {"label": m.label, "action": m.action, "kind": m.kind, "chow": m.chow}
    return {"number": r.number, "step": r.step, "kind": r.kind, "made": move(r.made),
            "best": move(r.best), "loss": r.loss, "low": r.low, "high": r.high,
            "flagged": r.flagged, "made_pay": r.made_pay, "best_pay": r.best_pay,
            "deals": r.deals, "moves": r.moves, "reason": r.reason, "state": r.state}


def rating_from_json(d: dict[str, Any]) -> Rating:
    """The Rating of a ``rating_json`` object."""
    def move(m: dict[str, Any]) -> Move:
        return Move(m["action"], int(m["kind"]), int(m["chow"]))
    return Rating(int(d["number"]), int(d["step"]), d["kind"], d["state"], move(d["made"]),
                  move(d["best"]), float(d["loss"]), float(d["low"]), float(d["high"]),
                  bool(d["flagged"]), float(d["made_pay"]), float(d["best_pay"]),
                  int(d["deals"]), int(d["moves"]), d.get("reason", ""))
