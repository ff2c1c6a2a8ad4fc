"""``nbsim compare RUN1 RUN2 [RUN3 ...]``: the statistics of several runs
side by side, and every run's difference from the first run.

This is how one answers "how does 7-baida change the win rate and the mean
tai" or "what does min_tai 5 do": simulate each variant (or each ``--set``
override) into its own run folder, then compare the folders. All runs must
be of one mode (deal or game). Runs are labelled from their manifests:
variant, overrides and policies (``ningbo-3baida (win.min_tai=5) [value]``).

Statistics (each with a 95% interval, ``nbsim.stats``):
    deal mode   heavenly-hand rate; mean wilds held by the dealer; mean wilds
                and flowers per player
    game mode   headline (the demo's table): win rate, wall-exhausted rate,
                self-drawn share of wins, mean tai of wins (Ninghai: mean
                points under the run's points scheme), deal-in rate per seat
                E S W N, dealer advantage (P(dealer wins) minus the win rate
                of a non-dealer seat); per seat: win rate, deal-in rate and
                mean net points of E S W N; others: discard-win and robbing
                rates, mean tai, fan, fu and points, the winner's gain, turns
                and kongs per deal

Differences (run k - run 1, k >= 2), each marked "paired" or "independent":
    paired       runs with the same seed (independent deals) share their
                 walls: deal i is the same wall in both. They are joined on
                 the deal index and compared deal by deal: the mean of the
                 per-deal differences with the paired standard error
                 sd(d)/sqrt(n) and a t interval (rates and per-deal means), or,
                 for statistics over wins (mean tai of wins, self-drawn share),
                 the delta method on the linearised ratio (normal interval).
                 Shared walls correlate the runs, so these intervals are much
                 narrower than independent ones.
    independent  otherwise: rates by Newcombe's hybrid score interval with the
                 two-proportion z test (Fisher's exact test when an expected
                 count is below 5); means by Welch's t test.
The independent interval is also given for paired rows (``indep_ci_low``,
``indep_ci_high``), so that the gain from pairing can be read off.

Warnings: runs that score differently (tai against Ninghai fan/fu points:
their tai, points and payments are in different units and are not
differenced), and a run compared with itself (the same folder, or the same
config, overrides, seed, policies and deals: every difference is 0).
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from nbsim import schema as S
from nbsim.errors import RunError
from nbsim.report import WIN, flower_count, policy_text, winner_gain
from nbsim.runfiles import damaged_file_errors, open_run
from nbsim.runlock import shown_status
from nbsim.stats import (
    PCT,
    interval_cell,
    json_safe,
    markdown_table,
    mean_row,
    newcombe_interval,
    p_text,
    paired_mean_diff,
    paired_ratio_diff,
    prop_row,
    rate_test,
    text_table,
    welch,
    welch_se,
    wilson,
)

__all__ = ["compare", "Comparison", "run_stats", "write_comparison", "run_label", "load_runs",
           "newcombe_interval", "rate_test", "welch", "wilson", "COMPARE_HTML",
           "HEADLINE_KEYS", "SEAT_KEYS"]

COMPARE_MD = "compare.md"
COMPARE_JSON = "compare.json"
COMPARE_PNG = "compare.png"
COMPARE_DIFF_PNG = "compare_diff.png"
COMPARE_HTML = "compare.html"
SEATS = tuple(s.upper() for s in S.SEAT_SUFFIXES)
SCORE_KEYS = {"mean_score", "mean_tai", "mean_fan", "mean_fu", "mean_points", "winner_gain",
              *(f"net_{s}" for s in SEATS)}       # in the variant's own units


@dataclass(frozen=True)
class Stat:
    """One compared statistic. ``value(names, run)`` gives the expression
    (a 0/1 event for a rate, a number for a mean) or None when the run has
    no such column; ``where`` restricts the rows (None = all deals);
    ``group``: headline, seat or other; ``unit`` names what a mean counts."""
    key: str
    label: str
    kind: str                                   # "rate" or "mean"
    value: Callable[[list, Run], pl.Expr | None]
    where: pl.Expr | None = None
    of: str = "deals"
    group: str = "other"
    unit: Callable[[Run], str] | str = ""

    def unit_of(self, run: Run) -> str:
        """The unit of this statistic in ``run`` ('' for rates)."""
        return self.unit(run) if callable(self.unit) else self.unit


def _col(name: str):
    return lambda names, run: pl.col(name) if name in names else None


def _outcome(name: str):
    return lambda names, run: pl.col("outcome") == name


def _points(names, run):
    c = f"points_{run.scheme}"
    return pl.col(c) if c in names else None


def _score(names, run):
    """Tai of the win (tai variants) or points under the run's scheme."""
    if "tai" in names:
        return pl.col("tai")
    return _points(names, run)


