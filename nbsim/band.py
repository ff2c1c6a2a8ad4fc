"""``nbsim band``: the play-style band, the same variant played in several styles.

Every statistic nbsim reports comes from some style of play. The band plays a
variant once per style, with that policy in every seat and the same seed (the
same walls), and shows the headline statistics side by side (win rate, wall
exhausted, self-drawn share, mean tai or points of wins, deal-in rate per
seat, dealer advantage, and the per-seat win rates and net points), each
with its 95% interval (``nbsim.compare``: differences from the first style are
paired), and each style's duel against ``value`` (``nbsim.duel``). A figure
that moves little across the band holds whatever the style; one that moves
a lot depends on how the table plays.

Styles are policy specs (``nbsim.policies``); the default band is ``value``,
``defend`` at its default caution and ``defend:caution=0.9`` (careful tables).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nbsim.duplicate import DuelResult, duel
from nbsim.errors import RunError
from nbsim.policies import parse_policy
from nbsim.rules import as_rules

if TYPE_CHECKING:
    from nbsim.comparison import Comparison

DEFAULT_STYLES = ("value", "defend", "defend:caution=0.9")
BAND_MD = "band.md"


@dataclass
class VariantBand:
    """One variant's band: its runs (style -> folder), the comparison of
    the runs (``nbsim.comparison.Comparison``) and the duels against value."""
    variant: str
    styles: list[str]
    runs: dict[str, Path]
    comparison: Comparison
    duels: dict[str, DuelResult] = field(default_factory=dict)

    def markdown(self) -> str:
        """Headline and per-seat statistics, a column per style, then the duels."""
        from nbsim.stats import markdown_table
        comp = self.comparison
        head = comp.headline
        seats = comp.seats
        lines = [f"### {self.variant}", ""]
        rename = dict(zip([c for c in head.columns if c not in ("statistic", "key")],
                          self.styles, strict=False))
        lines.append(markdown_table(head.drop("key", strict=False).rename(rename)))
        lines.append("")
        lines.append(markdown_table(seats.drop("key", strict=False).rename(rename)))
        lines.append("")
        if self.duels:
            lines += ["| style | duel against value (points per deal and seat) | plays won |",
                      "|---|---|---|"]
            for s in self.styles:
                r = self.duels.get(s)
                if r is None:
                    lines.append(f"| {s} | (is value) | |")
                else:
                    lines.append(f"| {s} | {r.mean:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] "
                                 f"over {r.deals:,} duplicate deals | {r.win_rate_a:.3f} / "
                                 f"{r.win_rate_b:.3f} |")
            lines.append("")
        return "\n".join(lines)


def _folder(style: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", style).strip("-")


def band(configs: Sequence[str | Path] | str, *, deals: int, seed: int, out: str | Path,
         styles: Sequence[str] = DEFAULT_STYLES, duel_deals: int = 0,
         workers: int | None = None,
         progress: bool | None = None,
         duel_progress: Callable[[int], None] | None = None) -> list[VariantBand]:
    """Play each of ``configs`` once per style (``deals`` game deals, policy in
    every seat, seed ``seed``) into ``out/<variant>/<style>/`` (finished runs
    are reused), compare them, and duel each style but value against value
    with ``duel_deals`` duplicate deals (0: no duels). Writes
    ``out/band.md`` and returns one VariantBand per config.

    Raises ConfigError / RunError for a bad config, style, count or folder."""
    from nbsim.comparison import compare
    from nbsim.runs import run_status, simulate

    if isinstance(configs, (str, Path)):
        configs = [configs]
    if isinstance(styles, str):
        styles = [s.strip() for s in styles.split(",")]
    specs = [parse_policy(s).spec for s in styles]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise RunError(f"a band needs two or more different styles, got {specs}")
    out = Path(out)
    # four shards per run (at most the default 100,000 deals each), so that
    # every worker thread plays; the shard size changes no row
    shard = min(100_000, max(1_000, -(-deals // 4)))
    result = []
    for c in configs:
        rs = as_rules(c)
        runs = {}
        for s in specs:
            run = out / rs.name / _folder(s)
            pols = (parse_policy(s).full,) * 4
            status = run_status(rs, deals=deals, seed=seed, out=run, mode="game",
                                policies=pols, shard_size=shard)
            if status != "complete":
                simulate(rs, mode="game", deals=deals, seed=seed, out=run, policies=pols,
                         workers=workers, progress=progress, resume=status == "partial",
                         overwrite=status == "different", shard_size=shard)
            runs[s] = run
        comp = compare([runs[s] for s in specs])
        vb = VariantBand(rs.name, specs, runs, comp)
        if duel_deals:
            for s in specs:
                if s != "value":
                    vb.duels[s] = duel(rs, s, "value", duel_deals, seed,
                                       progress=duel_progress)
        result.append(vb)
    text = ["# The play-style band", "",
            f"{deals:,} game deals per style and variant, seed {seed}, the style's policy in "
            "every seat (`nbsim band`). Intervals are 95%; differences between styles are "
            "paired (same walls).", ""]
    for vb in result:
        text.append(vb.markdown())
    out.mkdir(parents=True, exist_ok=True)
    (out / BAND_MD).write_text("\n".join(text) + "\n", encoding="utf-8")
    return result
