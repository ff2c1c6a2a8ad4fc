"""``nbsim report``: probability tables of a run folder -> report.md,
summary.json and PNG plots, plus the main table as text.

The shards are read lazily (``polars.scan_parquet``). Each table is one
function ``table_*(lf, ctx) -> Table | None`` registered per mode in
``TABLES`` (``ctx``: the run's ``RunContext``; None = the table does not apply
to this run, e.g. tai items in a fan/fu variant).
Plots (``nbsim.analysis.plots``) are drawn from the tables only.

Deal-mode tables:
    heavenly            P(dealer complete after the flower replacement, 天胡)
                        with a 95% Wilson interval (scipy)
    heavenly_by_wilds   the same split by the number of wilds the dealer holds
    wilds_per_seat      distribution of wilds held per seat (E S W N)
    flowers_per_seat    distribution of flowers set aside per seat

Game-mode tables (``nbsim simulate --mode game``; one row per played deal):
    main                the printed main table: win rate, self-drawn share of
                        wins, wall-exhausted rate, mean tai of wins (Ninghai:
                        mean points of wins under the run's points scheme)
    outcomes            P(win), P(self-drawn), P(discard win), P(robbing the
                        kong), P(wall exhausted), self-drawn share of wins
    win_means           mean tai (Ninghai: fan, fu, points per scheme) and the
                        winner's gain over wins
    tai_distribution    P(tai = k) and P(tai >= k) over wins (Ninghai:
                        fan_distribution)
    tai_items           every tai item of the variant, 0-tai items included
                        (from the has_<item> columns): P(item applies | win),
                        P(item applies) per deal, its mean tai, by frequency
    fan_items           Ninghai: P(fan item applies | win) and its mean fan per
                        win (before the fan cap)
    fu_items            Ninghai: P(fu item applies | win) and its mean fu per win
    pay_per_seat        mean net points per seat E S W N (E = dealer)
    pay_by_policy       win rate and mean net points per seat of each policy
    winner_gain         distribution of the winner's gain (points)
    by_seat             win rate and deal-in rate per seat, dealer vs others
    game_length         mean turns, tiles left and kongs per deal
    flowers_per_seat    distribution of the flowers each seat has set aside at
                        the end of the deal (flowers_end_*)
    matches             --format matches: mean match total per player/policy

Intervals are 95% (``nbsim.stats``): Wilson score intervals for
proportions (``scipy.stats.binomtest``), t intervals mean +- t(0.975, n-1)
sd/sqrt(n) (``scipy.stats.t``) for means. Each table's note says which it uses.

The tables are ``nbsim.analysis.report.deal_tables`` (the ``Table`` and ``RunContext``
records, shared expressions, deal mode) and ``nbsim.analysis.report.game_tables`` (game
mode); this module lists them per mode (``TABLES``), computes a run's
report (``summarize``) and writes it (``write_report``). Every table is one
or a few lazy aggregations over the shards, run by polars' streaming
engine, so memory does not grow with the number of deals (``make bench``,
bench_report, measures the time and memory of a 10-million-deal report).
Files: report.md, summary.json, report.html (self-contained: tables, the
plots as data URIs, config, overrides, policies, seed) and the PNG plots.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from nbsim.analysis.report.deal_tables import (
    RunContext,
    Table,
    table_flowers_per_seat,
    table_heavenly,
    table_heavenly_by_wilds,
    table_wilds_per_seat,
)
from nbsim.analysis.report.game_tables import (
    table_by_seat,
    table_distribution,
    table_fan_items,
    table_flowers_end,
    table_fu_items,
    table_game_length,
    table_main_game,
    table_matches,
    table_outcomes,
    table_pay_by_policy,
    table_pay_per_seat,
    table_tai_items,
    table_win_means,
    table_winner_gain,
)
from nbsim.errors import RunError
from nbsim.run.files import (
    MANIFEST,
    REPORT_HTML,
    REPORT_MD,
    SUMMARY_JSON,
    damaged_file_errors,
    open_run,
)
from nbsim.run.lock import shown_status
from nbsim.stats import (
    TEXT_WIDTH,
    fill,
    fmt,
    json_safe,
    markdown_table,
    text_table,
)

__all__ = ["summarize", "write_report", "Report", "main_text", "run_caption", "policy_text",
           "TABLES", "MAIN_TABLES", "report_html"]


def policy_text(policies) -> str:
    """'value' when every seat plays the same policy, else 'value, greedy,
    greedy, greedy' (seats E S W N, or players of a match run); '' without
    policies (deal mode). Entries show the parameters that differ from
    their defaults ('defend:caution=0.8'; the manifest keeps every one)."""
    pol = [_short_policy(p) for p in policies or []]
    if not pol:
        return ""
    return pol[0] if len(set(pol)) == 1 else ", ".join(pol)


def _short_policy(text: str) -> str:
    """A manifest's full policy spec shortened to the parameters that differ
    from their defaults ('defend:caution=0.3:bind=0.5:...' -> 'defend');
    text that is not a known spec is shown as it is."""
    from nbsim.errors import RunError
    from nbsim.policy_specs import parse_policy
    try:
        return parse_policy(text).spec
    except RunError:
        return str(text)


def run_caption(manifest: dict) -> str:
    """One line naming what produced a run's figures: variant, --set
    overrides, policies, seed and deals ('ningbo-3baida --set win.min_tai=5;
    policy value; seed 1; 10,000 deals')."""
    name = (manifest.get("config") or {}).get("name") or "?"
    parts = [name + "".join(f" --set {o}" for o in manifest.get("overrides") or [])]
    pol = policy_text(manifest.get("policies"))
    if pol:
        parts.append(("policy " if "," not in pol else "policies ") + pol)
    parts.append(f"seed {manifest.get('seed')}")
    parts.append(f"{manifest.get('deals_done') or 0:,} {manifest.get('units', 'deals')}")
    return "; ".join(parts)


# the tables of each mode, in the report's order
TABLES = {
    "deal": (table_heavenly, table_heavenly_by_wilds, table_wilds_per_seat,
             table_flowers_per_seat),
    "game": (table_outcomes, table_win_means, table_distribution, table_tai_items,
             table_fan_items, table_fu_items, table_pay_per_seat, table_pay_by_policy,
             table_winner_gain, table_by_seat, table_game_length, table_flowers_end,
             table_matches),
}
MAIN_TABLES = {"game": table_main_game}


@dataclass
class Report:
    """A computed report: run info, tables by name, files written, main text."""
    run: dict
    tables: dict[str, Table]
    files: list[Path] = field(default_factory=list)
    text: str = ""
    manifest: dict = field(default_factory=dict, repr=False)


def _run_info(manifest: dict, run_dir: Path) -> dict:
    info = {
        "run_dir": str(run_dir),
        "config": manifest.get("config", {}).get("name"),
        "config_hash": manifest.get("config", {}).get("hash"),
        "overrides": manifest.get("overrides", []),
        "mode": manifest.get("mode"),
        "seed": manifest.get("seed"),
        "deals": manifest.get("deals"),
        "deals_done": manifest.get("deals_done"),
        "status": shown_status(manifest.get("status"), run_dir),
        "nbsim_version": manifest.get("nbsim_version"),
        "caption": run_caption(manifest),
    }
    if manifest.get("mode") == "game":
        info["game_format"] = manifest.get("game_format", "deals")
        info["policies"] = manifest.get("policies")
        info["units"] = manifest.get("units", "deals")
    return info


def _status_parts(run: dict) -> list[str]:
    """The run's status line in its parts: config, hash, seed and length;
    who played; how much of an incomplete run is done."""
    ov = f" --set {' --set '.join(run['overrides'])}" if run["overrides"] else ""
    unit = run.get("units", "deals")
    parts = [f"{run['config']}{ov} (hash {run['config_hash']}), seed {run['seed']}: "
             f"{run['deals_done']:,} {unit}"]
    if run["mode"] == "game":
        pol = run.get("policies") or []
        who = ("players" if run.get("game_format") == "matches" else "seats E S W N")
        pols = (f"policy {pol[0]}" if pol and len(set(pol)) == 1
                else f"policies by {who}: {', '.join(pol)}")
        parts.append(f"played out ({pols})")
    if run["status"] != "complete":
        parts.append(f"-- INCOMPLETE run ({run['status']}): {run['deals_done']:,} of "
                     f"{run['deals']:,} {unit} done")
    return parts


def _status_line(run: dict) -> str:
    return " ".join(_status_parts(run))


def _status_text(run: dict) -> str:
    """The status line for the terminal: one line when it fits in
    ``TEXT_WIDTH`` columns, else one line per part (each wrapped)."""
    line = _status_line(run)
    if len(line) <= TEXT_WIDTH:
        return line
    return "\n".join(fill(part if i == 0 else "  " + part, indent="  ")
                     for i, part in enumerate(_status_parts(run)))


def _main_text_deal(rep: Report) -> str:
    h = rep.tables["heavenly"].df.row(0, named=True)
    out = [_status_text(rep.run), "",
           fill(f"heavenly hand (dealer complete): {h['complete']:,} / {h['deals']:,} = "
                f"{fmt(h['p'])}  (95% Wilson CI {fmt(h['ci_low'])} .. {fmt(h['ci_high'])}; "
                f"se {fmt(h['se'])})", indent="  ")]
    for name in ("wilds_per_seat", "flowers_per_seat"):
        t = rep.tables[name]
        out += ["", fill(t.title), text_table(t.df), fill(t.note)]
    return "\n".join(out)


def _main_text_game(rep: Report) -> str:
    out = [_status_text(rep.run)]
    shown = ["main", "pay_per_seat"]
    if rep.tables["pay_by_policy"].df.height > 1:
        shown.append("pay_by_policy")
    for name in ("tai_items", "fan_items", "fu_items"):
        if name in rep.tables:
            shown.append(name)
    if "matches" in rep.tables:
        shown.append("matches")
    for name in shown:
        t = rep.tables[name]
        df = t.df
        if name == "pay_per_seat":
            df = df.select("seat", "dealer", "mean", "se", "ci_low", "ci_high")
        if name == "tai_items":
            df = df.select("chinese", "item", "tai", "wins", "p", "ci_low", "ci_high",
                           "p_deal", "mean_tai")
        if name in ("fan_items", "fu_items"):
            fam = name[:-6]
            df = df.select("chinese", "item", fam, "wins", "p", "ci_low", "ci_high",
                           f"mean_{fam}")
        keep = 2 if name in ("tai_items", "fan_items", "fu_items") else 1
        out += ["", fill(t.title), text_table(df, keep=keep), fill(t.note)]
    return "\n".join(out)


MAIN_TEXT = {"deal": _main_text_deal, "game": _main_text_game}


def main_text(rep: Report) -> str:
    """The main table printed by ``nbsim report``."""
    return MAIN_TEXT[rep.run.get("mode") or "deal"](rep)


def summarize(run_dir: str | Path) -> Report:
    """Compute the report tables of a run folder (no files written).

    Returns a Report whose ``tables`` maps a table name (see the module
    docstring) to a Table (polars DataFrame + title + note) and whose
    ``text`` is the main table as printed by ``nbsim report``.

    Raises RunError if the folder is not a run, its manifest or a shard is
    damaged (``open_run``), it has no finished shard, or it is in a mode
    without report tables."""
    if not isinstance(run_dir, (str, Path)):
        raise RunError(f"summarize needs a run folder (a path such as 'runs/g'), "
                       f"got {run_dir!r}")
    run = open_run(run_dir)
    run_dir, manifest = run.run_dir, run.manifest
    mode = manifest["mode"]
    if mode not in TABLES:
        raise RunError(f"{run_dir / MANIFEST}: no report for mode {mode!r}; "
                       f"allowed: {', '.join(TABLES)}")
    ctx = RunContext.from_run(run_dir, manifest)
    tables = {}
    with damaged_file_errors([(run_dir, manifest)]):
        for fn in TABLES[mode]:
            t = fn(run.lf, ctx)
            if t is not None:
                tables[t.name] = t
    if mode in MAIN_TABLES:
        main = MAIN_TABLES[mode](tables, ctx)
        tables = {main.name: main, **tables}
    rep = Report(run=_run_info(manifest, run_dir), tables=tables, manifest=manifest)
    rep.text = main_text(rep)
    return rep


def report_html(rep: Report, pngs: list[Path]) -> str:
    """The report as one self-contained HTML page (``nbsim.analysis.html``): the run's
    facts (config, overrides, policies, seed, deals, status), every table
    with its intervals and note, the plots embedded, and the config as run."""
    from nbsim.analysis import html as H

    run = rep.run
    facts = [("run folder", run["run_dir"]), ("config", f"{run['config']} (hash "
                                                        f"{run['config_hash']})"),
             ("overrides", ", ".join(run["overrides"]) or "none"),
             ("mode", run["mode"]), ("seed", run["seed"]),
             ("deals", f"{run['deals_done']:,} of {run['deals']:,} {run.get('units', 'deals')}"
                       f" ({run['status']})")]
    if run["mode"] == "game":
        who = "players" if run.get("game_format") == "matches" else "seats E S W N"
        facts.append((f"policies ({who})", ", ".join(run.get("policies") or [])))
    warnings = []
    if run["status"] != "complete":
        warnings.append(f"INCOMPLETE run ({run['status']}): {run['deals_done']:,} of "
                        f"{run['deals']:,} done; the tables cover the finished shards only.")
    by_table = {p.stem: p for p in pngs}
    plot_of = {"outcomes": "outcomes", "tai_distribution": "tai_distribution",
               "fan_distribution": "fan_distribution", "tai_items": "tai_items",
               "pay_per_seat": "payments", "heavenly_by_wilds": "heavenly_by_wilds",
               "wilds_per_seat": "wilds_per_seat", "flowers_per_seat": "flowers_per_seat"}
    sections = []
    for name, t in rep.tables.items():
        png = by_table.get(plot_of.get(name, ""))
        sections.append(H.section(name, t.title, t.df, t.note, [png] if png else [],
                                  caption=run["caption"]))
    return H.render_page(f"nbsim report: {run['config']}", subtitle=_status_line(run),
                         facts=facts, warnings=warnings, sections=sections,
                         configs=[H.config_view(rep.manifest, run["config"])])


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Report:
    """Compute the report of a run and write report.md, summary.json,
    report.html (self-contained, plots embedded) and the PNG plots into
    ``out`` (default: the run folder). Every plot names the run's variant,
    overrides, policies and seed. Returns the Report.

    Raises RunError (not a run, nothing finished, unwritable ``out``)."""
    from nbsim.analysis import plots

    rep = summarize(run_dir)
    out = Path(out) if out is not None else Path(run_dir)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        pngs = plots.draw_all(rep.tables, out, caption=rep.run["caption"])
        summary = {"run": rep.run,
                   "tables": {name: {"title": t.title, "note": t.note,
                                     "rows": [{k: json_safe(v) for k, v in r.items()}
                                              for r in t.df.to_dicts()]}
                              for name, t in rep.tables.items()},
                   "plots": [p.name for p in pngs]}
        (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
        md = [f"# nbsim report: {rep.run['config']}", "", _status_line(rep.run), ""]
        for t in rep.tables.values():
            md += [f"## {t.title}", "", markdown_table(t.df), ""]
            if t.note:
                md += [t.note, ""]
        md += [f"![{p.stem}]({p.name})" for p in pngs]
        (out / REPORT_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
        (out / REPORT_HTML).write_text(report_html(rep, pngs), encoding="utf-8")
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot write the report ({e.strerror or e})") from None
    rep.files = [out / REPORT_MD, out / SUMMARY_JSON, out / REPORT_HTML, *pngs]
    return rep
