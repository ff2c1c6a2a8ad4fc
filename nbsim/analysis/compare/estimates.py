"""The statistics ``nbsim compare`` computes of each run, and the runs
themselves: ``Stat`` (one statistic: what it counts, over which deals, in
which unit), ``STATS`` (per mode), ``HEADLINE_KEYS`` and ``SEAT_KEYS``;
``Run`` (one run folder: manifest, label, lazy rows), ``run_label`` and
``load_runs``; the per-deal values of a run (``deal_values``) and its
estimates with 95% intervals (``estimate_rows``, ``run_stats``).
``nbsim.analysis.compare.diff`` differences them, ``nbsim.analysis.compare.compare`` puts them
side by side.

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
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from nbsim.analysis.report.deal_tables import WIN, flower_count, winner_gain
from nbsim.analysis.report.report import policy_text
from nbsim.errors import RunError
from nbsim.run import schema as S
from nbsim.run.files import damaged_file_errors, open_run
from nbsim.stats import mean_row, prop_row

__all__ = ["Stat", "STATS", "HEADLINE_KEYS", "SEAT_KEYS", "SCORE_KEYS", "SEATS", "STATS_SCHEMA",
           "Run", "run_label", "load_runs", "deal_values", "estimate_rows", "run_stats"]

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
    """Read and check the run folders (``nbsim.run.files.open_run``: manifest
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
def deal_values(run: Run, stat_defs: list[Stat]) -> pl.DataFrame:
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


def estimate_rows(run: Run, df: pl.DataFrame, stat_defs: list[Stat]) -> list[dict]:
    """One row of ``STATS_SCHEMA`` per statistic of ``stat_defs`` that
    ``df`` (``deal_values`` of ``run``) has: the estimate over the deals
    where it is not null, its standard error and 95% interval (Wilson for a
    rate, t for a mean)."""
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


# the columns of Comparison.stats and run_stats, one row per statistic and run
STATS_SCHEMA = {"statistic": pl.String, "key": pl.String, "group": pl.String,
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
        rows = estimate_rows(run, deal_values(run, stat_defs), stat_defs)
    return pl.DataFrame(rows, schema=STATS_SCHEMA)

