"""``nbsim compare RUN1 RUN2 [RUN3 ...]``: the statistics of several runs
side by side, and every run's difference from the first run.

This is how one answers "how does 7-baida change the win rate and the mean
tai" or "what does min_tai 5 do": simulate each variant (or each ``--set``
override) into its own run folder, then compare the folders. All runs must
be of one mode (deal or game). Runs are labelled from their manifests:
variant, overrides and policies (``ningbo-3baida (win.min_tai=5) [value]``).

Statistics (each with a 95% interval, ``nbsim.stats``): ``nbsim.analysis.compare.estimates``
(the list per mode, the runs and their estimates). Differences (run k - run 1,
k >= 2), each marked "paired" (runs with the same seed share their walls and
are compared deal by deal) or "independent", and the warnings (runs that
score differently, a run compared with itself): ``nbsim.analysis.compare.diff``.
This module holds the result (``Comparison``), its text and its files, and
re-exports the public names of both, so ``from nbsim.analysis.compare.compare import ...``
reaches them all.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from nbsim.analysis.compare.diff import compute, run_warnings
from nbsim.analysis.compare.estimates import (
    HEADLINE_KEYS,
    SEAT_KEYS,
    Run,
    load_runs,
)
from nbsim.analysis.report.report import policy_text
from nbsim.errors import RunError
from nbsim.run.files import damaged_file_errors
from nbsim.run.lock import shown_status
from nbsim.stats import (
    PCT,
    fill,
    interval_cell,
    json_safe,
    markdown_table,
    p_text,
    text_table,
)

__all__ = ["compare", "Comparison", "write_comparison", "comparison_html", "diff_view",
           "COMPARE_MD", "COMPARE_JSON", "COMPARE_PNG", "COMPARE_DIFF_PNG", "COMPARE_HTML",
           "plot_caption", "diff_units", "diff_text"]

COMPARE_MD = "compare.md"
COMPARE_JSON = "compare.json"
COMPARE_PNG = "compare.png"
COMPARE_DIFF_PNG = "compare_diff.png"
COMPARE_HTML = "compare.html"


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


def diff_text(diff: pl.DataFrame, names: dict[str, str] | None = None) -> str:
    """The differences for the terminal: one table per compared run, titled
    'run - first run:' (runs shown as ``names[label]``, default their
    labels), with a row per statistic: the difference and its 95% interval
    in one cell, 'paired'/'independent', the two-sided p-value and how much
    wider the independent interval is (``diff_view``); at most
    ``TEXT_WIDTH`` columns (``text_table``). ``diff``: ``Comparison.diff``."""
    names = names or {}
    view = diff_view(diff)
    blocks = []
    for run in dict.fromkeys(diff["run"].to_list()):
        sub = diff.filter(pl.col("run") == run)
        shown = view.filter(pl.col("run") == run)
        table = pl.DataFrame({
            "statistic": sub["statistic"],
            f"difference [{PCT}% interval]": [
                interval_cell(d, lo, hi) for d, lo, hi in sub.select("diff", "ci_low", "ci_high")
                .iter_rows()],
            "pairing": sub["pairing"], "p_value": shown["p_value"],
            "indep/paired width": shown["indep/paired width"]})
        base = sub["base"][0]
        blocks.append(fill(f"{names.get(run, run)} - {names.get(base, base)}:") + "\n"
                      + text_table(table))
    return "\n\n".join(blocks)


def _text(runs: list[Run], comp: Comparison) -> str:
    out = [f"Runs ({runs[0].mode} mode):"]
    for i, r in enumerate(runs, 1):
        m = r.manifest
        status = shown_status(m.get("status"), r.path)
        inc = "" if status == "complete" else f", INCOMPLETE ({status})"
        unit = m.get("units", "deals")
        out.append(fill(f"  {i}. {r.label}: {r.path}, seed {m.get('seed')}, "
                        f"{m.get('deals_done', 0):,} {unit}{inc}", indent="     "))
    for w in comp.warnings:
        out.append(fill(f"WARNING: {w}", indent="  "))
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
        out += ["", fill(f"{title}, {PCT}% interval (paired: same walls deal by deal; "
                         f"independent: separate samples) and two-sided p-value:"),
                diff_text(comp.diff)]
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
        long, diff, present = compute(runs)
    labels = [r.label for r in runs]
    keys = [s.key for s in present]
    mode = runs[0].mode
    comp = Comparison(runs=[r.info() for r in runs], stats=long,
                      table=_wide(long, labels, keys), diff=diff,
                      headline=_wide(long, labels, [k for k in HEADLINE_KEYS[mode] if k in keys]),
                      seats=_wide(long, labels, [k for k in SEAT_KEYS if k in keys])
                      if mode == "game" else pl.DataFrame(),
                      warnings=run_warnings(runs), manifests=[r.manifest for r in runs])
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
    """The comparison as one self-contained HTML page (``nbsim.analysis.html``)."""
    from nbsim.analysis import html as H

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


def plot_caption(comp: Comparison) -> str:
    """The caption of the comparison plots: each run's label, folder,
    seed and length ('ningbo-3baida: runs/demo/ningbo-3baida, seed 1,
    200,000 deals; ...')."""
    return "; ".join(f"{r['label']}: {r['run_dir']}, seed {r['seed']}, "
                     f"{(r['deals_done'] or 0):,} {r['units']}" for r in comp.runs)


def diff_units(comp: Comparison) -> pl.DataFrame:
    """``comp.diff`` with the unit of each difference (the first run's unit
    of the statistic: '' for rates, 'tai', 'points', ...) as column unit."""
    units = comp.stats.select("key", pl.col("run").alias("base"), "unit").unique(["key", "base"])
    return comp.diff.join(units, on=["key", "base"], how="left")


def write_comparison(comp: Comparison, out: str | Path) -> list[Path]:
    """Write compare.md, compare.json, compare.html, compare.png and
    compare_diff.png into ``out`` (created). Raises RunError if ``out`` is a
    file or cannot be written."""
    from nbsim.analysis import plots

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    labels = [r["label"] for r in comp.runs]
    mode = comp.runs[0]["mode"]
    try:
        out.mkdir(parents=True, exist_ok=True)
        caption = plot_caption(comp)
        pngs = {"estimates": plots.plot_comparison(comp.stats, labels, out / COMPARE_PNG,
                                                   keys=HEADLINE_KEYS[mode], caption=caption)}
        if comp.diff.height:
            pngs["diff"] = plots.plot_differences(diff_units(comp), out / COMPARE_DIFF_PNG,
                                                  keys=HEADLINE_KEYS[mode], caption=caption)
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
