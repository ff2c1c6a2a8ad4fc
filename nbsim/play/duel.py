"""``nbsim duel``: duplicate play of two policies on the same walls.

For every deal i of the seed, the deal is played twice with the same wall:
seats (A, B, A, B) and then (B, A, B, A) (seats from the dealer). Each policy
so sits in every seat once per deal. The statistic per deal is

    d_i = mean payment per seat of A - mean payment per seat of B
        = (sum of A's 4 payments - sum of B's 4 payments) / 4

in points; its mean over the deals with a 95% t interval (scipy) says which
policy earns more. Duplicate play removes most of the luck of the deal.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from nbsim.errors import RunError
from nbsim.play.policy_specs import parse_policy
from nbsim.rules.ruleset import RuleSet, as_rules
from nbsim.run.game_mode import game_frame
from nbsim.run.simulate import MAX_DEALS

SEAT_PAY = ("pay_e", "pay_s", "pay_w", "pay_n")


@dataclass(frozen=True)
class DuelResult:
    """Duplicate-play result: a and b (policy names), deals, mean of d_i
    (points per deal and seat, A minus B), its standard error and 95%
    interval, the two-sided p-value of mean = 0 (t test), and the share of
    the 2 x deals plays won by each policy's two seats."""
    config: str
    a: str
    b: str
    deals: int
    mean: float
    se: float
    ci_low: float
    ci_high: float
    p_value: float
    win_rate_a: float
    win_rate_b: float

    def text(self) -> str:
        """The three lines ``nbsim duel`` prints (points per deal and seat)."""
        return (f"{self.config}: {self.a} vs {self.b}, {self.deals:,} duplicate deals\n"
                f"mean payment per deal and seat, {self.a} minus {self.b}: "
                f"{self.mean:+.3f} points (95% CI {self.ci_low:+.3f} .. {self.ci_high:+.3f}, "
                f"se {self.se:.3f}, {_p_text(self.p_value)})\n"
                f"share of plays won (each policy holds 2 of the 4 seats): "
                f"{self.a} {self.win_rate_a:.4f}, {self.b} {self.win_rate_b:.4f}")


def _p_text(p: float) -> str:
    """'p = 0.0123', or 'p < 1e-16' below double precision (the t test's
    p-value underflows to 0 for very large differences)."""
    return "p < 1e-16" if p < 1e-16 else f"p = {p:.3g}"


def duel(config: RuleSet | str | Path, a: str, b: str, deals: int, seed: int, tables=None,
         chunk: int = 50_000, progress=None) -> DuelResult:
    """Play ``deals`` duplicate deals of ``rs`` with policies ``a`` and ``b``
    (policy specs such as ``defend:caution=0.8``, ``nbsim.play.policy_specs``).

    Raises RunError for an unknown policy or parameter, fewer than 2 deals or
    more than ``MAX_DEALS``, or a seed outside 0 .. 2**64 - 1."""
    from nbsim.args import whole_number
    rs = as_rules(config)
    pa, pb = parse_policy(a), parse_policy(b)
    a, b = pa.spec, pb.spec
    deals = whole_number(deals, "--deals", error=RunError)
    seed = whole_number(seed, "--seed", error=RunError)
    if not 2 <= deals <= MAX_DEALS:
        raise RunError(f"--deals must be 2 .. {MAX_DEALS:,} (at least 2 for an interval), "
                       f"got {deals}")
    if not 0 <= seed < 2**64:
        raise RunError(f"--seed must be 0 .. 2**64 - 1, got {seed}")
    if tables is None:
        from nbsim.rules.lookups import load_tables
        tables = load_tables()
    from concurrent.futures import ThreadPoolExecutor

    from nbsim.warmup import ensure_compiled
    ensure_compiled("game")              # says so before a first compile
    pool = ThreadPoolExecutor(max_workers=2)   # the two seatings at once (nogil kernels)
    # running sums of d_i and d_i**2 (float64; |d_i| is a few hundred points
    # at most), so any number of deals fits in memory
    s1 = 0.0
    s2 = 0.0
    win_a = 0
    win_b = 0
    with pool:
        for start in range(0, deals, chunk):
            stop = min(start + chunk, deals)
            f1 = pool.submit(game_frame, rs, seed, start, stop, (pa, pb, pa, pb), tables)
            f2 = pool.submit(game_frame, rs, seed, start, stop, (pb, pa, pb, pa), tables)
            (df1, _), (df2, _) = f1.result(), f2.result()
            p1 = df1.select(SEAT_PAY).to_numpy().astype(np.float64)
            p2 = df2.select(SEAT_PAY).to_numpy().astype(np.float64)
            a_sum = p1[:, 0] + p1[:, 2] + p2[:, 1] + p2[:, 3]
            b_sum = p1[:, 1] + p1[:, 3] + p2[:, 0] + p2[:, 2]
            d = (a_sum - b_sum) / 4.0
            s1 += float(d.sum())
            s2 += float((d * d).sum())
            w1 = df1["winner"].to_list()
            w2 = df2["winner"].to_list()
            win_a += sum(w in ("E", "W") for w in w1) + sum(w in ("S", "N") for w in w2)
            win_b += sum(w in ("S", "N") for w in w1) + sum(w in ("E", "W") for w in w2)
            if progress is not None:
                progress(stop - start)
    mean = s1 / deals
    sd = math.sqrt(max(s2 - deals * mean * mean, 0.0) / (deals - 1))
    se = sd / math.sqrt(deals)
    if se > 0:
        lo, hi = stats.t.interval(0.95, deals - 1, loc=mean, scale=se)
        p = float(2.0 * stats.t.sf(abs(mean) / se, deals - 1))   # two-sided one-sample t test
    else:
        lo = hi = mean
        p = 1.0 if mean == 0 else 0.0
    return DuelResult(rs.name, a, b, deals, mean, se, float(lo), float(hi), p,
                      win_a / (2 * deals), win_b / (2 * deals))
