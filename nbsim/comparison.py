"""``nbsim compare RUN1 RUN2 [RUN3 ...]``: the main statistics of several
runs side by side, and for two runs their difference with a test.

This is how one answers "how does 7-baida change the win rate and the mean
tai" or "what does min_tai 5 do": simulate each variant (or each ``--set``
override) into its own run folder, then compare the folders. All runs must
be of one mode (deal or game).

Statistics (each with a 95% interval):
    deal mode   heavenly-hand rate; mean wilds held by the dealer; mean wilds
                and flowers per player
    game mode   win rate; self-drawn share of wins; discard-win, robbing and
                wall-exhausted rates; dealer win rate; mean tai of wins (tai
                variants) or mean fan, fu and points of wins (Ninghai, under
                the run's points scheme); mean winner's gain; mean turns and
                kongs per deal

Rates: Wilson score intervals (``scipy.stats.binomtest``). Means: t
intervals (``scipy.stats.t``). Difference of two runs (run 2 - run 1):
    rates   Newcombe's hybrid score interval (Newcombe 1998, method 10; built
            from the two scipy Wilson intervals) and the two-sided
            two-proportion z test (``scipy.stats.chi2_contingency`` without
            continuity correction, whose chi-square is z squared); Fisher's
            exact test (``scipy.stats.fisher_exact``) when an expected count
            is below 5
    means   Welch's t test and its interval (``scipy.stats.ttest_ind`` with
            ``equal_var=False``)
The runs are treated as independent samples. Runs with the same seed share
their walls deal by deal (common random numbers), which usually correlates
them positively and makes these intervals and p-values conservative.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl
from scipy import stats

from nbsim import schema as S
from nbsim.errors import RunError
from nbsim.report import (CONFIDENCE, WIN, _fmt, _json_safe, _markdown, _text_table,
                          flower_count, mean_row, prop_row, wilson, winner_gain)
from nbsim.runfiles import damaged_file_errors, open_run

COMPARE_MD = "compare.md"
COMPARE_JSON = "compare.json"
COMPARE_PNG = "compare.png"
MIN_EXPECTED = 5            # below this expected count the rate test is Fisher's exact


@dataclass(frozen=True)
class Stat:
    """One compared statistic. ``value(names, run)`` gives the expression
    (a 0/1 event for a rate, a number for a mean) or None when the run has
    no such column; ``where`` restricts the rows (None = all deals)."""
    key: str
    label: str
    kind: str                                   # "rate" or "mean"
    value: Callable[[list, "Run"], pl.Expr | None]
    where: pl.Expr | None = None
    of: str = "deals"


def _col(name: str):
    return lambda names, run: pl.col(name) if name in names else None


def _outcome(name: str):
    return lambda names, run: pl.col("outcome") == name


def _points(names, run):
    c = f"points_{run.scheme}"
    return pl.col(c) if c in names else None


def _per_player(prefix: str, fn=None):
    cols = S.seat_columns(prefix)

    def value(names, run):
        if not all(c in names for c in cols):
            return None
        parts = [fn(c) if fn else pl.col(c) for c in cols]
        return pl.sum_horizontal([p.cast(pl.Float64) for p in parts]) / len(cols)
    return value


STATS: dict[str, tuple[Stat, ...]] = {
    "deal": (
        Stat("heavenly", "heavenly-hand rate", "rate", _col("dealer_complete")),
        Stat("dealer_wilds", "mean wilds held by the dealer", "mean", _col("wilds_e")),
        Stat("wilds_per_player", "mean wilds per player", "mean", _per_player("wilds")),
        Stat("flowers_per_player", "mean flowers set aside per player", "mean",
             _per_player("flowers", flower_count)),
    ),
    "game": (
        Stat("win_rate", "win rate", "rate", lambda n, r: WIN),
        Stat("self_drawn_share", "self-drawn share of wins", "rate", _outcome("self_drawn"),
             WIN, "wins"),
        Stat("discard_win_rate", "discard-win rate", "rate", _outcome("discard")),
        Stat("robbing_rate", "robbing-the-kong rate", "rate", _outcome("robbing_kong")),
        Stat("wall_exhausted_rate", "wall-exhausted rate", "rate", _outcome("wall_exhausted")),
        Stat("dealer_win_rate", "dealer win rate", "rate",
             lambda n, r: (pl.col("winner") == "E").fill_null(False)),
        Stat("mean_tai", "mean tai of wins", "mean", _col("tai"), WIN, "wins"),
        Stat("mean_fan", "mean fan of wins", "mean", _col("fan"), WIN, "wins"),
        Stat("mean_fu", "mean fu of wins", "mean", _col("fu"), WIN, "wins"),
        Stat("mean_points", "mean points of wins (run's scheme)", "mean", _points, WIN, "wins"),
        Stat("winner_gain", "mean winner's gain (points)", "mean",
             lambda n, r: winner_gain(), WIN, "wins"),
        Stat("mean_turns", "mean turns per deal", "mean", _col("turns")),
        Stat("mean_kongs", "mean kongs per deal", "mean", _col("kongs")),
    ),
}


@dataclass
class Run:
    """One compared run: folder, manifest, label and lazy rows."""
    path: Path
    manifest: dict
    label: str
    lf: pl.LazyFrame

    @property
    def mode(self) -> str:
        """Simulation mode of the run: "deal" or "game"."""
        return self.manifest.get("mode", "deal")

    @property
    def scheme(self) -> str | None:
        """Ninghai points scheme of the run's rules, or None for tai variants."""
        return ((self.manifest.get("rules") or {}).get("scoring") or {}).get(
            "points", {}).get("points_scheme")

    def info(self) -> dict:
        """The run's identity for the comparison header (label, folder, mode,
        config name and hash, overrides, seed, deals done, status, ...)."""
        m = self.manifest
        return {"label": self.label, "run_dir": str(self.path), "mode": self.mode,
                "config": (m.get("config") or {}).get("name"),
                "config_hash": (m.get("config") or {}).get("hash"),
                "overrides": m.get("overrides", []), "seed": m.get("seed"),
                "deals_done": m.get("deals_done"), "status": m.get("status"),
                "policies": m.get("policies"), "game_format": m.get("game_format"),
                "points_scheme": self.scheme}


