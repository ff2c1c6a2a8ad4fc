"""What ``nbsim tune`` found, and its files (docs/tune.md): ``TuneResult``,
the trials, the confirmation and the play styles as tables (``trials_view``,
``confirmation_view``, ``styles_view``), the verdict and the text as printed
(``tune_text``), the recommended config (``recommended_toml``) and the
study folder's tune.md, tune.json, tune.html, tune.png and tune.toml
(``write_tune``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from nbsim.analysis.tune.spec import TuneSpec, point_overrides
from nbsim.analysis.tune.study import STUDY_DB
from nbsim.analysis.tune.targets import MAY_MEET, MEETS, MISSES, as_float
from nbsim.errors import RunError

__all__ = ["TUNE_MD", "TUNE_JSON", "TUNE_HTML", "TUNE_PNG", "TUNE_TOML", "TuneResult",
           "trials_view", "confirmation_view", "styles_view", "tune_text", "recommended_toml",
           "write_tune"]

TUNE_MD = "tune.md"
TUNE_JSON = "tune.json"
TUNE_HTML = "tune.html"
TUNE_PNG = "tune.png"
TUNE_TOML = "tune.toml"


@dataclass
class TuneResult:
    """What ``tune`` did and found.

    spec: the request. trials: one row per finished trial (number, state
    'complete' or 'pruned', deals played, the varied keys' values as TOML
    text, per target ``<stat>``, ``<stat>_ci_low``, ``<stat>_ci_high``
    (Float64) and ``<stat>_verdict``, ``objective`` (Float64: the
    intervals' overhang out of the target ranges, 0 = inside; for a pruned
    trial, that of its partial run), ``run_dir``). feasible: some trial meets or may meet
    every target. closest: the trial row the confirmation started from.
    candidates: the confirmed settings ({key: TOML text}) other than the
    variant's own, best first; recommended: the best confirmation run by
    the objective, the own settings included ({key: its own TOML text, ''
    when the variant lacks it}); recommended_run: its index in
    ``confirmation.runs`` (0: the own settings). confirmation: the
    ``nbsim.analysis.compare.compare.Comparison`` of the variant's own settings (run 1)
    and the candidates on the fresh seed. verdicts: target key -> verdict of
    the recommended settings in the confirmation. n_trials: the study's
    finished trials, repeats of a setting included (``trials`` has one row
    per setting). settings_tried / settings_total: the settings of the
    searched ranges played (trials and confirmation) / that the ranges
    hold; ``exhausted`` when every one was played. styles: the recommended
    settings under each play style (``tune._style_checks``: style, policy,
    deals, seed, run_dir, stats, verdicts, meets_all), the search's style
    first; empty when no setting meets or may meet the targets.
    ``robust``: it meets every target under every style tried. text: as
    printed; files: written."""
    spec: TuneSpec
    trials: pl.DataFrame
    feasible: bool
    candidates: list[dict]
    recommended: dict
    confirmation: Any
    verdicts: dict[str, str]
    closest: dict = field(default_factory=dict)
    n_trials: int = 0
    recommended_run: int = 1
    settings_tried: int = 0
    settings_total: int = 0
    styles: list[dict] = field(default_factory=list)
    text: str = ""
    files: list[Path] = field(default_factory=list)

    @property
    def exhausted(self) -> bool:
        """Every setting of the searched ranges was played."""
        return self.settings_tried >= self.settings_total

    @property
    def robust(self) -> bool:
        """The recommended settings meet every target under every style tried."""
        return bool(self.styles) and all(r["meets_all"] for r in self.styles)

    @property
    def holds_for(self) -> list[str]:
        """The styles under which the recommended settings meet every target."""
        return [r["style"] for r in self.styles if r["meets_all"]]


def _settings_label(values: dict, spec: TuneSpec) -> str:
    return ", ".join(f"{k.key}={values[k.key] or '(absent)'}" for k in spec.keys)


def _recommended_label(res: TuneResult) -> str:
    rec = _settings_label(res.recommended, res.spec)
    return f"the variant's own settings ({rec})" if res.recommended_run == 0 else rec


def _recommended_overrides(res: TuneResult) -> list[str]:
    """The ``--set`` overrides of the recommended settings (the own ones: none)."""
    spec = res.spec
    if res.recommended_run == 0:
        return list(spec.overrides)
    return [*spec.overrides, *point_overrides(spec.keys, res.recommended)]


def trials_view(res: TuneResult) -> pl.DataFrame:
    """The trials as printed: trial, state, deals, the keys' values, each
    target as 'estimate [low, high] verdict', the objective."""
    from nbsim.stats import interval_cell
    t, spec = res.trials, res.spec
    cols: dict[str, list] = {"trial": t["trial"].to_list(), "state": t["state"].to_list(),
                             "deals": t["deals"].to_list()}
    for k in spec.keys:
        cols[k.key] = t[k.key].to_list()
    for tg in spec.targets:
        cols[tg.key] = [f"{interval_cell(e, lo, hi)} {v}" for e, lo, hi, v in zip(
            t[tg.key], t[f"{tg.key}_ci_low"], t[f"{tg.key}_ci_high"], t[f"{tg.key}_verdict"],
            strict=True)]
    cols["objective"] = t["objective"].to_list()
    return pl.DataFrame(cols, strict=False)


def confirmation_view(res: TuneResult, evs: list[dict]) -> pl.DataFrame:
    """The confirmation table: one row per varied key (the settings), then
    one per target (estimate [95% interval] and verdict); columns: the
    variant's own settings, then each confirmed setting."""
    from nbsim.stats import interval_cell
    spec = res.spec
    labels = ["own"] + [f"#{i + 1}" for i in range(len(res.candidates))]
    rows: list[dict] = []
    for k in spec.keys:
        row = {"": k.key, "target": "", labels[0]: k.own or "(absent)"}
        for lab, v in zip(labels[1:], res.candidates, strict=True):
            row[lab] = v[k.key]
        rows.append(row)
    stats = res.confirmation.stats
    runs = [r["label"] for r in res.confirmation.runs]
    for tg in spec.targets:
        row = {"": tg.key, "target": tg.text().split(" ", 1)[1]}
        for lab, run in zip(labels, runs, strict=True):
            m = stats.filter((pl.col("key") == tg.key) & (pl.col("run") == run))
            if not m.height:
                row[lab] = "-"
                continue
            e, lo, hi = m.select("estimate", "ci_low", "ci_high").row(0)
            row[lab] = f"{interval_cell(e, lo, hi)} {tg.verdict(as_float(lo), as_float(hi))}"
        rows.append(row)
    return pl.DataFrame(rows, schema={c: pl.String for c in ["", "target", *labels]})


