"""The building blocks of ``nbsim report`` and the deal-mode tables.

A report table is one function ``table_*(lf, ctx) -> Table | None`` over
the run's shards, read lazily (``lf``: a polars LazyFrame) with the run's
``RunContext`` (None = the table does not apply to this run); the tables
of each mode are listed in ``nbsim.analysis.report.report.TABLES``. This module holds the
``Table`` and ``RunContext`` records, the expressions and summaries the
game tables and ``nbsim.analysis.compare.compare`` share (``WIN``, ``winner_gain``,
``flower_count``, ``summary_rows``), and the deal-mode tables (heavenly
hand, wilds and flowers per seat). The game-mode tables are
``nbsim.analysis.report.game_tables``.

Every table is one or a few aggregations run by polars' streaming engine
(``collect``), so memory does not grow with the number of deals; medians
come from value counts, never from a materialised column.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from nbsim.run import schema as S
from nbsim.run.files import matches_paths
from nbsim.stats import CONFIDENCE, mean_row, prop_row

__all__ = ["Table", "RunContext", "collect", "SEATS", "WIN", "winner_gain", "flower_count",
           "summary_rows", "SUMMARY_SCHEMA", "seat_distribution", "seat_means",
           "table_heavenly", "table_heavenly_by_wilds", "table_wilds_per_seat",
           "table_flowers_per_seat"]


def collect(lf: pl.LazyFrame) -> pl.DataFrame:
    """Run a lazy query with polars' streaming engine (memory bounded by the
    aggregation, not by the number of rows)."""
    return lf.collect(engine="streaming")


SEATS = tuple(s.upper() for s in S.SEAT_SUFFIXES)


@dataclass
class Table:
    """One report table: a polars DataFrame plus its title and a note."""
    name: str
    title: str
    df: pl.DataFrame
    note: str = ""


@dataclass
class RunContext:
    """What the game tables need besides the rows: the run folder, its
    manifest, the scoring system ('tai' or 'fan_fu'), the tai value of each
    item (``[scoring.tai]``), the Ninghai fan and fu value of each item
    (``[scoring.fan]``, ``[scoring.fu]``), the points scheme the payments use,
    and the match-total files of a ``--format matches`` run."""
    run_dir: Path
    manifest: dict
    system: str = "tai"
    tai_values: dict = field(default_factory=dict)
    fan_values: dict = field(default_factory=dict)
    fu_values: dict = field(default_factory=dict)
    scheme: str | None = None
    matches_files: list[Path] = field(default_factory=list)
    _counts: dict = field(default_factory=dict, repr=False)

    def value_counts(self, lf: pl.LazyFrame, key: str, expr: pl.Expr,
                     where: pl.Expr | None = None) -> pl.DataFrame:
        """Value counts (columns x, c; nulls dropped; sorted by x) of ``expr``
        over the rows ``where`` selects, computed once per run and ``key``
        (one streaming group-by; the tables that need the same counts share
        them: tai of wins, winner's gain)."""
        if key not in self._counts:
            q = lf if where is None else lf.filter(where)
            self._counts[key] = collect(q.select(expr.alias("x")).drop_nulls().group_by("x")
                                        .agg(pl.len().alias("c"))).sort("x")
        return self._counts[key]

    @classmethod
    def from_run(cls, run_dir: Path, manifest: dict) -> RunContext:
        """The context of a run folder and its validated manifest
        (``read_run_manifest``). Raises RunError if a match file is missing."""
        scoring = (manifest.get("rules") or {}).get("scoring") or {}
        return cls(run_dir=run_dir, manifest=manifest, system=scoring.get("system", "tai"),
                   tai_values=dict(scoring.get("tai") or {}),
                   fan_values=dict(scoring.get("fan") or {}),
                   fu_values=dict(scoring.get("fu") or {}),
                   scheme=(scoring.get("points") or {}).get("points_scheme"),
                   matches_files=matches_paths(run_dir, manifest))

    def matches_lf(self) -> pl.LazyFrame | None:
        """LazyFrame over matches-*.parquet (match, player, policy, total), or None."""
        if not self.matches_files:
            return None
        return pl.scan_parquet([str(p) for p in self.matches_files])


# ------------------------------------------------------------------ deal mode
def _prob_row(k: int, n: int) -> dict:
    r = prop_row(k, n)
    return {"deals": r["n"], "complete": r["count"], "p": r["p"], "se": r["se"],
            "ci_low": r["ci_low"], "ci_high": r["ci_high"]}


def table_heavenly(lf: pl.LazyFrame, ctx: RunContext | None = None) -> Table:
    """P(dealer's 14 tiles complete) with its standard error and 95% Wilson CI."""
    r = collect(lf.select(pl.len().alias("n"), pl.col("dealer_complete").sum().alias("k")))
    n, k = int(r["n"][0]), int(r["k"][0] or 0)
    df = pl.DataFrame([{"event": "heavenly hand (dealer complete)", **_prob_row(k, n)}])
    return Table("heavenly", "Heavenly hand (天胡): dealer complete after the flower replacement",
                 df, f"{int(CONFIDENCE * 100)}% Wilson score interval (scipy.stats.binomtest)")


def table_heavenly_by_wilds(lf: pl.LazyFrame, ctx: RunContext | None = None) -> Table:
    """P(dealer complete | the dealer holds w wilds), one row per w seen."""
    g = (lf.group_by("wilds_e")
         .agg(pl.len().alias("n"), pl.col("dealer_complete").sum().alias("k"))
         .sort("wilds_e").collect(engine="streaming"))
    rows = [{"dealer_wilds": int(w), **_prob_row(int(k or 0), int(n))}
            for w, n, k in g.iter_rows()]
    schema = {"dealer_wilds": pl.Int64, "deals": pl.Int64, "complete": pl.Int64,
              "p": pl.Float64, "se": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    return Table("heavenly_by_wilds", "Heavenly hand by wilds held by the dealer",
                 pl.DataFrame(rows, schema=schema), "95% Wilson intervals")


def seat_distribution(lf: pl.LazyFrame, exprs: list[pl.Expr], label: str) -> pl.DataFrame:
    """Fraction of deals by value per seat: columns label, E, S, W, N (+ counts)."""
    long = (lf.select([e.alias(seat) for e, seat in zip(exprs, SEATS, strict=False)])
            .unpivot(variable_name="seat", value_name=label)
            .group_by("seat", label).agg(pl.len().alias("n"))
            .collect(engine="streaming"))
    total = long.filter(pl.col("seat") == SEATS[0])["n"].sum()
    wide = (long.pivot(on="seat", index=label, values="n")
            .sort(label).fill_null(0))
    for seat in SEATS:
        if seat not in wide.columns:
            wide = wide.with_columns(pl.lit(0, dtype=pl.UInt32).alias(seat))
    wide = wide.select(pl.col(label).cast(pl.Int64), *[
        (pl.col(seat) / total).alias(seat) for seat in SEATS])
    return wide


def seat_means(dist: pl.DataFrame, label: str) -> dict:
    """The mean of ``label`` per seat ({"E": float, ...}) from a
    ``seat_distribution`` table."""
    return {seat: float((dist[label] * dist[seat]).sum()) for seat in SEATS}


def table_wilds_per_seat(lf: pl.LazyFrame, ctx: RunContext | None = None) -> Table:
    """Distribution of the number of wilds in each seat's hand after the deal."""
    df = seat_distribution(lf, [pl.col(c) for c in S.seat_columns("wilds")], "wilds")
    means = seat_means(df, "wilds")
    return Table("wilds_per_seat", "Wilds held per seat (fraction of deals)", df,
                 "mean: " + ", ".join(f"{s} {m:.4f}" for s, m in means.items()))


def flower_count(col: str) -> pl.Expr:
    """Number of flowers in a flowers_<seat> text column ('135f' -> 3)."""
    n = pl.col(col).str.len_bytes()
    return pl.when(n > 0).then(n - 1).otherwise(0)


def table_flowers_per_seat(lf: pl.LazyFrame, ctx: RunContext | None = None) -> Table:
    """Distribution of the number of flowers each seat set aside (补花)."""
    df = seat_distribution(lf, [flower_count(c) for c in S.seat_columns("flowers")],
                           "flowers")
    means = seat_means(df, "flowers")
    return Table("flowers_per_seat", "Flowers set aside per seat (fraction of deals)", df,
                 "mean: " + ", ".join(f"{s} {m:.4f}" for s, m in means.items()))


# ------------------------------------------------------------------ shared by the game tables
WIN = pl.col("outcome") != "wall_exhausted"


def winner_gain() -> pl.Expr:
    """The winner's net points of a deal (null on a wall-exhausted deal)."""
    return pl.coalesce([pl.when(pl.col("winner") == seat).then(pl.col(f"pay_{seat.lower()}"))
                        for seat in SEATS]).cast(pl.Int64)


def summary_rows(lf: pl.LazyFrame, ctx: RunContext, quantities: list[tuple[str, str, pl.Expr]],
                 where: pl.Expr | None = None) -> list[dict]:
    """n, mean, sd, min, median and max of each (label, key, expression)
    over the rows ``where`` selects, exact, from the value counts of the
    expression (``RunContext.value_counts``: one streaming group-by each):
    memory grows with the number of distinct values (tai, turns, points),
    never with the number of deals. Nulls are left out. Returns one dict per
    quantity: {quantity, **mean_row, min, median, max}."""
    import numpy as np

    rows = []
    for label, key, e in quantities:
        vc = ctx.value_counts(lf, key, e, where)
        x = vc["x"].cast(pl.Float64).to_numpy()
        c = vc["c"].cast(pl.Int64).to_numpy()
        n = int(c.sum())
        if n == 0:
            rows.append({"quantity": label, **mean_row(0, None, None), "min": None,
                         "median": None, "max": None})
            continue
        mean = float(np.average(x, weights=c))
        sd = float(np.sqrt(np.cov(x, fweights=c, ddof=1))) if n > 1 else None
        cum = np.cumsum(c)
        lo_val = x[np.searchsorted(cum, (n - 1) // 2 + 1)]     # the middle value(s), 1-based
        hi_val = x[np.searchsorted(cum, n // 2 + 1)]
        rows.append({"quantity": label, **mean_row(n, mean, sd), "min": float(x[0]),
                     "median": float((lo_val + hi_val) / 2), "max": float(x[-1])})
    return rows


SUMMARY_SCHEMA = {"quantity": pl.String, "n": pl.Int64, "mean": pl.Float64, "sd": pl.Float64,
                  "se": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
                  "min": pl.Float64, "median": pl.Float64, "max": pl.Float64}