def run_label(manifest: dict) -> str:
    """'ningbo-3baida (win.min_tai=5)': config name and --set overrides."""
    name = (manifest.get("config") or {}).get("name") or "?"
    ov = manifest.get("overrides") or []
    return f"{name} ({', '.join(ov)})" if ov else name


def _labels(manifests: list[dict], paths: list[Path]) -> list[str]:
    """Run labels, made unique by adding what tells equal labels apart: the
    policies, the game format, the seed, the folder name, else a number."""
    labels = [run_label(m) for m in manifests]
    extras = (lambda m, p: f"[{','.join(m['policies'])}]" if m.get("policies") else None,
              lambda m, p: m.get("game_format"),
              lambda m, p: f"seed {m.get('seed')}",
              lambda m, p: p.name)
    for extra in extras:
        groups: dict[str, list[int]] = {}
        for i, lab in enumerate(labels):
            groups.setdefault(lab, []).append(i)
        for idx in groups.values():
            vals = [extra(manifests[i], paths[i]) for i in idx]
            if len(idx) > 1 and len(set(vals)) > 1:
                for i, v in zip(idx, vals):
                    labels[i] = f"{labels[i]} {v}" if v else labels[i]
    if len(set(labels)) != len(labels):     # the same folder given twice
        labels = [f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
    return labels


def load_runs(run_dirs) -> list[Run]:
    """Read and check the run folders (``nbsim.runfiles.open_run``: manifest
    and shards), check that there are at least two and that they share one
    mode, and label them. Raises RunError."""
    paths = [Path(p) for p in run_dirs]
    if len(paths) < 2:
        raise RunError(f"compare needs at least 2 run folders, got {len(paths)}")
    opened = [open_run(p) for p in paths]
    manifests = [r.manifest for r in opened]
    modes = [m.get("mode", "deal") for m in manifests]
    if len(set(modes)) > 1:
        which = ", ".join(f"{p} is a {mo} run" for p, mo in zip(paths, modes))
        raise RunError(f"cannot compare runs of different modes ({which}); compare deal runs "
                       f"with deal runs and game runs with game runs")
    if modes[0] not in STATS:
        raise RunError(f"{paths[0]}: no comparison for mode {modes[0]!r}")
    return [Run(p, r.manifest, lab, r.lf) for p, r, lab in
            zip(paths, opened, _labels(manifests, paths))]


# ------------------------------------------------------------------ statistics
def newcombe_interval(k1: int, n1: int, k2: int, n2: int,
                      confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Newcombe's hybrid score interval for p2 - p1 (Newcombe 1998, method
    10), from the Wilson intervals of p1 = k1/n1 and p2 = k2/n2
    (scipy.stats.binomtest)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, confidence)
    l2, u2 = wilson(k2, n2, confidence)
    d = p2 - p1
    return (d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2),
            d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2))