def styles_view(res: TuneResult) -> pl.DataFrame:
    """The recommended settings under each play style: one row for the
    deals, one per target (estimate [95% interval] and verdict) and the
    style's verdict; columns: the target range, then each style."""
    from nbsim.stats import interval_cell
    labels = [r["style"] for r in res.styles]
    rows: list[dict] = [{"": "deals", "target": "",
                         **{lab: f"{r['deals']:,}" for lab, r in zip(labels, res.styles,
                                                                     strict=True)}}]
    for tg in res.spec.targets:
        row = {"": tg.key, "target": tg.text().split(" ", 1)[1]}
        for lab, r in zip(labels, res.styles, strict=True):
            e, lo, hi = r["stats"][tg.key]
            row[lab] = f"{interval_cell(e, lo, hi)} {r['verdicts'][tg.key]}"
        rows.append(row)
    rows.append({"": "verdict", "target": "",
                 **{lab: _style_verdict(r) for lab, r in zip(labels, res.styles, strict=True)}})
    return pl.DataFrame(rows, schema={c: pl.String for c in ["", "target", *labels]})


def _style_verdict(row: dict) -> str:
    v = row["verdicts"]
    if row["meets_all"]:
        return "meets every target"
    miss = [k for k, x in v.items() if x == MISSES]
    may = [k for k, x in v.items() if x == MAY_MEET]
    return "; ".join(([f"misses {', '.join(miss)}"] if miss else [])
                     + ([f"may meet {', '.join(may)}"] if may else []))


