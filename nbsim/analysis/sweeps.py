"""``nbsim sweep CONFIG --vary win.min_tai=3,4,5,6``: one run per value of a
rule option (a grid when several options vary), all with the same seed, so
deal i has the same wall in every run; then the statistics against the
swept value and the differences from the first value.

Layout of the sweep folder ``OUT``:
    OUT/<key=value[,key=value]>/   one run folder per point of the grid
                                   (``nbsim simulate`` layout)
    OUT/sweep.md, sweep.json       the table against the swept value and the
                                   differences from the first point
    OUT/sweep.html                 the same, self-contained (plots embedded)
    OUT/sweep.png                  win rate, wall exhausted, mean tai, winner's
                                   gain and turns against the value (intervals)
    OUT/compare_diff.png           differences from the first point

Running the same sweep again on the same folder skips the points whose run
is finished (``nbsim.run.simulate.run_status``: a complete, verified run of the same
config, overrides, seed, mode, deals and policies), completes the
interrupted ones (``--resume``) and replaces the others. Option values are
TOML values (``3``, ``true``, ``"allow"``; bare words are text); they are
validated like ``--set`` before anything runs.
"""
from __future__ import annotations

import itertools
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from nbsim.errors import ConfigError, RunError

SWEEP_MD = "sweep.md"
SWEEP_JSON = "sweep.json"
SWEEP_HTML = "sweep.html"
SWEEP_PNG = "sweep.png"
SWEEP_KEYS = {"game": ["win_rate", "wall_exhausted_rate", "mean_score", "winner_gain",
                       "mean_turns"],
              "deal": ["heavenly", "dealer_wilds", "wilds_per_player", "flowers_per_player"]}


def _split_values(text: str) -> list[str]:
    """'3,4,5' -> ['3', '4', '5']; commas inside [...] or quotes stay."""
    out, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    out.append(cur.strip())
    return out


def _value(text: str):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_vary(vary) -> list[tuple[str, list[str]]]:
    """``--vary`` options -> [(key, [value text, ...])]. Accepts one string
    'KEY=V1,V2,...', a sequence of them, or a mapping key -> values.
    Raises ConfigError naming the bad option."""
    if isinstance(vary, str):
        vary = [vary]
    if isinstance(vary, dict):
        items = []
        for k, vs in vary.items():
            if isinstance(vs, (str, bytes)) or not hasattr(vs, "__iter__"):
                vs = [vs]
            items.append((str(k), [json.dumps(v) if isinstance(v, str) else
                                   (str(v).lower() if isinstance(v, bool) else str(v))
                                   for v in vs]))
    else:
        try:
            entries = list(vary or ())
        except TypeError:
            raise ConfigError(f"vary: expected 'KEY=V1,V2,...' (e.g. 'win.min_tai=3,4,5'), "
                              f"got {vary!r}") from None
        items = []
        for e in entries:
            if not isinstance(e, str) or "=" not in e:
                raise ConfigError(f"--vary {e!r}: expected KEY=V1,V2,... e.g. "
                                  f"win.min_tai=3,4,5,6")
            k, vs = e.split("=", 1)
            values = [v for v in _split_values(vs) if v != ""]
            items.append((k.strip(), values))
    if not items:
        raise ConfigError("sweep needs at least one --vary KEY=V1,V2,... e.g. win.min_tai=3,4,5")
    keys = [k for k, _ in items]
    for k, vs in items:
        if not k:
            raise ConfigError("--vary: empty key; expected KEY=V1,V2,... e.g. win.min_tai=3,4,5")
        if not vs:
            raise ConfigError(f"--vary {k}=: give at least one value, e.g. {k}=3,4,5")
        if len(set(vs)) != len(vs):
            raise ConfigError(f"--vary {k}: a value is given twice ({', '.join(vs)})")
        if keys.count(k) > 1:
            raise ConfigError(f"--vary {k} is given twice; give each option once with all its "
                              f"values")
    return items


def point_name(point: list[tuple[str, str]]) -> str:
    """Folder name of a grid point: 'win.min_tai=5' or 'win.min_tai=5,wilds.wilds=7baida'."""
    text = ",".join(f"{k}={v}" for k, v in point)
    return "".join(c if c.isalnum() or c in "._=,-+" else "_" for c in text)