def rate_test(k1: int, n1: int, k2: int, n2: int) -> tuple[float, str]:
    """Two-sided p-value for p1 == p2: the two-proportion z test (pooled;
    scipy.stats.chi2_contingency without continuity correction, chi2 = z^2),
    or Fisher's exact test when an expected count is below 5."""
    table = np.array([[k1, n1 - k1], [k2, n2 - k2]], dtype=np.int64)
    col = table.sum(axis=0)
    expected = np.outer([n1, n2], col) / (n1 + n2)
    if expected.min() < MIN_EXPECTED:
        return float(stats.fisher_exact(table).pvalue), "Fisher exact"
    return float(stats.chi2_contingency(table, correction=False).pvalue), "z test"


def welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Welch's t test of mean(b) - mean(a): (ci_low, ci_high, p-value), via
    scipy.stats.ttest_ind(b, a, equal_var=False). nan when a sample has
    fewer than 2 values; an exact result when both have no spread."""
    if len(a) < 2 or len(b) < 2:
        return (math.nan, math.nan, math.nan)
    d = float(b.mean() - a.mean())
    if a.std() == 0 and b.std() == 0:
        return (d, d, 1.0 if d == 0 else 0.0)
    r = stats.ttest_ind(b, a, equal_var=False)
    ci = r.confidence_interval(confidence_level=CONFIDENCE)
    return float(ci.low), float(ci.high), float(r.pvalue)


def _rate_counts(run: Run, stats_: list[Stat]) -> dict[str, tuple[int, int]]:
    names = run.lf.collect_schema().names()
    aggs = []
    for st in stats_:
        e = st.value(names, run)
        if e is None:
            continue
        if st.where is None:
            aggs += [e.cast(pl.Int64).sum().alias(f"k_{st.key}"), pl.len().alias(f"n_{st.key}")]
        else:
            aggs += [(e & st.where).cast(pl.Int64).sum().alias(f"k_{st.key}"),
                     st.where.cast(pl.Int64).sum().alias(f"n_{st.key}")]
    if not aggs:
        return {}
    r = run.lf.select(aggs).collect().row(0, named=True)
    return {st.key: (int(r[f"k_{st.key}"]), int(r[f"n_{st.key}"]))
            for st in stats_ if f"k_{st.key}" in r}


def _mean_values(run: Run, st: Stat) -> np.ndarray | None:
    names = run.lf.collect_schema().names()
    e = st.value(names, run)
    if e is None:
        return None
    lf = run.lf.filter(st.where) if st.where is not None else run.lf
    s = lf.select(e.cast(pl.Float64).alias("x")).drop_nulls().collect()["x"]
    return s.to_numpy()


@dataclass
class Comparison:
    """The result of ``compare``: the runs (info dicts), ``stats`` (long
    table: statistic, run, n, estimate, ci_low, ci_high), ``table`` (wide:
    one row per statistic, one 'estimate [low, high]' column per run),
    ``diff`` (two runs: run 2 - run 1 with its interval and p-value, else
    None), the printed text and the files written."""
    runs: list[dict]
    stats: pl.DataFrame
    table: pl.DataFrame
    diff: pl.DataFrame | None
    text: str = ""
    files: list[Path] = field(default_factory=list)


def _cell(est, lo, hi) -> str:
    if est is None or (isinstance(est, float) and math.isnan(est)):
        return "-"
    return f"{_fmt(float(est))} [{_fmt(float(lo))}, {_fmt(float(hi))}]"


def _compute(runs: list[Run]) -> tuple[pl.DataFrame, pl.DataFrame | None, list[Stat]]:
    stat_defs = list(STATS[runs[0].mode])
    rates = [s for s in stat_defs if s.kind == "rate"]
    counts = [_rate_counts(r, rates) for r in runs]
    values: list[dict[str, np.ndarray | None]] = [
        {s.key: _mean_values(r, s) for s in stat_defs if s.kind == "mean"} for r in runs]
    rows = []
    for st in stat_defs:
        for r, c, v in zip(runs, counts, values):
            if st.kind == "rate":
                if st.key not in c:
                    continue
                pr = prop_row(*c[st.key])
                rows.append({"statistic": st.label, "key": st.key, "kind": st.kind,
                             "run": r.label, "n": pr["n"], "count": pr["count"],
                             "estimate": pr["p"], "ci_low": pr["ci_low"],
                             "ci_high": pr["ci_high"]})
            else:
                x = v[st.key]
                if x is None:
                    continue
                mr = mean_row(len(x), float(x.mean()) if len(x) else None,
                              float(x.std(ddof=1)) if len(x) > 1 else None)
                rows.append({"statistic": st.label, "key": st.key, "kind": st.kind,
                             "run": r.label, "n": mr["n"], "count": None,
                             "estimate": mr["mean"], "ci_low": mr["ci_low"],
                             "ci_high": mr["ci_high"]})
    schema = {"statistic": pl.String, "key": pl.String, "kind": pl.String, "run": pl.String,
              "n": pl.Int64, "count": pl.Int64, "estimate": pl.Float64, "ci_low": pl.Float64,
              "ci_high": pl.Float64}
    long = pl.DataFrame(rows, schema=schema)
    present = [s for s in stat_defs if s.key in set(long["key"].to_list())]
    diff = None
    if len(runs) == 2:
        drows = []
        for st in present:
            if st.kind == "rate":
                if st.key not in counts[0] or st.key not in counts[1]:
                    continue
                (k1, n1), (k2, n2) = counts[0][st.key], counts[1][st.key]
                if n1 == 0 or n2 == 0:
                    continue
                lo, hi = newcombe_interval(k1, n1, k2, n2)
                p, test = rate_test(k1, n1, k2, n2)
                drows.append({"statistic": st.label, "key": st.key, "run1": k1 / n1,
                              "run2": k2 / n2, "diff": k2 / n2 - k1 / n1, "ci_low": lo,
                              "ci_high": hi, "p_value": p,
                              "test": f"Newcombe interval, {test}"})
            else:
                a, b = values[0][st.key], values[1][st.key]
                if a is None or b is None or len(a) == 0 or len(b) == 0:
                    continue
                lo, hi, p = welch(a, b)
                drows.append({"statistic": st.label, "key": st.key, "run1": float(a.mean()),
                              "run2": float(b.mean()), "diff": float(b.mean() - a.mean()),
                              "ci_low": lo, "ci_high": hi, "p_value": p, "test": "Welch t"})
        diff = pl.DataFrame(drows, schema={
            "statistic": pl.String, "key": pl.String, "run1": pl.Float64, "run2": pl.Float64,
            "diff": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
            "p_value": pl.Float64, "test": pl.String})
    return long, diff, present


def _wide(long: pl.DataFrame, runs: list[Run], present: list[Stat]) -> pl.DataFrame:
    cols: dict[str, list] = {"statistic": [s.label for s in present]}
    for r in runs:
        cells = []
        for st in present:
            m = long.filter((pl.col("key") == st.key) & (pl.col("run") == r.label))
            cells.append(_cell(*m.select("estimate", "ci_low", "ci_high").row(0))
                         if m.height else "-")
        cols[r.label] = cells
    return pl.DataFrame(cols)


def _p_text(df: pl.DataFrame) -> pl.DataFrame:
    """p_value as text; a p-value below the smallest double shows as '< 1e-300'."""
    return df.with_columns(pl.col("p_value").map_elements(
        lambda p: "< 1e-300" if p == 0 else _fmt(p), return_dtype=pl.String))


def _text(runs: list[Run], table: pl.DataFrame, diff: pl.DataFrame | None) -> str:
    out = [f"Runs ({runs[0].mode} mode):"]
    for i, r in enumerate(runs, 1):
        m = r.manifest
        inc = "" if m.get("status") == "complete" else f", INCOMPLETE ({m.get('status')})"
        unit = m.get("units", "deals")
        out.append(f"  {i}. {r.label}: {r.path}, seed {m.get('seed')}, "
                   f"{m.get('deals_done', 0):,} {unit}{inc}")
    out += ["", "Estimates with 95% intervals (Wilson for rates, t for means):",
            _text_table(table)]
    if diff is not None:
        d = _p_text(diff.select("statistic", "diff", "ci_low", "ci_high", "p_value", "test"))
        out += ["", f"Difference run 2 - run 1 ({runs[1].label} - {runs[0].label}), "
                    f"95% interval and two-sided p-value:", _text_table(d)]
        seeds = {r.manifest.get("seed") for r in runs}
        if len(seeds) == 1:
            out.append("Both runs use the same seed (shared walls): the runs are treated as "
                       "independent, which usually makes these intervals conservative.")
    return "\n".join(out)


def compare(run_dirs, out: str | Path | None = None) -> Comparison:
    """Compare the main statistics of two or more run folders of one mode.

    Args:
        run_dirs: run folders (``nbsim simulate --out``), at least 2.
        out: if given, write compare.md, compare.json and compare.png there.
    Returns:
        Comparison (``stats`` long table, ``table`` side by side, ``diff``
        for two runs: run 2 - run 1 with a 95% Newcombe (rates) or Welch
        (means) interval and a two-sided p-value; ``text`` as printed).
    Raises:
        RunError: fewer than 2 folders, a folder that is not a run, has a
        damaged manifest or shard, or has no finished shard, runs of
        different modes, an unwritable ``out``.
    """
    runs = load_runs(run_dirs)
    with damaged_file_errors([(r.path, r.manifest) for r in runs]):
        long, diff, present = _compute(runs)
    table = _wide(long, runs, present)
    comp = Comparison(runs=[r.info() for r in runs], stats=long, table=table, diff=diff)
    comp.text = _text(runs, table, diff)
    if out is not None:
        comp.files = write_comparison(comp, out)
    return comp


def write_comparison(comp: Comparison, out: str | Path) -> list[Path]:
    """Write compare.md, compare.json and compare.png into ``out`` (created).
    Raises RunError if ``out`` is a file or cannot be written."""
    from nbsim import plots

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        png = plots.plot_comparison(comp.stats, [r["label"] for r in comp.runs],
                                    out / COMPARE_PNG)
        data = {"runs": comp.runs,
                "stats": [{k: _json_safe(v) for k, v in r.items()} for r in comp.stats.to_dicts()],
                "diff": None if comp.diff is None else
                [{k: _json_safe(v) for k, v in r.items()} for r in comp.diff.to_dicts()],
                "plot": png.name}
        (out / COMPARE_JSON).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
        md = ["# nbsim compare", ""]
        for i, r in enumerate(comp.runs, 1):
            md.append(f"{i}. **{r['label']}**: `{r['run_dir']}`, seed {r['seed']}, "
                      f"{(r['deals_done'] or 0):,} deals, status {r['status']}")
        md += ["", "## Estimates", "", "95% intervals: Wilson score for rates "
               "(scipy.stats.binomtest), t for means (scipy.stats.t).", "",
               _markdown(comp.table), ""]
        if comp.diff is not None:
            md += ["## Difference (run 2 - run 1)", "",
                   "Rates: Newcombe hybrid score interval and the two-proportion z test "
                   "(Fisher's exact test when an expected count is below 5); means: Welch's "
                   "t test. Two-sided p-values; the runs are treated as independent.", "",
                   _markdown(_p_text(comp.diff.drop("key"))), ""]
        md.append(f"![comparison]({png.name})")
        (out / COMPARE_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot write the comparison "
                       f"({e.strerror or e})") from None
    return [out / COMPARE_MD, out / COMPARE_JSON, png]