def _styles_line(res: TuneResult) -> list[str]:
    """Which play styles the recommended settings hold for."""
    if not res.styles:
        return []
    names = [r["style"] for r in res.styles]
    if res.robust:
        return [f"robust: meets every target under every play style tried "
                f"({', '.join(names)})."]
    held = res.holds_for
    others = [f"{r['style']} {_style_verdict(r)}" for r in res.styles if not r["meets_all"]]
    return [f"not robust: meets every target under {', '.join(held) if held else 'no style'}"
            f"{' only' if held else ''}; {'; '.join(others)} (styles tried: "
            f"{', '.join(names)})."]


def _not_found_line(res: TuneResult) -> str:
    """The verdict when no setting meets or may meet every target:
    infeasible only when every setting of the ranges was played."""
    spec = res.spec
    c = res.closest
    miss = [t.text() for t in spec.targets if c[f"{t.key}_verdict"] == MISSES]
    closest = f"{', '.join(miss)} missed even by the closest"
    if res.exhausted:
        return (f"INFEASIBLE within the searched ranges: every one of the "
                f"{res.settings_total} settings was tried and no trial nor confirmation run "
                f"meets or may meet every target ({closest}).")
    left = res.settings_total - res.settings_tried
    return (f"none of the {res.settings_tried} settings tried meets or may meet every target "
            f"({closest}); {left} of the {res.settings_total} settings of the searched "
            f"ranges not tried (raise --trials to {res.settings_total} and --resume to try "
            f"them all): the targets may still be met.")


def _verdict_line(res: TuneResult, evs: list[dict], best: int) -> list[str]:
    spec = res.spec
    rec = _recommended_label(res)
    v = res.verdicts
    cd = f"{spec.confirm_deals:,} fresh deals (seed {spec.confirm_seed})"
    if not res.feasible:
        c = res.closest
        return [_not_found_line(res),
                f"closest in the search: trial {c['trial']} ({_settings_label(c, spec)}, "
                f"{c['state']}), objective {c['objective']:.3g}; closest on {cd}: {rec}."]
    if all(x == MEETS for x in v.values()):
        head = f"recommended: {rec}: meets every target on {cd}."
    elif all(x != MISSES for x in v.values()):
        may = [k for k, x in v.items() if x == MAY_MEET]
        head = (f"recommended: {rec}: may meet {', '.join(may)} on {cd} (the interval overlaps "
                f"the range; more --confirm-deals would tell), meets the rest.")
    else:
        miss = [k for k, x in v.items() if x == MISSES]
        head = (f"recommended: {rec}: looked close in the search, but misses "
                f"{', '.join(miss)} on {cd}: the search's estimate was lucky (winner's "
                f"curse); treat the targets as not met.")
    return [head, *_styles_line(res)]