def _per_player(prefix: str, fn=None):
    cols = S.seat_columns(prefix)

    def value(names, run):
        if not all(c in names for c in cols):
            return None
        parts = [fn(c) if fn else pl.col(c) for c in cols]
        return pl.sum_horizontal([p.cast(pl.Float64) for p in parts]) / len(cols)
    return value


def _seat_is(col: str, seat: str):
    return lambda names, run: (pl.col(col) == seat).fill_null(False)


def _dealer_advantage(names, run):
    """1 when the dealer wins, -1/3 when a non-dealer wins, 0 otherwise: its
    mean is P(dealer wins) - P(a given non-dealer seat wins)."""
    w = pl.col("winner")
    return (pl.when(w == "E").then(1.0).when(w.is_not_null()).then(-1.0 / 3).otherwise(0.0))


def _score_unit(run: Run) -> str:
    return "tai" if run.system == "tai" else f"points ({run.scheme})"


_GAME_STATS = [
    Stat("win_rate", "win rate", "rate", lambda n, r: WIN, group="headline"),
    Stat("wall_exhausted_rate", "wall-exhausted rate (荒庄)", "rate",
         _outcome("wall_exhausted"), group="headline"),
    Stat("self_drawn_share", "self-drawn share of wins (自摸)", "rate", _outcome("self_drawn"),
         WIN, "wins", group="headline"),
    Stat("mean_score", "mean tai of wins (Ninghai: points)", "mean", _score, WIN, "wins",
         group="headline", unit=_score_unit),
    *[Stat(f"deal_in_{s}", f"deal-in rate {s}" + (" (dealer)" if s == "E" else ""), "rate",
           _seat_is("discarder", s), group="headline") for s in SEATS],
    Stat("dealer_advantage", "dealer advantage: P(E wins) - P(S, W or N wins)/3", "mean",
         _dealer_advantage, group="headline"),
    *[Stat(f"win_{s}", f"win rate {s}" + (" (dealer)" if s == "E" else ""), "rate",
           _seat_is("winner", s), group="seat") for s in SEATS],
    *[Stat(f"net_{s}", f"mean net points {s}" + (" (dealer)" if s == "E" else ""), "mean",
           _col(f"pay_{s.lower()}"), group="seat", unit="points") for s in SEATS],
    Stat("discard_win_rate", "discard-win rate (放冲)", "rate", _outcome("discard")),
    Stat("robbing_rate", "robbing-the-kong rate (抢杠)", "rate", _outcome("robbing_kong")),
    Stat("mean_tai", "mean tai of wins", "mean", _col("tai"), WIN, "wins", unit="tai"),
    Stat("mean_fan", "mean fan of wins", "mean", _col("fan"), WIN, "wins", unit="fan"),
    Stat("mean_fu", "mean fu of wins", "mean", _col("fu"), WIN, "wins", unit="fu"),
    Stat("mean_points", "mean points of wins (run's scheme)", "mean", _points, WIN, "wins",
         unit="points"),
    Stat("winner_gain", "mean winner's gain (points)", "mean", lambda n, r: winner_gain(), WIN,
         "wins", unit="points"),
    Stat("mean_turns", "mean turns per deal", "mean", _col("turns"), unit="discards"),
    Stat("mean_kongs", "mean kongs per deal", "mean", _col("kongs"), unit="kongs"),
]

