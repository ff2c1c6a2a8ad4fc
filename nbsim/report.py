"""``nbsim report``: probability tables of a run folder -> report.md,
summary.json and PNG plots, plus the main table as text.

The shards are read lazily (``polars.scan_parquet``). Each table is one
function ``table_*(lf) -> Table`` registered per mode in ``TABLES``; game-mode
tables (win rates, expected tai, payments) are added the same way later.
Plots (``nbsim.plots``) are drawn from the tables only.

Deal-mode tables:
    heavenly            P(dealer complete after the flower replacement, 天胡)
                        with a 95% Wilson interval (scipy)
    heavenly_by_wilds   the same split by the number of wilds the dealer holds
    wilds_per_seat      distribution of wilds held per seat (E S W N)
    flowers_per_seat    distribution of flowers set aside per seat
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from scipy.stats import binomtest

from nbsim import schema as S
from nbsim.errors import RunError
from nbsim.simulate import (PLOT_FILES, REPORT_FILES, REPORT_MD,  # noqa: F401
                            SUMMARY_JSON, read_manifest, scan_run)

CONFIDENCE = 0.95
SEATS = tuple(s.upper() for s in S.SEAT_SUFFIXES)


@dataclass
class Table:
    """One report table: a polars DataFrame plus its title and a note."""
    name: str
    title: str
    df: pl.DataFrame
    note: str = ""


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (scipy.stats.binomtest)."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def _prob_row(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    p = k / n if n else math.nan
    se = math.sqrt(p * (1 - p) / n) if n else math.nan
    return {"deals": n, "complete": k, "p": p, "se": se, "ci_low": lo, "ci_high": hi}


def table_heavenly(lf: pl.LazyFrame) -> Table:
    """P(dealer's 14 tiles complete) with its standard error and 95% Wilson CI."""
    r = lf.select(pl.len().alias("n"), pl.col("dealer_complete").sum().alias("k")).collect()
    n, k = int(r["n"][0]), int(r["k"][0] or 0)
    df = pl.DataFrame([{"event": "heavenly hand (dealer complete)", **_prob_row(k, n)}])
    return Table("heavenly", "Heavenly hand (天胡): dealer complete after the flower replacement",
                 df, f"{int(CONFIDENCE * 100)}% Wilson score interval (scipy.stats.binomtest)")


def table_heavenly_by_wilds(lf: pl.LazyFrame) -> Table:
    """P(dealer complete | the dealer holds w wilds), one row per w seen."""
    g = (lf.group_by("wilds_e")
         .agg(pl.len().alias("n"), pl.col("dealer_complete").sum().alias("k"))
         .sort("wilds_e").collect())
    rows = [{"dealer_wilds": int(w), **_prob_row(int(k or 0), int(n))}
            for w, n, k in g.iter_rows()]
    schema = {"dealer_wilds": pl.Int64, "deals": pl.Int64, "complete": pl.Int64,
              "p": pl.Float64, "se": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    return Table("heavenly_by_wilds", "Heavenly hand by wilds held by the dealer",
                 pl.DataFrame(rows, schema=schema), "95% Wilson intervals")


def _seat_distribution(lf: pl.LazyFrame, exprs: list[pl.Expr], label: str) -> pl.DataFrame:
    """Fraction of deals by value per seat: columns label, E, S, W, N (+ counts)."""
    long = (lf.select([e.alias(seat) for e, seat in zip(exprs, SEATS)])
            .unpivot(variable_name="seat", value_name=label)
            .group_by("seat", label).agg(pl.len().alias("n"))
            .collect())
    total = long.filter(pl.col("seat") == SEATS[0])["n"].sum()
    wide = (long.pivot(on="seat", index=label, values="n")
            .sort(label).fill_null(0))
    for seat in SEATS:
        if seat not in wide.columns:
            wide = wide.with_columns(pl.lit(0, dtype=pl.UInt32).alias(seat))
    wide = wide.select(pl.col(label).cast(pl.Int64), *[
        (pl.col(seat) / total).alias(seat) for seat in SEATS])
    return wide


def _seat_means(dist: pl.DataFrame, label: str) -> dict:
    return {seat: float((dist[label] * dist[seat]).sum()) for seat in SEATS}


def table_wilds_per_seat(lf: pl.LazyFrame) -> Table:
    """Distribution of the number of wilds in each seat's hand after the deal."""
    df = _seat_distribution(lf, [pl.col(c) for c in S.seat_columns("wilds")], "wilds")
    means = _seat_means(df, "wilds")
    return Table("wilds_per_seat", "Wilds held per seat (fraction of deals)", df,
                 "mean: " + ", ".join(f"{s} {m:.4f}" for s, m in means.items()))


def _flower_count(col: str) -> pl.Expr:
    n = pl.col(col).str.len_bytes()
    return pl.when(n > 0).then(n - 1).otherwise(0)   # '135f' -> 3


def table_flowers_per_seat(lf: pl.LazyFrame) -> Table:
    """Distribution of the number of flowers each seat set aside (补花)."""
    df = _seat_distribution(lf, [_flower_count(c) for c in S.seat_columns("flowers")],
                            "flowers")
    means = _seat_means(df, "flowers")
    return Table("flowers_per_seat", "Flowers set aside per seat (fraction of deals)", df,
                 "mean: " + ", ".join(f"{s} {m:.4f}" for s, m in means.items()))


TABLES = {
    "deal": (table_heavenly, table_heavenly_by_wilds, table_wilds_per_seat,
             table_flowers_per_seat),
}


@dataclass
class Report:
    """A computed report: run info, tables by name, files written, main text."""
    run: dict
    tables: dict[str, Table]
    files: list[Path] = field(default_factory=list)
    text: str = ""


def _run_info(manifest: dict, run_dir: Path) -> dict:
    return {
        "run_dir": str(run_dir),
        "config": manifest.get("config", {}).get("name"),
        "config_hash": manifest.get("config", {}).get("hash"),
        "overrides": manifest.get("overrides", []),
        "mode": manifest.get("mode"),
        "seed": manifest.get("seed"),
        "deals": manifest.get("deals"),
        "deals_done": manifest.get("deals_done"),
        "status": manifest.get("status"),
        "nbsim_version": manifest.get("nbsim_version"),
    }


def _fmt(x) -> str:
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        if x == 0:
            return "0"
        if abs(x) < 1e-3:
            return f"{x:.3e}"
        return f"{x:.4f}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _markdown(df: pl.DataFrame) -> str:
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    for row in df.iter_rows():
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines)


def _text_table(df: pl.DataFrame) -> str:
    cells = [list(df.columns)] + [[_fmt(v) for v in row] for row in df.iter_rows()]
    widths = [max(len(r[i]) for r in cells) for i in range(len(df.columns))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells)


def _status_line(run: dict) -> str:
    ov = f" --set {' --set '.join(run['overrides'])}" if run["overrides"] else ""
    line = (f"{run['config']}{ov} (hash {run['config_hash']}), seed {run['seed']}: "
            f"{run['deals_done']:,} deals")
    if run["status"] != "complete":
        line += (f" -- INCOMPLETE run ({run['status']}): {run['deals_done']:,} of "
                 f"{run['deals']:,} deals done")
    return line


def main_text(rep: Report) -> str:
    """The main table printed by ``nbsim report``."""
    h = rep.tables["heavenly"].df.row(0, named=True)
    out = [_status_line(rep.run), "",
           f"heavenly hand (dealer complete): {h['complete']:,} / {h['deals']:,} = "
           f"{_fmt(h['p'])}  (95% Wilson CI {_fmt(h['ci_low'])} .. {_fmt(h['ci_high'])}; "
           f"se {_fmt(h['se'])})"]
    for name in ("wilds_per_seat", "flowers_per_seat"):
        t = rep.tables[name]
        out += ["", t.title, _text_table(t.df), t.note]
    return "\n".join(out)


def summarize(run_dir: str | Path) -> Report:
    """Compute the report tables of a run folder (no files written).

    Raises RunError if the folder is not a run, has no finished shard, or is
    in a mode without report tables."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    mode = manifest.get("mode", "deal")
    if mode not in TABLES:
        raise RunError(f"{run_dir}: no report for mode {mode!r}")
    lf = scan_run(run_dir)
    tables = {}
    for fn in TABLES[mode]:
        t = fn(lf)
        tables[t.name] = t
    rep = Report(run=_run_info(manifest, run_dir), tables=tables)
    rep.text = main_text(rep)
    return rep


def _json_safe(x):
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Report:
    """Compute the report of a run and write report.md, summary.json and the
    PNG plots into ``out`` (default: the run folder). Returns the Report.

    Raises RunError (not a run, nothing finished, unwritable ``out``)."""
    from nbsim import plots

    rep = summarize(run_dir)
    out = Path(out) if out is not None else Path(run_dir)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        pngs = plots.draw_all(rep.tables, out)
        summary = {"run": rep.run,
                   "tables": {name: {"title": t.title, "note": t.note,
                                     "rows": [{k: _json_safe(v) for k, v in r.items()}
                                              for r in t.df.to_dicts()]}
                              for name, t in rep.tables.items()},
                   "plots": [p.name for p in pngs]}
        (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
        md = [f"# nbsim report: {rep.run['config']}", "", _status_line(rep.run), ""]
        for t in rep.tables.values():
            md += [f"## {t.title}", "", _markdown(t.df), ""]
            if t.note:
                md += [t.note, ""]
        md += [f"![{p.stem}]({p.name})" for p in pngs]
        (out / REPORT_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot write the report ({e.strerror or e})") from None
    rep.files = [out / REPORT_MD, out / SUMMARY_JSON, *pngs]
    return rep