def tune_text(res: TuneResult, evs: list[dict], best: int) -> str:
    """The study as printed: what was searched, the trials, the
    confirmation and the verdict. ``evs``: ``evaluate`` of each
    confirmation run (the own settings first); ``best``: the index of the
    recommended one."""
    from nbsim.analysis.report.report import policy_text
    from nbsim.stats import text_table
    spec = res.spec
    n_pruned = res.trials.filter(pl.col("state") == "pruned").height
    head = [f"tune of {', '.join(k.text() for k in spec.keys)} on {spec.config}"
            + (f" (--set {', '.join(spec.overrides)})" if spec.overrides else "")
            + f", policy {policy_text(list(spec.policies))}",
            f"targets: {'; '.join(t.text() for t in spec.targets)}",
            f"{res.trials.height} settings tried ({n_pruned} pruned) in {res.n_trials} trials"
            f"{' (repeats reuse their run)' if res.n_trials > res.trials.height else ''} of "
            f"{spec.deals:,} deals, seed "
            f"{spec.seed} (the same walls in every trial), {spec.steps} looks per trial",
            "", "Trials (95% intervals; meets: inside the range, may meet: overlaps it):",
            text_table(trials_view(res)), "",
            f"Confirmation on {spec.confirm_deals:,} fresh deals, seed {spec.confirm_seed} "
            f"(own = the variant's own settings):",
            text_table(confirmation_view(res, evs)), ""]
    if res.styles:
        head += [f"Play styles: {_recommended_label(res)} with every seat playing each style, "
                 f"seed {spec.confirm_seed} (95% intervals):", text_table(styles_view(res)), ""]
    return "\n".join(head + _verdict_line(res, evs, best))


def recommended_toml(res: TuneResult) -> str:
    """The recommended settings as a whole config TOML (every option
    resolved, the name '<variant>-tuned'), with a comment header giving the
    targets and the confirmation's estimates; ``nbsim simulate`` runs it."""
    import tomli_w

    from nbsim.analysis.report.report import policy_text
    from nbsim.rules.ruleset import load_rules
    spec = res.spec
    ovs = _recommended_overrides(res)
    rs = load_rules(spec.config, ovs)
    data = rs.to_dict()
    data["name"] = f"{rs.name}-tuned"
    data["description"] = (f"{rs.name} with {', '.join(ovs) or 'its own settings'} (nbsim tune: "
                           f"{'; '.join(t.text() for t in spec.targets)})")
    stats = res.confirmation.stats
    run = res.confirmation.runs[res.recommended_run]["label"]
    lines = [f"# {rs.name} tuned by nbsim tune (docs/tune.md): "
             f"{', '.join(ovs) or 'its own settings'}",
             f"# searched: {', '.join(k.text() for k in spec.keys)}; policy "
             f"{policy_text(list(spec.policies))}; {spec.deals:,} deals per trial, seed "
             f"{spec.seed}",
             f"# confirmation on {spec.confirm_deals:,} deals, seed {spec.confirm_seed} "
             f"(95% intervals):"]
    for t in spec.targets:
        m = stats.filter((pl.col("key") == t.key) & (pl.col("run") == run))
        e, lo, hi = m.select("estimate", "ci_low", "ci_high").row(0)
        lines.append(f"#   {t.text()}: {e:.4g} [{lo:.4g}, {hi:.4g}] "
                     f"{res.verdicts[t.key]}")
    for r in res.styles:
        lines.append(f"# under {r['style']} ({r['deals']:,} deals): "
                     + "; ".join(f"{k} {e:.4g} [{lo:.4g}, {hi:.4g}] {r['verdicts'][k]}"
                                 for k, (e, lo, hi) in r["stats"].items()))
    lines += [f"# {x}" for x in _styles_line(res)]
    if not res.feasible:
        lines.append("# INFEASIBLE: every setting was tried and none met the targets; these "
                     "are the closest settings" if res.exhausted else
                     f"# NOT FOUND: none of the {res.settings_tried} settings tried met the "
                     f"targets ({res.settings_total - res.settings_tried} not tried); these "
                     f"are the closest")
    return "\n".join(lines) + "\n" + tomli_w.dumps(data)