STATS: dict[str, tuple[Stat, ...]] = {
    "deal": (
        Stat("heavenly", "heavenly-hand rate (天胡)", "rate", _col("dealer_complete"),
             group="headline"),
        Stat("dealer_wilds", "mean wilds held by the dealer", "mean", _col("wilds_e"),
             group="headline", unit="wilds"),
        Stat("wilds_per_player", "mean wilds per player", "mean", _per_player("wilds"),
             group="headline", unit="wilds"),
        Stat("flowers_per_player", "mean flowers set aside per player", "mean",
             _per_player("flowers", flower_count), group="headline", unit="flowers"),
    ),
    "game": tuple(_GAME_STATS),
}
HEADLINE_KEYS = {m: [s.key for s in st if s.group == "headline"] for m, st in STATS.items()}
SEAT_KEYS = ([f"win_{s}" for s in SEATS] + [f"deal_in_{s}" for s in SEATS]
             + [f"net_{s}" for s in SEATS])          # the per-seat table


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

    @property
    def system(self) -> str:
        """Scoring system: 'tai' (Ningbo) or 'fan_fu' (Ninghai)."""
        return ((self.manifest.get("rules") or {}).get("scoring") or {}).get("system", "tai")

    @property
    def format(self) -> str:
        """'deals' (independent deals) or 'matches'."""
        return self.manifest.get("game_format") or "deals"

    def info(self) -> dict:
        """The run's identity for the comparison header (label, folder, mode,
        config name and hash, overrides, seed, deals done, status, policies,
        scoring system, ...)."""
        m = self.manifest
        return {"label": self.label, "run_dir": str(self.path), "mode": self.mode,
                "config": (m.get("config") or {}).get("name"),
                "config_hash": (m.get("config") or {}).get("hash"),
                "overrides": m.get("overrides", []), "seed": m.get("seed"),
                "deals_done": m.get("deals_done"), "status": m.get("status"),
                "policies": m.get("policies"), "game_format": m.get("game_format"),
                "scoring": self.system, "points_scheme": self.scheme,
                "units": m.get("units", "deals")}


def run_label(manifest: dict) -> str:
    """'ningbo-3baida (win.min_tai=5) [value]': variant, --set overrides and
    the policies (one name when every seat plays it)."""
    name = (manifest.get("config") or {}).get("name") or "?"
    ov = manifest.get("overrides") or []
    label = f"{name} ({', '.join(ov)})" if ov else name
    pol = policy_text(manifest.get("policies"))
    return f"{label} [{pol.replace(', ', ',')}]" if pol else label


