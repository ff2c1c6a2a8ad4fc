"""The lookahead's costs on ningbo-3baida, one core: playouts of the rest of
a deal per second, one advice and the exact own-draw answer in seconds, and
the ``lookahead`` policy's discard decisions per second; each beside a
baseline measured in the same run. The playouts are measured twice per
position: with defend in every seat (the evaluator's default) and with
greedy, the cheapest player with a plan. Where the time goes: seconds per
discard of whole deals with defend in every seat, beside the same with
random (the engine, its decisions nearly free).

Targets: >= 50,000 playouts per second per core; one advice on a
14-tile hand with P(win) to +-0.01 in <= 1 s (<= 100 ms for the exact
own-draw answer); ``lookahead`` at its default >= 20 decisions per second;
duels use every core (duplicate deals per second on every core against one
worker, the same deals).
"""
from __future__ import annotations

import time

import numpy as np

from benchmarks.common import Result

# P(win) to +-0.01 (95%): 1.96 x sqrt(p (1 - p) / n) <= 0.01 for p = 0.5
ADVICE_SAMPLES = 9604


def _positions():
    """Three positions of the example hand: early, middle and late."""
    from dataclasses import replace

    from nbsim.play.position import example_position
    pos = example_position()
    return [replace(pos, tiles_left=t) for t in (70, 40, 16)]


def _playout_rate(rs, pos, samples: int, base: str) -> tuple[float, int]:
    """Playouts per second of every candidate discard of ``pos`` on
    ``samples`` uniform worlds with ``base`` in every seat, and the number
    of candidates."""
    from nbsim.play.evaluation import evaluate
    evaluate(rs, pos, samples=2, base=base, opponents=0)     # compile / load
    t0 = time.perf_counter()
    ev = evaluate(rs, pos, samples=samples, base=base, opponents=0)
    dt = time.perf_counter() - t0
    return sum(c.n for c in ev.candidates) / dt, len(ev.candidates)


def _seconds_per_discard(rs, tables, policy: str, n: int) -> tuple[float, float]:
    """(whole deals per second, seconds per discard) of ``n`` deals with
    ``policy`` in every seat (``bench_game._engine_run``: the deal's set-up
    is spread over its discards)."""
    from benchmarks.bench_game import _engine_run
    rate, discards = _engine_run(rs, tables, policy, n)
    return rate, n / rate / discards


def _decisions(rs, tables, policy: str, n: int) -> tuple[int, float]:
    """Seat E's discards and the seconds of n deals with ``policy`` in seat E
    and defend in the others."""
    from nbsim.run.game_mode import game_frame
    pols = (policy, "defend", "defend", "defend")
    game_frame(rs, 1, 0, 1, pols, tables)                 # compile / load
    t0 = time.perf_counter()
    _, ev = game_frame(rs, 1, 0, n, pols, tables, with_events=True)
    dt = time.perf_counter() - t0
    n_dec = ev.filter((ev["seat"] == "E") & (ev["action"] == "discard")).height
    return n_dec, dt


def _duel_rate(rs, tables, deals: int, workers: int | None) -> float:
    """Duplicate deals per second of a 1v3 duel of defend against value
    (five plays a deal) with ``workers`` threads (None: every core)."""
    from nbsim.play.duel import duel
    duel(rs, "defend", "value", 2, 1, tables=tables, seating="1v3")   # compile / load
    t0 = time.perf_counter()
    duel(rs, "defend", "value", deals, 1, tables=tables, seating="1v3", workers=workers)
    return deals / (time.perf_counter() - t0)


def bench(quick: bool = False) -> list[Result]:
    from nbsim.play.evaluation import evaluate, exact_own_draws
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import load_rules

    rs = load_rules("ningbo-3baida")
    tables = load_tables()
    out = []
    n_full = 500 if quick else 2_000
    full, per_defend = _seconds_per_discard(rs, tables, "defend", n_full)
    per_random = _seconds_per_discard(rs, tables, "random", n_full)[1]
    # where a playout's time goes: the engine with decisions that cost
    # nothing (random) against defend's (item 7's target needs both cheap)
    out.append(Result("time per discard, whole deals, defend x4", per_defend, "s",
                      "the same with random x4 (the engine, decisions nearly free)", per_random,
                      note=f"{n_full:,} deals; defend's own decisions: about "
                           f"{1 - per_random / per_defend:.0%} of it"))
    samples = 100 if quick else 500
    for pos in _positions():
        # uniform hidden hands: the lookahead policy's worlds (its default
        # ``opponents`` 0); advise's model 3 costs up to about 10% more
        rate, n_cands = _playout_rate(rs, pos, samples, "defend")
        out.append(Result(f"playouts/s, {pos.tiles_left} tiles left, defend x4", rate,
                          "playouts/s", "whole deals/s, defend x4 (game_batch)", full,
                          note=f"{n_cands} candidates x {samples} samples; target 50,000"))
        # the same playouts with the cheapest player: the engine's share
        out.append(Result(f"playouts/s, {pos.tiles_left} tiles left, greedy x4",
                          _playout_rate(rs, pos, samples, "greedy")[0], "playouts/s",
                          "the same position's playouts, defend x4", rate,
                          note="what the engine costs with the cheapest decisions"))
    pos = _positions()[0]
    t0 = time.perf_counter()
    evaluate(rs, pos, samples=ADVICE_SAMPLES // (10 if quick else 1),
             kinds=[int(k) for k in np.flatnonzero(pos.hand)][:1])
    one = time.perf_counter() - t0
    exact_own_draws(rs, _positions()[1])                  # load its kernel once
    t0 = time.perf_counter()
    exact_own_draws(rs, pos)
    exact = time.perf_counter() - t0
    out.append(Result("advice: one candidate's P(win) to +-0.01 (95%)", one, "s",
                      "the exact own-draw answer of every discard", exact,
                      note=f"{ADVICE_SAMPLES:,} samples; target 1 s"))
    out.append(Result("exact own-draw answer, every discard", exact, "s",
                      "one advice, P(win) to +-0.01", one, note="target 0.1 s"))
    n = 4 if quick else 20
    d_look, t_look = _decisions(rs, tables, "lookahead", n)
    d_def, t_def = _decisions(rs, tables, "defend", n)
    out.append(Result("lookahead (default) discard decisions/s, seat E", d_look / t_look,
                      "decisions/s", "defend's decisions/s (same deals)", d_def / t_def,
                      note=f"{n} deals, defend in the other seats; target 20"))
    from nbsim.run.simulate import default_workers
    n = 400 if quick else 2_000
    one = _duel_rate(rs, tables, n, 1)
    out.append(Result(f"duel deals/s, every core ({default_workers()})",
                      _duel_rate(rs, tables, n, None), "deals/s",
                      "the same duel on one worker", one,
                      note=f"{n:,} deals, defend vs value, 1v3 (5 plays a deal)"))
    return out