def write_tune(res: TuneResult, out: Path, evs: list[dict], best: int) -> list[Path]:
    """Write tune.png, tune.toml, tune.json, tune.md and tune.html into the
    study folder ``out`` (``evs``, ``best``: as ``tune_text``). Returns the
    paths of tune.md, tune.json, tune.html, tune.png, tune.toml and
    study.db. Raises RunError when ``out`` cannot be written."""
    from nbsim.analysis import html as H
    from nbsim.analysis import plots
    from nbsim.analysis.compare.compare import comparison_html
    from nbsim.stats import json_safe, markdown_table
    spec = res.spec
    from nbsim.analysis.report.report import policy_text
    caption = (f"{spec.config}{''.join(f' --set {o}' for o in spec.overrides)}; policy "
               f"{policy_text(list(spec.policies))}; seed {spec.seed}; {spec.deals:,} deals per "
               f"trial")
    try:
        png = plots.plot_tune(res.trials, spec.targets, [k.key for k in spec.keys],
                              out / TUNE_PNG, recommended=res.recommended, caption=caption)
        (out / TUNE_TOML).write_text(recommended_toml(res), encoding="utf-8")
        tv, cv = trials_view(res), confirmation_view(res, evs)
        verdict = _verdict_line(res, evs, best)
        data = {"spec": {**spec.identity(), "trials": spec.trials,
                         "confirm_deals": spec.confirm_deals,
                         "confirm_seed": spec.confirm_seed, "confirm_top": spec.confirm_top},
                "feasible": res.feasible, "exhausted": res.exhausted,
                "settings_tried": res.settings_tried, "settings_total": res.settings_total,
                "recommended": res.recommended,
                "candidates": res.candidates, "verdicts": res.verdicts, "summary": verdict,
                "robust": res.robust, "holds_for": res.holds_for,
                "styles": [r | {"stats": {k: [json_safe(x) for x in v]
                                          for k, v in r["stats"].items()}}
                           for r in res.styles],
                "trials": [{k: json_safe(v) for k, v in r.items()}
                           for r in res.trials.to_dicts()],
                "confirmation": [{k: json_safe(v) for k, v in r.items()}
                                 for r in res.confirmation.stats.to_dicts()]}
        (out / TUNE_JSON).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
        md = [f"# nbsim tune: {', '.join(k.key for k in spec.keys)}", "",
              *res.text.split("\n\n", 1)[0].splitlines(), "", *verdict, "",
              "## Confirmation: the best settings against the variant's own", "",
              markdown_table(cv), "",
              *(["## Play styles: the recommended settings under each style", "",
                 markdown_table(styles_view(res)), ""] if res.styles else []),
              "## Trials", "", markdown_table(tv), "",
              f"![tune]({TUNE_PNG})", "",
              f"Recommended config: `{TUNE_TOML}` (`nbsim simulate {out / TUNE_TOML} --mode "
              f"game ...`). Study: `{STUDY_DB}` (Optuna, SQLite)."]
        (out / TUNE_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
        note = ("95% intervals: Wilson for rates, t for means. meets: the interval lies "
                "inside the target range; may meet: it overlaps the range; misses: it lies "
                "outside.")
        targets = "Targets: " + "; ".join(t.text() for t in spec.targets) + ". "
        extra = [H.section("verdict", "Recommendation", None, targets + " ".join(verdict)),
                 H.section("confirm", "Confirmation: the best settings against the variant's "
                           "own (fresh seed)", cv, note),
                 *([H.section("styles", "Play styles: the recommended settings under each "
                              "style (every seat the style, the confirmation's seed)",
                              styles_view(res), note + " Robust: meets every target under "
                              "every style.")] if res.styles else []),
                 H.section("trials", "Trials (same seed: the same walls in every trial)", tv,
                           note + " A pruned trial stopped early, its interval clearly "
                           "outside a target range; its row shows its partial run.", [png])]
        (out / TUNE_HTML).write_text(comparison_html(
            res.confirmation, {}, title=f"nbsim tune: {', '.join(k.key for k in spec.keys)}",
            extra_sections=extra), encoding="utf-8")
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot write the study's results "
                       f"({e.strerror or e})") from None
    return [out / TUNE_MD, out / TUNE_JSON, out / TUNE_HTML, png, out / TUNE_TOML,
            out / STUDY_DB]