def _labels(manifests: list[dict], paths: list[Path]) -> list[str]:
    """Run labels, made unique by adding what tells equal labels apart: the
    game format, the seed, the folder name, else a number."""
    labels = [run_label(m) for m in manifests]
    extras = (lambda m, p: m.get("game_format"),
              lambda m, p: f"seed {m.get('seed')}",
              lambda m, p: p.name)
    for extra in extras:
        groups: dict[str, list[int]] = {}
        for i, lab in enumerate(labels):
            groups.setdefault(lab, []).append(i)
        for idx in groups.values():
            vals = [extra(manifests[i], paths[i]) for i in idx]
            if len(idx) > 1 and len(set(vals)) > 1:
                for i, v in zip(idx, vals, strict=False):
                    labels[i] = f"{labels[i]} {v}" if v else labels[i]
    if len(set(labels)) != len(labels):     # the same folder given twice
        labels = [f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
    return labels


def _paths(run_dirs) -> list[Path]:
    """Run folders as Paths: one str/Path is taken as one folder, never split."""
    if isinstance(run_dirs, (str, Path)):
        return [Path(run_dirs)]
    try:
        items = list(run_dirs)
    except TypeError:
        raise RunError(f"compare needs a list of run folders, got {run_dirs!r}") from None
    bad = [p for p in items if not isinstance(p, (str, Path))]
    if bad:
        raise RunError(f"compare: run folders must be paths (text or pathlib.Path), got "
                       f"{bad[0]!r}")
    return [Path(p) for p in items]


def load_runs(run_dirs) -> list[Run]:
    """Read and check the run folders (``nbsim.runfiles.open_run``: manifest
    and shards), check that there are at least two and that they share one
    mode, and label them. Raises RunError."""
    paths = _paths(run_dirs)
    if len(paths) < 2:
        raise RunError(f"compare needs at least 2 run folders, got {len(paths)}"
                       + (f" ({str(paths[0])!r})" if paths else ""))
    opened = [open_run(p) for p in paths]
    manifests = [r.manifest for r in opened]
    modes = [m.get("mode", "deal") for m in manifests]
    if len(set(modes)) > 1:
        which = ", ".join(f"{p} is a {mo} run" for p, mo in zip(paths, modes, strict=False))
        raise RunError(f"cannot compare runs of different modes ({which}); compare deal runs "
                       f"with deal runs and game runs with game runs")
    if modes[0] not in STATS:
        raise RunError(f"{paths[0]}: no comparison for mode {modes[0]!r}")
    return [Run(p, r.manifest, lab, r.lf) for p, r, lab in
            zip(paths, opened, _labels(manifests, paths), strict=False)]


# ------------------------------------------------------------------ per-deal values
def _deal_values(run: Run, stat_defs: list[Stat]) -> pl.DataFrame:
    """One row per deal: ``deal`` and, per statistic the run has, its value
    (Float64; null where the statistic's ``where`` excludes the deal)."""
    names = run.lf.collect_schema().names()
    exprs = [pl.col("deal")]
    for st in stat_defs:
        e = st.value(names, run)
        if e is None:
            continue
        e = e.cast(pl.Float64)
        if st.where is not None:
            e = pl.when(st.where).then(e)
        exprs.append(e.alias(st.key))
    return run.lf.select(exprs).collect(engine="streaming")


def _dice_throws(run: Run):
    return ((run.manifest.get("rules") or {}).get("wall") or {}).get("dice_throws", 1)


def pairable(a: Run, b: Run) -> bool:
    """True when deal i of ``a`` and of ``b`` share the wall: the same seed,
    both runs of independent deals (a match's deals depend on the deals
    before them) and the same dice procedure (Ninghai's second throw moves
    the break, so a Ninghai wall differs from a Ningbo wall of the same
    seed)."""
    return (a.manifest.get("seed") == b.manifest.get("seed") and a.format == "deals"
            and b.format == "deals" and _dice_throws(a) == _dice_throws(b))


def _estimate_rows(run: Run, df: pl.DataFrame, stat_defs: list[Stat]) -> list[dict]:
    rows = []
    for st in stat_defs:
        if st.key not in df.columns:
            continue
        x = df[st.key].drop_nulls()
        if st.kind == "rate":
            pr = prop_row(int(x.sum()), x.len())
            est = {"n": pr["n"], "count": pr["count"], "estimate": pr["p"], "se": pr["se"],
                   "ci_low": pr["ci_low"], "ci_high": pr["ci_high"], "interval": "Wilson"}
        else:
            mr = mean_row(x.len(), x.mean(), x.std())
            est = {"n": mr["n"], "count": None, "estimate": mr["mean"], "se": mr["se"],
                   "ci_low": mr["ci_low"], "ci_high": mr["ci_high"], "interval": "t"}
        rows.append({"statistic": st.label, "key": st.key, "group": st.group, "kind": st.kind,
                     "run": run.label, "unit": st.unit_of(run), **est})
    return rows


def _independent(st: Stat, a: pl.Series, b: pl.Series) -> dict | None:
    a, b = a.drop_nulls(), b.drop_nulls()
    if a.len() == 0 or b.len() == 0:
        return None
    if st.kind == "rate":
        k1, n1, k2, n2 = int(a.sum()), a.len(), int(b.sum()), b.len()
        lo, hi = newcombe_interval(k1, n1, k2, n2)
        p, test = rate_test(k1, n1, k2, n2)
        se = math.sqrt((k1 / n1) * (1 - k1 / n1) / n1 + (k2 / n2) * (1 - k2 / n2) / n2)
        return {"diff": k2 / n2 - k1 / n1, "se": se, "ci_low": lo, "ci_high": hi,
                "p_value": p, "method": f"Newcombe interval, {test}", "n": min(n1, n2)}
    xa, xb = a.to_numpy(), b.to_numpy()
    lo, hi, p = welch(xa, xb)
    return {"diff": float(xb.mean() - xa.mean()), "se": welch_se(xa, xb), "ci_low": lo,
            "ci_high": hi, "p_value": p, "method": "Welch t", "n": min(len(xa), len(xb))}


def _paired(st: Stat, joined: pl.DataFrame) -> dict | None:
    ka, kb = f"{st.key}_a", f"{st.key}_b"
    if ka not in joined.columns or kb not in joined.columns or joined.height < 2:
        return None
    if st.where is None:
        d = (joined[kb] - joined[ka]).drop_nulls()
        r = paired_mean_diff(d.len(), float(d.mean() or 0.0),  # type: ignore[arg-type]
                             float(d.std() or 0.0))  # type: ignore[arg-type]
        return {**r, "method": "paired t on per-deal differences", "n": d.len()}
    ya, yb = joined[ka].fill_null(0).to_numpy(), joined[kb].fill_null(0).to_numpy()
    wa = joined[ka].is_not_null().cast(pl.Float64).to_numpy()
    wb = joined[kb].is_not_null().cast(pl.Float64).to_numpy()
    r = paired_ratio_diff(ya, wa, yb, wb)
    return {**r, "method": "paired, delta method over wins", "n": joined.height}


_STATS_SCHEMA = {"statistic": pl.String, "key": pl.String, "group": pl.String,
                 "kind": pl.String, "run": pl.String, "unit": pl.String, "n": pl.Int64,
                 "count": pl.Int64, "estimate": pl.Float64, "se": pl.Float64,
                 "ci_low": pl.Float64, "ci_high": pl.Float64, "interval": pl.String}


def run_stats(run_dir: str | Path) -> pl.DataFrame:
    """The statistics of one run folder, as ``Comparison.stats`` gives them
    for each run: one row per statistic the run has (``STATS[mode]``), with
    statistic, key, group, kind, run (label), unit, n, count, estimate, se
    and the 95% interval ci_low, ci_high (Wilson for rates, t for means).
    An unfinished run is read over its finished shards. Raises RunError (not
    a run folder, damaged or no finished shard, unknown mode)."""
    if not isinstance(run_dir, (str, Path)):
        raise RunError(f"run_stats needs one run folder (text or pathlib.Path), got {run_dir!r}")
    path = Path(run_dir)
    opened = open_run(path)
    run = Run(path, opened.manifest, run_label(opened.manifest), opened.lf)
    if run.mode not in STATS:
        raise RunError(f"{path}: no statistics for mode {run.mode!r}")
    stat_defs = list(STATS[run.mode])
    with damaged_file_errors([(run.path, run.manifest)]):
        rows = _estimate_rows(run, _deal_values(run, stat_defs), stat_defs)
    return pl.DataFrame(rows, schema=_STATS_SCHEMA)


def _compute(runs: list[Run]):
    stat_defs = list(STATS[runs[0].mode])
    values = [_deal_values(r, stat_defs) for r in runs]
    rows = [row for r, v in zip(runs, values, strict=True)
            for row in _estimate_rows(r, v, stat_defs)]
    long = pl.DataFrame(rows, schema=_STATS_SCHEMA)
    present = [s for s in stat_defs if s.key in set(long["key"].to_list())]
    base, va = runs[0], values[0]
    drows = []
    for run, vb in zip(runs[1:], values[1:], strict=False):
        joined = None
        if pairable(base, run):
            joined = va.join(vb, on="deal", how="inner", suffix="_b").rename(
                {s.key: f"{s.key}_a" for s in present if s.key in va.columns})
        for st in present:
            if st.key not in va.columns or st.key not in vb.columns:
                continue
            if st.key in SCORE_KEYS and base.system != run.system:
                continue                       # tai against points: not comparable
            ind = _independent(st, va[st.key], vb[st.key])
            if ind is None:
                continue
            res, pairing = ind, "independent"
            if joined is not None:
                par = _paired(st, joined)
                if par is not None and par["diff"] == par["diff"]:
                    res, pairing = par, "paired"
            ea = va[st.key].drop_nulls().mean()
            eb = vb[st.key].drop_nulls().mean()
            drows.append({"statistic": st.label, "key": st.key, "group": st.group,
                          "run": run.label, "base": base.label, "base_estimate": ea,
                          "estimate": eb, "diff": res["diff"], "se": res["se"],
                          "ci_low": res["ci_low"], "ci_high": res["ci_high"],
                          "p_value": res["p_value"], "pairing": pairing,
                          "method": res["method"], "n": res["n"],
                          "indep_se": ind["se"], "indep_ci_low": ind["ci_low"],
                          "indep_ci_high": ind["ci_high"]})
    dschema = {"statistic": pl.String, "key": pl.String, "group": pl.String, "run": pl.String,
               "base": pl.String, "base_estimate": pl.Float64, "estimate": pl.Float64,
               "diff": pl.Float64, "se": pl.Float64, "ci_low": pl.Float64,
               "ci_high": pl.Float64, "p_value": pl.Float64, "pairing": pl.String,
               "method": pl.String, "n": pl.Int64, "indep_se": pl.Float64,
               "indep_ci_low": pl.Float64, "indep_ci_high": pl.Float64}
    return long, pl.DataFrame(drows, schema=dschema), present


def _warnings(runs: list[Run]) -> list[str]:
    out = []
    systems = {r.system for r in runs}
    if len(systems) > 1:
        tai = [r.label for r in runs if r.system == "tai"]
        pts = [r.label for r in runs if r.system != "tai"]
        out.append(f"the runs score differently: {', '.join(tai)} in tai, {', '.join(pts)} in "
                   f"Ninghai fan/fu points; tai, points and payments are in different units, "
                   f"so their differences are not computed (rates still are)")
    base = runs[0]
    for i, r in enumerate(runs[1:], 2):
        if r.path.resolve() == base.path.resolve():
            out.append(f"run {i} is the same folder as run 1 ({r.path}): a run compared with "
                       f"itself, every difference is 0")
        else:
            same = all(r.manifest.get(k) == base.manifest.get(k) for k in
                       ("seed", "mode", "game_format", "policies", "overrides", "deals_done"))
            same = same and (r.manifest.get("config") or {}).get("hash") == \
                (base.manifest.get("config") or {}).get("hash")
            if same:
                out.append(f"run {i} ({r.path}) has the config, overrides, seed, policies and "
                           f"deals of run 1: the same deals, every difference is 0")
    for i, r in enumerate(runs[1:], 2):
        if pairable(base, r) and r.manifest.get("deals_done") != base.manifest.get("deals_done"):
            out.append(f"run {i} has {r.manifest.get('deals_done'):,} deals and run 1 "
                       f"{base.manifest.get('deals_done'):,}: paired differences use the deals "
                       f"both have")
    return out


@dataclass
class Comparison:
    """The result of ``compare``.

    runs: info dicts (label, folder, config, overrides, seed, policies, ...).
    stats: long table, one row per statistic and run: statistic, key,
        group (headline, seat, other), kind (rate, mean), run, unit, n,
        count, estimate, se, ci_low, ci_high, interval (Wilson or t).
    table: wide, one row per statistic, one 'estimate [low, high]' column
        per run; headline: the same for the headline statistics; seats:
        per-seat rows (win, deal-in, net points for E S W N).
    diff: run k - run 1 for k >= 2: statistic, key, run, base,
        base_estimate, estimate, diff, se, ci_low, ci_high, p_value,
        pairing ("paired" or "independent"), method, n, and the
        independent se and interval for comparison.
    warnings: what the reader must know (different scoring, a run compared
        with itself, paired runs of different lengths).
    text: as printed; files: written by ``out``.
    """
    runs: list[dict]
    stats: pl.DataFrame
    table: pl.DataFrame
    diff: pl.DataFrame
    headline: pl.DataFrame = field(default_factory=pl.DataFrame)
    seats: pl.DataFrame = field(default_factory=pl.DataFrame)
    warnings: list[str] = field(default_factory=list)
    text: str = ""
    files: list[Path] = field(default_factory=list)
    manifests: list[dict] = field(default_factory=list, repr=False)


def _wide(long: pl.DataFrame, labels: list[str], keys: list[str]) -> pl.DataFrame:
    cols: dict[str, list] = {"statistic": []}
    for lab in labels:
        cols[lab] = []
    for key in keys:
        sub = long.filter(pl.col("key") == key)
        if not sub.height:
            continue
        cols["statistic"].append(sub["statistic"][0])
        for lab in labels:
            m = sub.filter(pl.col("run") == lab)
            if not m.height:
                cols[lab].append("-")
                continue
            r = m.row(0, named=True)
            unit = f" {r['unit']}" if r["unit"] and r["key"] == "mean_score" else ""
            cols[lab].append(interval_cell(r["estimate"], r["ci_low"], r["ci_high"]) + unit)
    return pl.DataFrame(cols, schema={c: pl.String for c in cols})


def diff_view(diff: pl.DataFrame) -> pl.DataFrame:
    """The differences as printed: statistic, run, diff, its interval,
    'paired'/'independent', p-value, and how much wider the independent
    interval is."""
    if not diff.height:
        return pl.DataFrame({"statistic": [], "run": []}, schema={"statistic": pl.String,
                                                                   "run": pl.String})
    width = (pl.col("ci_high") - pl.col("ci_low"))
    ind = (pl.col("indep_ci_high") - pl.col("indep_ci_low"))
    return p_text(diff.select(
        "statistic", "run", "diff", "ci_low", "ci_high", "pairing", "p_value",
        pl.when((pl.col("pairing") == "paired") & (width > 0)).then(ind / width)
        .alias("indep/paired width")))


def _text(runs: list[Run], comp: Comparison) -> str:
    out = [f"Runs ({runs[0].mode} mode):"]
    for i, r in enumerate(runs, 1):
        m = r.manifest
        status = shown_status(m.get("status"), r.path)
        inc = "" if status == "complete" else f", INCOMPLETE ({status})"
        unit = m.get("units", "deals")
        out.append(f"  {i}. {r.label}: {r.path}, seed {m.get('seed')}, "
                   f"{m.get('deals_done', 0):,} {unit}{inc}")
    for w in comp.warnings:
        out.append(f"WARNING: {w}")
    out += ["", f"Headline, estimates with {PCT}% intervals (Wilson for rates, t for means):",
            text_table(comp.headline)]
    if comp.seats.height:
        out += ["", "Per seat (E = dealer):", text_table(comp.seats)]
    other = comp.table.filter(~pl.col("statistic").is_in(
        comp.headline["statistic"].to_list() + comp.seats["statistic"].to_list()
        if comp.seats.height else comp.headline["statistic"].to_list()))
    if other.height:
        out += ["", "Other statistics:", text_table(other)]
    if comp.diff.height:
        title = (f"Difference run 2 - run 1 ({runs[1].label} - {runs[0].label})"
                 if len(runs) == 2 else "Differences against run 1 (run k - run 1)")
        out += ["", f"{title}, {PCT}% interval (paired: same walls deal by deal; "
                    f"independent: separate samples) and two-sided p-value:",
                text_table(diff_view(comp.diff))]
    return "\n".join(out)


def compare(run_dirs, out: str | Path | None = None) -> Comparison:
    """Compare the statistics of two or more run folders of one mode.

    Args:
        run_dirs: run folders (``nbsim simulate --out``), at least 2; a
            sequence of paths (one str/Path alone is one folder: too few).
        out: if given, write compare.md, compare.json, compare.html
            (self-contained) and compare.png / compare_diff.png there.
    Returns:
        Comparison: ``stats`` (long), ``table``/``headline``/``seats`` (side
        by side), ``diff`` (run k - run 1 with a 95% interval marked
        "paired" or "independent" and a two-sided p-value), ``warnings``
        and ``text`` as printed. Units: rates are fractions of deals (or of
        wins), tai in tai, points in the variant's points.
    Raises:
        RunError: fewer than 2 folders, a folder that is not a run, has a
        damaged manifest or shard, or has no finished shard, runs of
        different modes, an unwritable ``out``.
    """
    runs = load_runs(run_dirs)
    with damaged_file_errors([(r.path, r.manifest) for r in runs]):
        long, diff, present = _compute(runs)
    labels = [r.label for r in runs]
    keys = [s.key for s in present]
    mode = runs[0].mode
    comp = Comparison(runs=[r.info() for r in runs], stats=long,
                      table=_wide(long, labels, keys), diff=diff,
                      headline=_wide(long, labels, [k for k in HEADLINE_KEYS[mode] if k in keys]),
                      seats=_wide(long, labels, [k for k in SEAT_KEYS if k in keys])
                      if mode == "game" else pl.DataFrame(),
                      warnings=_warnings(runs), manifests=[r.manifest for r in runs])
    comp.text = _text(runs, comp)
    if out is not None:
        comp.files = write_comparison(comp, out)
    return comp


def _md_runs(comp: Comparison) -> list[str]:
    return [f"{i}. **{r['label']}**: `{r['run_dir']}`, seed {r['seed']}, policies "
            f"{policy_text(r['policies']) or '-'}, {(r['deals_done'] or 0):,} {r['units']}, "
            f"status {r['status']}" for i, r in enumerate(comp.runs, 1)]


def comparison_html(comp: Comparison, pngs: dict[str, Path], title: str = "nbsim compare",
                    extra_sections=()) -> str:
    """The comparison as one self-contained HTML page (``nbsim.html``)."""
    from nbsim import html as H

    facts = [(f"run {i}", f"{r['label']}: {r['run_dir']}; seed {r['seed']}; policies "
                          f"{policy_text(r['policies']) or '-'}; "
                          f"{(r['deals_done'] or 0):,} {r['units']} ({r['status']})")
             for i, r in enumerate(comp.runs, 1)]
    note = f"{PCT}% intervals: Wilson score for rates (scipy.stats.binomtest), t for means."
    secs = [*extra_sections,
            H.section("headline", "Headline", comp.headline, note,
                      [pngs[k] for k in ("estimates",) if k in pngs])]
    if comp.seats.height:
        secs.append(H.section("seats", "Per seat (E = dealer)", comp.seats, note))
    secs.append(H.section("all", "All statistics", comp.table, note))
    if comp.diff.height:
        secs.append(H.section(
            "diff", "Differences against run 1", diff_view(comp.diff),
            "paired = same walls deal by deal (joined on the deal index): mean of the "
            "per-deal differences with the paired standard error; independent = separate "
            "samples (Newcombe for rates, Welch for means). 'indep/paired width' = how many "
            "times wider the independent interval would be.",
            [pngs[k] for k in ("diff",) if k in pngs]))
    configs = [H.config_view(m, r["label"])
               for m, r in zip(comp.manifests, comp.runs, strict=True)]
    return H.render_page(title, subtitle=f"{len(comp.runs)} runs, {comp.runs[0]['mode']} mode",
                         facts=facts, warnings=comp.warnings, sections=secs, configs=configs)


def write_comparison(comp: Comparison, out: str | Path) -> list[Path]:
    """Write compare.md, compare.json, compare.html, compare.png and
    compare_diff.png into ``out`` (created). Raises RunError if ``out`` is a
    file or cannot be written."""
    from nbsim import plots

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    labels = [r["label"] for r in comp.runs]
    mode = comp.runs[0]["mode"]
    try:
        out.mkdir(parents=True, exist_ok=True)
        pngs = {"estimates": plots.plot_comparison(comp.stats, labels, out / COMPARE_PNG,
                                                   keys=HEADLINE_KEYS[mode])}
        if comp.diff.height:
            legend = "   ".join(f"{i} = {lab}" for i, lab in enumerate(labels, 1))
            pngs["diff"] = plots.plot_differences(comp.diff, out / COMPARE_DIFF_PNG,
                                                  keys=HEADLINE_KEYS[mode], caption=legend)
        data = {"runs": comp.runs, "warnings": comp.warnings,
                "stats": [{k: json_safe(v) for k, v in r.items()} for r in comp.stats.to_dicts()],
                "diff": [{k: json_safe(v) for k, v in r.items()} for r in comp.diff.to_dicts()],
                "plots": [p.name for p in pngs.values()]}
        (out / COMPARE_JSON).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
        md = ["# nbsim compare", "", *_md_runs(comp), ""]
        md += [f"**Warning:** {w}" for w in comp.warnings]
        md += ["", "## Headline", "", f"{PCT}% intervals: Wilson score for rates "
               "(scipy.stats.binomtest), t for means (scipy.stats.t).", "",
               markdown_table(comp.headline), ""]
        if comp.seats.height:
            md += ["## Per seat (E = dealer)", "", markdown_table(comp.seats), ""]
        md += ["## All statistics", "", markdown_table(comp.table), ""]
        if comp.diff.height:
            md += ["## Differences against run 1", "",
                   "paired: runs with the same seed, compared deal by deal (paired standard "
                   "error); independent: Newcombe interval with the z test (Fisher's exact test "
                   "when an expected count is below 5) for rates, Welch's t for means. "
                   "Two-sided p-values.", "", markdown_table(diff_view(comp.diff)), ""]
        md += [f"![{p.stem}]({p.name})" for p in pngs.values()]
        (out / COMPARE_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
        (out / COMPARE_HTML).write_text(comparison_html(comp, pngs), encoding="utf-8")
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot write the comparison "
                       f"({e.strerror or e})") from None
    return [out / COMPARE_MD, out / COMPARE_JSON, out / COMPARE_HTML, *pngs.values()]
