"""``nbsim review`` on ningbo-3baida, one core: seconds to review one seat
of one played deal at the default precision (``review.DEFAULT_SAMPLES``
sampled deals per move at most), the CPU time of the review's thread,
beside a baseline measured in the same run: one ``nbsim advise`` of the
deal's first decision at the same precision, times the number of
decisions rated.

Target: one deal of one seat in <= 15 s on one core.
"""
from __future__ import annotations

import time

from benchmarks.common import Result

SEED = 1
SEAT = "E"


def _review_seconds(rs, deal: int) -> tuple[float, float, int, float]:
    """(CPU seconds, wall seconds, decisions rated, CPU seconds of one advice
    of the first decision) of the review of seat E in deal ``deal`` of
    ``SEED`` played by defend (``nbsim replay``)."""
    from nbsim.play.advice.advise import advise
    from nbsim.play.advice.state import position_from_state
    from nbsim.play.review.review import DEFAULT_SAMPLES, review
    c0, t0 = time.thread_time(), time.perf_counter()
    rv = review(rs, seat=SEAT, deal=deal, replay_seed=SEED, policies="defend", progress=False)
    cpu, wall = time.thread_time() - c0, time.perf_counter() - t0
    first = rv.ratings[0].state
    c0 = time.thread_time()
    advise(rs, position_from_state(rs, first), samples=DEFAULT_SAMPLES, seed=0)
    return cpu, wall, len(rv.ratings), time.thread_time() - c0


def bench(quick: bool = False) -> list[Result]:
    from nbsim.play.review.review import review
    from nbsim.rules.ruleset import load_rules
    rs = load_rules("ningbo-3baida")
    review(rs, seat=SEAT, deal=0, replay_seed=SEED, policies="defend", samples=2,
           progress=False)                                          # compile / load
    deals = range(1 if quick else 3)
    runs = [_review_seconds(rs, d) for d in deals]
    cpu = sum(r[0] for r in runs) / len(runs)
    wall = sum(r[1] for r in runs) / len(runs)
    n = sum(r[2] for r in runs) / len(runs)
    base = sum(r[3] * r[2] for r in runs) / len(runs)
    return [Result("review of one seat of one deal (CPU, one core)", cpu, "s",
                   "one advice x decisions", base,
                   f"{len(runs)} deals of seed {SEED}, seat {SEAT}, {n:.0f} decisions per "
                   f"deal; wall {wall:.1f} s; target <= 15 s")]
