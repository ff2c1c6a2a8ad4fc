"""The differences of ``nbsim compare``: every statistic of run k minus
run 1 (k >= 2), paired deal by deal when the runs share their walls
(``pairable``), independent otherwise (``compute``), and the warnings a
reader of the comparison must see (``run_warnings``). The statistics
themselves are ``nbsim.analysis.compare.estimates``.

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

import math

import polars as pl

from nbsim.analysis.compare.estimates import (
    SCORE_KEYS,
    STATS,
    STATS_SCHEMA,
    Run,
    Stat,
    deal_values,
    estimate_rows,
)
from nbsim.stats import (
    newcombe_interval,
    paired_mean_diff,
    paired_ratio_diff,
    rate_test,
    welch,
    welch_se,
)

__all__ = ["pairable", "compute", "run_warnings"]


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


def _independent(st: Stat, a: pl.Series, b: pl.Series) -> dict | None:
    """b - a as independent samples (Newcombe and the rate test for a rate,
    Welch for a mean); None when either side has no value."""
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
    """b - a deal by deal over the deals of both runs (``<key>_a``,
    ``<key>_b`` joined on the deal): paired t, or the delta method for a
    statistic over wins; None when fewer than 2 deals are joined."""
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


def compute(runs: list[Run]) -> tuple[pl.DataFrame, pl.DataFrame, list[Stat]]:
    """The estimates and the differences of ``runs`` (from ``load_runs``:
    two or more, one mode): (stats, diff, present). stats: one row of
    ``STATS_SCHEMA`` per statistic and run. diff: run k - run 1 for k >= 2
    and each statistic both have, paired when ``pairable`` (deals joined on
    their index) else independent (the columns of ``Comparison.diff``);
    tai, points and payments are left out between runs that score
    differently. present: the statistics some run has, in ``STATS`` order.
    Raises polars.exceptions.PolarsError or OSError on a damaged shard
    (call it inside ``nbsim.run.files.damaged_file_errors``, as ``compare``
    does, to get the RunError naming the file)."""
    stat_defs = list(STATS[runs[0].mode])
    values = [deal_values(r, stat_defs) for r in runs]
    rows = [row for r, v in zip(runs, values, strict=True)
            for row in estimate_rows(r, v, stat_defs)]
    long = pl.DataFrame(rows, schema=STATS_SCHEMA)
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


def run_warnings(runs: list[Run]) -> list[str]:
    """What the reader of a comparison of ``runs`` must know: runs that
    score differently (their tai and points are not differenced), a run
    compared with itself (the same folder, or the same config, overrides,
    seed, policies and deals) and paired runs of different lengths."""
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