@dataclass
class SweepResult:
    """What ``sweep`` did and found.

    keys: the swept options; points: one dict per run (values by key,
    label, run folder, status 'ran' or 'skipped'); table: one row per point
    with each statistic as estimate, ci_low, ci_high columns; diff: the
    differences from the first point (``nbsim.analysis.compare.compare.Comparison.diff``,
    "paired" beside each interval); comparison: the full Comparison; text:
    as printed; files: written."""
    keys: list[str]
    points: list[dict]
    table: pl.DataFrame
    diff: pl.DataFrame
    comparison: object
    text: str = ""
    files: list[Path] = field(default_factory=list)


def _as_tuple(x, what: str) -> tuple:
    if x is None:
        return ()
    if isinstance(x, str):
        return (x,)
    try:
        return tuple(x)
    except TypeError:
        raise RunError(f"{what}: expected a list of text items, got {x!r}") from None


def folder_of_runs(out, what: str = "a sweep", holds: str = "one run folder per point") -> Path:
    """``out`` as the Path of a folder that holds run folders (a sweep's or
    a tune study's). Refuses a value that is not a path, a file, and a run
    folder (a manifest in it, or a run lock a live process holds): the
    runs and tables would be written into that run. Raises RunError naming
    the folder (and its writer)."""
    from nbsim.run.files import MANIFEST
    from nbsim.run.lock import describe_holder, lock_holder
    if not isinstance(out, (str, Path)):
        raise RunError(f"out: expected a folder path, got {out!r}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    holder = lock_holder(out)
    if holder is not None or (out / MANIFEST).exists():
        who = f", being written by {describe_holder(holder)}" if holder is not None else ""
        raise RunError(f"--out {str(out)!r} is a run folder ({MANIFEST}{who}); {what} needs "
                       f"a folder of its own, which holds {holds}")
    return out


def sweep(config, vary, *, deals: int, seed: int, out, mode: str = "game",
          policies=None, overrides=(), workers: int | None = None, progress: bool | None = None,
          shard_size: int | None = None, overwrite: bool = False) -> SweepResult:
    """Play one run per point of the grid of ``vary`` with the same seed and
    compare them against the swept value (docs/rules.md §9 for the options).

    Args:
        config: shipped config name or TOML path.
        vary: 'KEY=V1,V2,...' or a list of them (a grid: every combination),
            or a mapping key -> values, e.g. ``{"win.min_tai": [3, 4, 5, 6]}``.
        deals, seed, mode, policies, workers, shard_size, progress: as
            ``nbsim.simulate`` (mode 'game' or 'deal'; policies: 4 names, game
            mode). The mode is 'game' by default, as in ``nbsim.tune``: a
            rule's effect on wins and payments shows only in played deals;
            workers: threads of each run (None: every core, as simulate).
        overrides: ``--set`` strings applied to every run before the swept
            value (one string is one override).
        out: the sweep folder (created); finished runs in it are reused.
        overwrite: replace a point's run of another request (other seed,
            deals, policies...); without it such a run is refused before
            any point is played.
    Returns:
        SweepResult (``table``: statistics per point with 95% intervals;
        ``diff``: each point minus the first, paired, with intervals).
    Raises:
        ConfigError (a bad option or value, checked before any run),
        RunError (bad deals, seed, mode, policies or folder, or a run of
        another request in a point's folder without ``overwrite``).
    """
    from nbsim.analysis import plots
    from nbsim.analysis.compare.compare import compare, diff_text, diff_units, diff_view
    from nbsim.analysis.compare.estimates import HEADLINE_KEYS
    from nbsim.analysis.report.report import policy_text
    from nbsim.rules.ruleset import load_rules
    from nbsim.run.simulate import rerun_to_resume, simulate
    from nbsim.stats import fill, markdown_table, text_table

    items = parse_vary(vary)
    overrides = _as_tuple(overrides, "overrides")
    swept = {k for k, _ in items}
    for ov in overrides:
        key = str(ov).split("=", 1)[0].strip()
        if key in swept:
            raise ConfigError(f"--set {ov!r}: {key} is swept (--vary), so every point sets "
                              f"it; give its values to --vary only")
    pols = _as_tuple(policies, "policies") or None
    if not isinstance(config, (str, Path)):
        raise ConfigError(f"config: expected a shipped config name or a TOML path, got "
                          f"{config!r}")
    if not isinstance(mode, str) or mode not in SWEEP_KEYS:
        raise RunError(f"unknown mode {mode!r}; allowed: {', '.join(SWEEP_KEYS)}")
    out = folder_of_runs(out)
    keys = [k for k, _ in items]
    combos = itertools.product(*[vs for _, vs in items])
    grid = [list(zip(keys, combo, strict=True)) for combo in combos]
    plans = []
    for point in grid:                     # validate every point before running any
        ovs = list(overrides) + [f"{k}={v}" for k, v in point]
        rs = load_rules(config, ovs)
        plans.append((point, ovs, rs))
    if mode == "game":
        from nbsim.policy_specs import as_policies
        pols = tuple(p.full for p in as_policies(pols))
    from nbsim.run.simulate import reuse_status
    statuses = [reuse_status(config, deals=deals, seed=seed, out=out / point_name(point),
                             mode=mode, overrides=ovs,
                             policies=pols if mode == "game" else None,
                             shard_size=shard_size, overwrite=overwrite)
                for point, ovs, _rules in plans]    # every point checked before any runs
    points: list[dict[str, Any]] = []
    for (point, ovs, _rules), status in zip(plans, statuses, strict=True):
        folder = out / point_name(point)
        done = status == "complete"
        if not done:
            # a partial run of this request is completed; another one replaced
            with rerun_to_resume("sweep"):
                simulate(config, deals=deals, seed=seed, out=folder, mode=mode,
                         policies=pols if mode == "game" else None, overrides=ovs,
                         workers=workers, progress=progress, shard_size=shard_size,
                         resume=status == "partial", overwrite=status == "different")
        points.append({"values": {k: _value(v) for k, v in point}, "run_dir": str(folder),
                       "status": "skipped" if done else "ran",
                       "point": ", ".join(f"{k}={v}" for k, v in point)})
    comp = compare([p["run_dir"] for p in points])
    labels = [r["label"] for r in comp.runs]
    for p, lab in zip(points, labels, strict=False):
        p["label"] = lab
    table = _point_table(comp, points, keys, SWEEP_KEYS[mode])
    res = SweepResult(keys=keys, points=points, table=table, diff=comp.diff, comparison=comp)
    head = [f"sweep of {' x '.join(keys)} on {config}: {len(points)} runs, seed {seed}, "
            f"{deals:,} deals each ({mode} mode)"
            + (f", policies {policy_text(pols)}" if pols else "")]
    for p in points:
        head.append(f"  {p['point']}: {p['run_dir']} ({p['status']})")
    shown_head = [fill(line, indent="    ") for line in head]
    shown = _display(table)
    dv = diff_view(comp.diff.filter(pl.col("key").is_in(SWEEP_KEYS[mode]))) \
        if comp.diff.height else comp.diff
    res.text = "\n".join(shown_head + [
        *(fill(f"WARNING: {w}", indent="  ") for w in comp.warnings), "",
        "Statistics against the swept value (95% intervals):",
        text_table(shown, keep=len(keys)), "",
        fill(f"Differences from {points[0]['point']} (same walls: paired):"),
        diff_text(comp.diff.filter(pl.col("key").is_in(SWEEP_KEYS[mode])),
                  names={p["label"]: p["point"] for p in points})
        if dv.height else "(one point: none)"])
    try:
        out.mkdir(parents=True, exist_ok=True)
        x_values = [p["values"][keys[0]] for p in points]
        series = _series(points, keys)
        first_values = list(dict.fromkeys(x_values))
        png = plots.plot_sweep(comp.stats, keys[0], first_values, series, SWEEP_KEYS[mode],
                               out / SWEEP_PNG, caption=_caption(config, overrides, pols, seed,
                                                                 deals))
        pngs = {"sweep": png}
        if comp.diff.height:
            pngs["diff"] = plots.plot_differences(
                diff_units(comp), out / "compare_diff.png", keys=HEADLINE_KEYS[mode],
                caption=_caption(config, overrides, pols, seed, deals),
                names={p["label"]: p["point"] for p in points})
        data = {"keys": keys, "points": points, "seed": seed, "deals": deals, "mode": mode,
                "policies": list(pols) if pols else None, "overrides": list(overrides),
                "table": table.to_dicts(), "diff": comp.diff.to_dicts(),
                "warnings": comp.warnings}
        (out / SWEEP_JSON).write_text(json.dumps(data, indent=2, ensure_ascii=False,
                                                 default=_json_default) + "\n",
                                      encoding="utf-8")
        md = [f"# nbsim sweep: {' x '.join(keys)}", "", head[0], "",
              *[f"- `{p['point']}`: `{p['run_dir']}` ({p['status']})" for p in points], "",
              "## Statistics against the swept value", "", markdown_table(shown), "",
              f"## Differences from {points[0]['point']}", "",
              markdown_table(dv) if dv.height else "(one point: none)", "",
              *[f"![{p.stem}]({p.name})" for p in pngs.values()]]
        (out / SWEEP_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
        from nbsim.analysis import html as H
        from nbsim.analysis.compare.compare import comparison_html
        extra = [H.section("sweep", f"Statistics against {keys[0]}", shown,
                           "95% intervals: Wilson for rates, t for means; every run has the "
                           "same seed, so the walls are shared deal by deal.", [png])]
        (out / SWEEP_HTML).write_text(comparison_html(
            comp, {k: v for k, v in pngs.items() if k == "diff"},
            title=f"nbsim sweep: {' x '.join(keys)}", extra_sections=extra), encoding="utf-8")
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot write the sweep ({e.strerror or e})") \
            from None
    res.files = [out / SWEEP_MD, out / SWEEP_JSON, out / SWEEP_HTML, *pngs.values()]
    return res


def _json_default(x):
    return str(x)


def _caption(config, overrides, pols, seed, deals) -> str:
    ov = "".join(f" --set {o}" for o in overrides)
    pol = (f"; policies {','.join(pols)}" if pols and len(set(pols)) > 1
           else f"; policy {pols[0]}" if pols else "")
    return f"{config}{ov}{pol}; seed {seed}; {deals:,} deals per run"


def _series(points: list[dict], keys: list[str]) -> list[tuple[str, list[str]]]:
    """Lines of the sweep plot: one per combination of the other swept options."""
    groups: dict[str, list[str]] = {}
    for p in points:
        name = ", ".join(f"{k}={p['values'][k]}" for k in keys[1:])
        groups.setdefault(name, []).append(p["label"])
    return list(groups.items())


def _point_table(comp, points: list[dict], keys: list[str], stat_keys: list[str]):
    """One row per point: the swept values, then estimate / ci_low / ci_high
    per statistic."""
    rows = []
    for p in points:
        row = {k: str(p["values"][k]) for k in keys}
        for key in stat_keys:
            m = comp.stats.filter((pl.col("key") == key) & (pl.col("run") == p["label"]))
            if m.height:
                r = m.row(0, named=True)
                row[key] = r["estimate"]
                row[f"{key}_ci_low"] = r["ci_low"]
                row[f"{key}_ci_high"] = r["ci_high"]
        rows.append(row)
    return pl.DataFrame(rows)


def _display(table: pl.DataFrame) -> pl.DataFrame:
    """The point table with each statistic as one 'estimate [low, high]' cell."""
    from nbsim.stats import interval_cell
    cols = [c for c in table.columns if not c.endswith(("_ci_low", "_ci_high"))]
    stat_cols = [c for c in cols if f"{c}_ci_low" in table.columns]
    out = {c: table[c].to_list() for c in cols if c not in stat_cols}
    for c in stat_cols:
        out[c] = [interval_cell(e, lo, hi) for e, lo, hi in
                  zip(table[c], table[f"{c}_ci_low"], table[f"{c}_ci_high"], strict=False)]
    return pl.DataFrame(out)
