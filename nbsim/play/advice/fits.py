"""The records of ``nbsim advise``'s answer: ``TargetFit`` (shanten and
tile acceptance toward one target), ``CandidateAdvice`` (one move and what
the lookahead measured of it) and ``Advice`` (every candidate of a
position, best first); and the targets the bots play for (``TARGETS``, the
``TG_*`` of ``nbsim/kernels/policies/common.py``). ``nbsim.play.advice.advise`` fills
them, ``nbsim.play.advice.text`` shows them.

Units: payments are points per deal for the seat (the variant's scoring:
tai with its base points, Ninghai points), probabilities are per deal.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nbsim.play.position import Position
from nbsim.play.worlds import ADVICE_OPPONENTS

if TYPE_CHECKING:
    from nbsim.rules.scorer import ScoreResult

__all__ = ["TARGETS", "TARGET_LABELS", "Z95", "TargetFit", "best_target", "fit_key",
           "CandidateAdvice", "Advice"]

Z95 = 1.959963984540054          # the normal 97.5% quantile: a 95% interval is +- Z95 x se

# the targets of nbsim/kernels/policies/common.py (TG_*), by name
TARGETS = (("open", 0), ("full_flush_m", 1), ("full_flush_p", 2), ("full_flush_s", 3),
           ("half_flush_m", 4), ("half_flush_p", 5), ("half_flush_s", 6), ("all_pungs", 7))
TARGET_LABELS = {"open": "open hand", "full_flush": "full flush", "half_flush": "half flush",
                 "all_pungs": "all pungs"}


@dataclass(frozen=True)
class TargetFit:
    """One target of a candidate (``TARGETS``; docs/rules.md §10.2).

    shanten: tiles away from ready toward the target (0 ready, -1 complete;
    a flush counts the off-suit tiles as tiles to replace); acceptance: the
    unseen tiles (copies not in the seat's hand or on the table) whose draw
    lowers it, wild tiles included; accepted: those kinds; allowed: the
    variant lets a win of this target count (``win.allowed_patterns``);
    then_discard: for a claim, the discard after it that reaches this
    (-1: none, a kong draws instead); legal_ready: for a ready target
    (shanten 0), whether a tile it accepts completes a legal win (the
    variant's minimum met, self-drawn or on a discard: ``advice_wins.
    hand_waits``), None when not ready. A ready target with no legal win
    (legal_ready False, shown "0*") ranks as one tile further away
    (``fit_key``): the hand must still change a tile to win."""
    target: str
    shanten: int
    acceptance: int
    accepted: tuple[int, ...]
    allowed: bool
    then_discard: int = -1
    legal_ready: bool | None = None

    @property
    def legal_shanten(self) -> int:
        """The shanten counted toward a legal win: ``shanten``, or 1 for a
        ready target none of whose waits makes a legal win."""
        return 1 if self.shanten == 0 and self.legal_ready is False else self.shanten


def fit_key(f: TargetFit) -> tuple[int, int]:
    """Sort key of a target: the lowest shanten toward a legal win
    (``TargetFit.legal_shanten``), then the most acceptance."""
    return (f.legal_shanten, -f.acceptance)


def best_target(fits: Sequence[TargetFit]) -> TargetFit | None:
    """The allowed target with the lowest shanten toward a legal win, then
    the most acceptance (``fit_key``)."""
    pool = [f for f in fits if f.allowed] or list(fits)
    return min(pool, key=fit_key) if pool else None


@dataclass(frozen=True)
class CandidateAdvice:
    """One candidate move and what is known of it.

    action: "win", "discard", "kong", "pass", "pung" or "chow"; kind: the
    tile discarded, konged or won on, or the offered tile claimed; chow: the
    chow's lowest kind (-1 otherwise); code: the evaluator's candidate code
    (the discard kind, ``common.CLAIM_*`` for a claim, -1 a win, -2 / -3 a
    concealed / added kong at a discard); label: "5p", "pung 5p",
    "chow 345p", "concealed kong 9s", "self-drawn win (5 tai)", "pass".
    targets: ``TargetFit`` per target compatible with the melds.
    then_discard: for a pung or chow, the discard after it toward its best
    target (by shanten; the simulated claim lets the base policy discard).
    From the lookahead (None when not simulated): mean_pay and se_pay
    (points per deal for the seat), pay_low / pay_high (its 95% interval,
    mean +- 1.96 se), p_win / se_win, p_deal_in with p_deal_in_to (by
    seat E S W N, 0 for the seat itself), p_exhausted, diff / diff_se /
    diff_low / diff_high (paired difference to the best candidate, common
    random numbers, and its 95% interval), within_noise (that interval
    holds 0; never for a move the race dropped), deals (the sampled deals
    it was played on: fewer than the best's when the race dropped it),
    dropped (the round after which the race dropped it, its paired 95%
    interval to the leader then below 0; 0: raced to the end), win_pay
    (its mean payment in the deals it won, points; None when it won
    none). waits: the kinds that complete the hand the move leaves (3k + 1
    tiles: after a discard, a kong, a pass, or a pung or chow and its
    ``then_discard``), each (kind, a legal self-drawn win, a legal win on a
    discard), ``advice_wins.hand_waits``;
    () when no tile completes it. exact_p_win / exact_draws: for a discard leaving the hand
    ready, the exact chance of completing it with the seat's own draws
    alone (no opponents; ``exact_own_draws`` gives the model) and the most
    own draws it has. score: for a "win" on the
    offered tile or a self-drawn one, the scored win (``ScoreResult``:
    legal or not and why, tai or fan, the payments); None for the other
    moves."""
    action: str
    kind: int
    code: int
    label: str
    targets: tuple[TargetFit, ...]
    chow: int = -1
    then_discard: int = -1
    mean_pay: float | None = None
    se_pay: float | None = None
    pay_low: float | None = None
    pay_high: float | None = None
    p_win: float | None = None
    se_win: float | None = None
    p_deal_in: float | None = None
    p_deal_in_to: tuple[float, ...] | None = None
    p_exhausted: float | None = None
    diff: float | None = None
    diff_se: float | None = None
    diff_low: float | None = None
    diff_high: float | None = None
    within_noise: bool = False
    exact_p_win: float | None = None
    exact_draws: int | None = None
    score: ScoreResult | None = None
    waits: tuple[tuple[int, bool, bool], ...] = ()
    deals: int | None = None
    win_pay: float | None = None
    dropped: int = 0

    @property
    def legal_waits(self) -> tuple[int, ...]:
        """The kinds of ``waits`` that make a legal win, self-drawn or on a
        discard."""
        return tuple(k for k, sd, dc in self.waits if sd or dc)

    @property
    def best_target(self) -> TargetFit | None:
        """The candidate's closest allowed target (``best_target``)."""
        return best_target(self.targets)


@dataclass(frozen=True)
class Advice:
    """The advice for one Position.

    variant: the rules' name; position and state (its notation,
    ``position_to_state``); decision: "discard" or "claim"; wilds: the wild
    kinds; candidates: best first; ranked_by: "lookahead" (a discard
    decision simulated: by expected payment) or "shanten" (by the lowest
    shanten toward an allowed target, then the most acceptance: claims, or
    no simulation); recommended: the first; close: the other candidates
    within the noise of it; samples, seed, base, opponents: the lookahead's
    (samples: the sampled deals the best was played on, 0: not simulated;
    opponents: the worlds' opponent model,
    ``nbsim.play.worlds.OPPONENT_MODELS``); rounds, stopped, budget, cap:
    the race over the candidates (``nbsim.play.evaluation.evaluate``:
    rounds of common sampled deals played, why it ended: "decided" one
    candidate left, "samples" the cap of deals reached, "budget" the time
    budget in seconds spent; cap: the most deals a candidate could get);
    reason: one sentence on why the recommendation beats the runner-up
    (win chance, value when won or losses such as dealing in); notes:
    remarks for the player (a complete hand, a possible win on the offered
    tile, what the advice leaves out)."""
    variant: str
    position: Position
    state: dict[str, Any]
    decision: str
    wilds: tuple[int, ...]
    candidates: tuple[CandidateAdvice, ...]
    samples: int
    seed: int
    base: str
    notes: tuple[str, ...] = ()
    ranked_by: str = "shanten"
    opponents: int = ADVICE_OPPONENTS
    rounds: int = 0
    stopped: str = ""
    budget: float | None = None
    cap: int = 0
    reason: str = ""

    @property
    def simulated(self) -> bool:
        """Some candidate carries the lookahead's numbers."""
        return any(c.mean_pay is not None for c in self.candidates)

    @property
    def recommended(self) -> CandidateAdvice:
        """The best candidate."""
        return self.candidates[0]

    @property
    def close(self) -> tuple[CandidateAdvice, ...]:
        """The other candidates whose paired difference to the best has a 95%
        interval containing 0 (none when the best is a win, not simulated)."""
        if self.recommended.mean_pay is None:
            return ()
        return tuple(c for c in self.candidates[1:] if c.within_noise)
