"""Shared helpers for the benchmarks: timing and the result record."""
from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class Result:
    """One benchmark figure.

    name: what was measured; rate: items per second (or seconds when
    unit == "s"); unit: e.g. "hands/s"; baseline: name of the baseline;
    baseline_rate: its figure in the same unit, measured in the same run;
    note: free text (input sizes, targets)."""
    name: str
    rate: float
    unit: str
    baseline: str = ""
    baseline_rate: float = float("nan")
    note: str = ""

    @property
    def ratio(self) -> float:
        if self.unit == "s":  # lower is better: baseline time / our time
            return self.baseline_rate / self.rate if self.rate else float("nan")
        return self.rate / self.baseline_rate if self.baseline_rate else float("nan")


def best_rate(fn, n_items: int, *, repeat: int = 3, min_time: float = 0.2) -> float:
    """Items per second of ``fn()`` (which processes ``n_items`` items): the
    best of ``repeat`` timings, each looping until ``min_time`` seconds pass.
    Call ``fn`` once before (JIT warm-up) if it is compiled."""
    best = 0.0
    for _ in range(repeat):
        loops, t0 = 0, time.perf_counter()
        while True:
            fn()
            loops += 1
            dt = time.perf_counter() - t0
            if dt >= min_time:
                break
        best = max(best, loops * n_items / dt)
    return best
