"""``nbsim ladder``: every pair of policies dueled on every variant.

A ladder is a set of duels (``nbsim.play.duel.duel``: duplicate deals, seats
A,B,A,B then B,A,B,A) of each pair of policies, on each variant, with the
same seed, so anyone can rerun it (``make ladder``). Its table gives, per
variant and pair, the mean payment per deal and seat of A minus B (points)
with its 95% t interval, the p-value, and each side's share of plays won;
the markdown form is docs/results/ladder.md.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import polars as pl

from nbsim.errors import RunError
from nbsim.play.duel import DuelResult, duel
from nbsim.policy_specs import parse_policy
from nbsim.rules.ruleset import as_rules


@dataclass
class Ladder:
    """The duels of a ladder (``results``, in variant then pair order), the
    duplicate deals per duel and the seed."""
    deals: int
    seed: int
    results: list[DuelResult] = field(default_factory=list)

    def frame(self) -> pl.DataFrame:
        """One row per duel: variant, a, b, deals, mean, ci_low, ci_high,
        p_value, win_rate_a, win_rate_b (points per deal and seat, A - B)."""
        return pl.DataFrame([{"variant": r.config, "a": r.a, "b": r.b, "deals": r.deals,
                              "mean": r.mean, "ci_low": r.ci_low, "ci_high": r.ci_high,
                              "p_value": r.p_value, "win_rate_a": r.win_rate_a,
                              "win_rate_b": r.win_rate_b} for r in self.results])

    def markdown(self) -> str:
        """The ladder as markdown: one table per variant, a row per pair; the
        prose wrapped to ``stats.TEXT_WIDTH`` columns (``nbsim ladder``
        prints it)."""
        from nbsim.stats import fill
        lines = [fill(f"Duels of {self.deals:,} duplicate deals each, seed {self.seed} "
                      f"(`nbsim duel VARIANT --a A --b B --deals {self.deals} --seed "
                      f"{self.seed}`). A - B is the mean payment per deal and seat in points, "
                      "with its 95% interval; an interval above zero means A is stronger."),
                 ""]
        by_variant: dict[str, list[DuelResult]] = {}
        for r in self.results:
            by_variant.setdefault(r.config, []).append(r)
        for v, rows in by_variant.items():
            lines += [f"**{v}**", "", "| A | B | A - B | 95% interval | plays won A / B |",
                      "|---|---|---|---|---|"]
            for r in rows:
                lines.append(f"| {r.a} | {r.b} | {r.mean:+.3f} | {r.ci_low:+.3f} .. "
                             f"{r.ci_high:+.3f} | {r.win_rate_a:.3f} / {r.win_rate_b:.3f} |")
            lines.append("")
        return "\n".join(lines)


def ladder(configs: Sequence[str | Path], policies: Sequence[str], deals: int, seed: int,
           progress: Callable[[int], None] | None = None) -> Ladder:
    """Duel every pair of ``policies`` (specs, in the given order: A is the
    earlier one) on each of ``configs`` with ``deals`` duplicate deals and
    ``seed``. Raises ConfigError/RunError for a bad config, policy, count or
    seed, and RunError for fewer than two policies."""
    if isinstance(policies, str):
        policies = [p.strip() for p in policies.split(",")]
    if isinstance(configs, (str, Path)):
        configs = [configs]
    specs = [parse_policy(p).spec for p in policies]
    if len(set(specs)) < 2:
        raise RunError(f"a ladder needs at least two different policies, got {specs}")
    out = Ladder(deals, seed)
    rules = [as_rules(c) for c in configs]
    for rs in rules:
        for a, b in combinations(specs, 2):
            out.results.append(duel(rs, a, b, deals, seed, progress=progress))
    return out
