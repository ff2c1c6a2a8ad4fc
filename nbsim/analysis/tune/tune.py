"""``nbsim tune CONFIG --target STAT=LOW..HIGH --vary KEY=LOW..HIGH|V1,V2,...``:
rule design by search. Which settings of a few rule options (docs/rules.md
§9: tai item values, ``win.min_tai``, payment caps, wilds, claims, ...) put
the statistics a designer cares about (any key ``nbsim compare`` computes:
win rate, wall-exhausted rate, mean tai of wins, deal-in rate, ...) inside
the ranges the designer asks for?

How it searches (docs/tune.md):
    * an Optuna study in a SQLite file (``OUT/study.db``): stopped and
      resumed (``--resume``), and read by Optuna's own tools;
    * one trial = one setting of the varied keys = one ordinary run folder
      ``OUT/runs/<key=value,...>/`` (``nbsim simulate`` layout), every trial
      with the same seed (common random numbers: deal i has the same wall in
      every trial, so trials differ by the rules alone);
    * the objective is how far the trial's 95% intervals stick out of the
      target ranges (0: every interval inside its range);
    * pruning on partial shards: a trial is played in ``steps`` looks (one
      more shard each, the run extended like ``simulate --resume``); after
      each partial look it reports the largest gap between a Bonferroni
      interval (95% over every look and target) and a target range to
      Optuna's ``ThresholdPruner``, which stops it when that gap is
      positive: the trial is clearly outside a target. Its run folder is
      kept as a complete run of fewer deals;
    * the search's best settings (``confirm_top``) and the variant's own
      settings are then played again on a fresh seed with more deals
      (``confirm_deals``), and only those runs are reported: the search's
      best estimate of a setting is biased towards the targets (the
      winner's curse), the confirmation's is not;
    * the recommended settings are then played under each play style of
      ``styles`` (by default the band's: value, defend, defend:caution=0.9;
      the expert ``lookahead`` on request) on the confirmation's seed: a
      setting is called robust only when it meets every target under every
      style tried.

Verdicts (per target and trial): "meets" when the 95% interval lies
inside the range, "may meet" when it overlaps it, "misses" otherwise. When
no trial meets or may meet every target, the targets are said to be
infeasible within the searched ranges only when every setting of the
ranges was tried (the search's trials and the confirmation's runs);
otherwise the study says how many settings it tried and how many it did
not. The closest trial is named either way.

Layout of the study folder ``OUT``:
    OUT/study.db                  the Optuna study (every trial's settings,
                                  objective, state and statistics)
    OUT/runs/<key=value,...>/     one run folder per setting tried
    OUT/confirm/own/              the variant's own settings, fresh seed
    OUT/confirm/<key=value,...>/  the best settings, fresh seed
    OUT/styles/<setting>/<style>/ the recommended settings under each play
                                  style (the search's own style reuses its
                                  confirmation run)
    OUT/tune.md, tune.json        the trials, the confirmation, the verdicts
    OUT/tune.html, tune.png       the same, self-contained; trials against
                                  each target and each varied key
    OUT/tune.toml                 the recommended settings as a config that
                                  ``nbsim simulate`` runs as it is

The pieces: ``nbsim.analysis.tune.targets`` (the targets, verdicts and objective),
``nbsim.analysis.tune.spec`` (the varied keys and the validated request),
``nbsim.analysis.tune.study`` (the Optuna study, its trials and pruning) and
``nbsim.analysis.tune.output`` (the result, its text and files). This module plays
the confirmation and holds ``tune``; it re-exports their public names, so
``from nbsim.analysis.tune.tune import ...`` reaches them all.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from nbsim.analysis.tune.output import (
    TuneResult,
    tune_text,
    write_tune,
)
from nbsim.analysis.tune.spec import (
    TuneSpec,
    make_spec,
    point_overrides,
    setting_name,
)
from nbsim.analysis.tune.study import (
    STUDY_DB,
    n_trials,
    open_study,
    optimize,
    ranked_settings,
    trial_table,
)
from nbsim.analysis.tune.targets import (
    MEETS,
    MISSES,
    evaluate,
)
from nbsim.errors import RunError

__all__ = ["tune", "CONFIRM_DIR", "CONFIRM_CHUNKS", "OWN", "STUDY_LOCK", "STYLES_DIR"]

CONFIRM_DIR = "confirm"
STYLES_DIR = "styles"
OWN = "own"
STUDY_LOCK = ".nbsim-tune.lock"      # the study's writer lock (nbsim.run.lock)


def _feasible(row: dict, spec: TuneSpec) -> bool:
    return all(row[f"{t.key}_verdict"] != MISSES for t in spec.targets)


CONFIRM_CHUNKS = 8            # a new confirmation run is played in this many shards


Job = tuple[Path, list[str], tuple[str, ...], int]   # folder, overrides, policies, deals


def _play(jobs: list[Job], spec: TuneSpec, workers: int, cluster: str | None,
          out: Path) -> None:
    """The confirmation runs (fresh seed; each job: its folder, overrides,
    policy specs and deals), reused when
    finished, completed when partial: ``workers`` runs at a time locally
    (the main thread plays one too), one at a time on a cluster. Each run
    is extended shard by shard, so that Ctrl-C stops every run at its next
    shard (the finished ones kept) and raises RunInterrupted."""
    import threading

    from nbsim.errors import RunInterrupted
    from nbsim.run.files import read_manifest
    from nbsim.run.simulate import run_status, simulate

    stop = threading.Event()
    todo, guard = list(jobs), threading.Lock()
    errors: list[BaseException] = []

    def one(folder: Path, ovs: list[str], policies: tuple[str, ...], cd: int) -> None:
        kw: dict[str, Any] = dict(deals=cd, seed=spec.confirm_seed, out=folder, mode="game",
                                  overrides=ovs, policies=policies)
        status = run_status(spec.config, **kw)
        if status == "complete":
            return
        size, start = -(-cd // CONFIRM_CHUNKS), 0
        if status == "partial":                 # the run's own shards, from where it stopped
            m = read_manifest(folder)
            size, start = m.get("shard_size") or size, m.get("deals", 0)
        looks = [min(cd, k * size) for k in range(1, -(-cd // size) + 1)]
        looks = [n for n in looks if n >= start] or [cd]
        for i, n in enumerate(looks):
            if stop.is_set():               # another run failed or was interrupted
                return
            simulate(spec.config, **(kw | {"deals": n}), shard_size=size,
                     workers=workers if cluster else 1, cluster=cluster, progress=False,
                     stop=stop, resume=status != "different" or i > 0,
                     overwrite=status == "different" and i == 0)

    def loop() -> None:
        while not stop.is_set():
            with guard:
                if not todo:
                    return
                job = todo.pop(0)
            try:
                one(*job)
            except BaseException as e:  # noqa: BLE001 - the first error is raised by _play
                stop.set()
                errors.append(e)
                return

    jobs_at_once = 1 if cluster is not None else min(workers, len(jobs))
    pool = ThreadPoolExecutor(max_workers=max(1, jobs_at_once - 1),
                              thread_name_prefix="nbsim-confirm")
    futures = [pool.submit(loop) for _ in range(jobs_at_once - 1)]
    try:
        loop()
        for f in futures:
            f.result()
    except KeyboardInterrupt:
        errors.insert(0, RunInterrupted("interrupted"))
    finally:
        stop.set()
        pool.shutdown(wait=True)
    if errors:
        if any(isinstance(e, (RunInterrupted, KeyboardInterrupt)) for e in errors):
            raise RunInterrupted(f"interrupted during the confirmation: the study "
                                 f"({out / STUDY_DB}), the run folders and the confirmation's "
                                 f"finished shards are kept: continue with --resume") from None
        raise errors[0]


def _check_confirm_deals(spec: TuneSpec, conf: Path) -> None:
    """Refuse a --confirm-deals below that of the confirmation runs a
    resumed study already has: they would be replaced by smaller ones."""
    from nbsim.run.files import read_manifest
    have = []
    for m in sorted(conf.glob("*/manifest.json")) if conf.is_dir() else []:
        try:
            man = read_manifest(m.parent)
        except RunError:
            continue
        if man.get("seed") == spec.confirm_seed and isinstance(man.get("deals"), int):
            have.append(man["deals"])
    if have and max(have) > spec.confirm_deals:
        raise RunError(f"--confirm-deals {spec.confirm_deals:,} is below the {max(have):,} "
                       f"deals of the confirmation runs in {conf}: give --confirm-deals "
                       f"{max(have)} (or more) to keep them, or --overwrite to start again")


def tune(config, targets, vary, *, trials: int, deals: int, out, seed: int = 1,
         policy=None, overrides=(), steps: int = 4, confirm_deals: int | None = None,
         confirm_seed: int | None = None, confirm_top: int = 3, styles=None,
         style_deals: int | None = None, workers: int | None = None,
         cluster: str | None = None, resume: bool = False, overwrite: bool = False,
         progress: bool | None = None) -> TuneResult:
    """Search the rule options ``vary`` for settings whose statistics meet
    ``targets``, confirm the best on fresh deals and write the study folder
    (docs/tune.md; the options: docs/rules.md §9).

    Args:
        config: shipped config name or TOML path (the variant searched from).
        targets: 'STAT=LOW..HIGH' strings (``parse_targets``): game-mode
            statistics of ``nbsim.analysis.compare.compare`` (rates as fractions 0..1,
            means in their unit: tai, points, turns, ...).
        vary: 'KEY=LOW..HIGH[:STEP]' / 'KEY=V1,V2,...' strings
            (``parse_search``).
        trials: settings the study should play to the end or prune (a
            setting the sampler proposes again is a trial that reuses its
            run and does not count; the searched ranges may hold fewer
            settings: each is played once); a resumed study plays the
            missing ones.
        deals: deals per trial (game mode, independent deals), all with
            ``seed`` (common random numbers).
        policy: the play style of every seat (a policy spec, default defend).
        overrides: ``--set`` strings applied to every trial first.
        steps: looks per trial (1 .. 100): pruning is checked after each of
            the first steps - 1 (deals / steps deals each).
        confirm_deals, confirm_seed, confirm_top: the confirmation of the best
            settings (default 4 x deals, seed + 1 and 3).
        styles: the play styles the recommended settings are checked under
            (policy specs, optionally ``SPEC@DEALS``; a comma-separated
            string or a list; None: value, defend, defend:caution=0.9;
            "none": the search's style only), each on ``style_deals``
            deals (default ``confirm_deals``) of the confirmation's seed
            (``parse_styles``; a search style such as lookahead needs its
            deals given). Skipped when no setting meets or may meet the
            targets.
        workers: trials played at once on local threads (default: every
            core); with ``cluster`` ('local' or 'tcp://HOST:PORT', as
            ``nbsim simulate``) the trials run one at a time and each look's
            shards on the cluster.
        resume / overwrite: continue the study in ``out`` / start it again.
        progress: a bar of finished trials on stderr (None: when stderr is
            a terminal).
    Returns:
        TuneResult.
    Raises:
        ConfigError (unknown key or statistic, a range of the wrong type, a
        value the schema refuses, contradictory targets; all before any
        run), RunError (bad counts, a folder holding another study or a
        run, a study another process is writing, ``--resume`` of a
        different study), RunInterrupted (Ctrl-C:
        the study and run folders are kept; ``resume=True`` continues).
    """
    import optuna

    from nbsim.analysis.sweeps import folder_of_runs
    from nbsim.args import stderr_is_terminal
    from nbsim.run.simulate import MAX_WORKERS, default_workers

    spec = make_spec(config, targets, vary, trials=trials, deals=deals, seed=seed,
                     policy=policy, overrides=overrides, steps=steps,
                     confirm_deals=confirm_deals, confirm_seed=confirm_seed,
                     confirm_top=confirm_top, styles=styles, style_deals=style_deals)
    from nbsim.args import whole_number
    workers = default_workers() if workers is None else whole_number(
        workers, "--workers", 1, MAX_WORKERS, RunError)
    if cluster is not None:
        from nbsim.run.cluster import check_cluster_address
        check_cluster_address(cluster)
    out = folder_of_runs(out, "a tune study", "its study, one run folder per setting and the "
                                              "confirmation runs")
    if progress is None:
        progress = stderr_is_terminal()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot create the folder ({e.strerror or e})") \
            from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    from nbsim.run.lock import RunLock
    lock = RunLock(out, "nbsim tune", file=STUDY_LOCK).acquire()  # one process per study
    try:
        return _tune_locked(spec, out, workers, cluster, resume, overwrite, progress)
    finally:
        lock.release()


def _tune_locked(spec: TuneSpec, out: Path, workers: int, cluster: str | None, resume: bool,
                 overwrite: bool, progress: bool) -> TuneResult:
    study = open_study(spec, out, resume, overwrite)
    if not overwrite:
        _check_confirm_deals(spec, out / CONFIRM_DIR)
    if cluster is None:          # once here, not in each trial thread at the same time
        from nbsim.warmup import ensure_compiled
        ensure_compiled("game", clock=progress)
    optimize(study, spec, out, workers, cluster, progress)
    table = trial_table(study, spec)
    ranked = ranked_settings(table, spec)
    feasible = any(_feasible(r, spec) for r in ranked)
    own = {k.key: k.own for k in spec.keys}
    others = [r for r in ranked if any(r[k.key] != own[k.key] for k in spec.keys)]
    cands = [r for r in others if _feasible(r, spec)] if feasible else others
    cands = cands[:spec.confirm_top]      # the own settings are played once, as "own"
    cvals = [{k.key: r[k.key] for k in spec.keys} for r in cands]
    conf = out / CONFIRM_DIR
    jobs: list[Job] = [(conf / OWN, list(spec.overrides), spec.policies, spec.confirm_deals)]
    jobs += [(conf / setting_name(spec.keys, v),
              [*spec.overrides, *point_overrides(spec.keys, v)], spec.policies,
              spec.confirm_deals) for v in cvals]
    _play(jobs, spec, workers, cluster, out)
    from nbsim.analysis.compare.compare import compare
    from nbsim.analysis.compare.estimates import run_stats
    comp = compare([j[0] for j in jobs])
    # every confirmation run competes, the own settings included (run 0): the
    # recommendation is never worse than them on the confirmation
    evs = [evaluate(run_stats(j[0]), spec.targets) for j in jobs]
    best = min(range(len(jobs)), key=lambda i: (evs[i]["objective"], evs[i]["centre"], i))
    feasible = feasible or any(all(v != MISSES for v in e["verdicts"].values()) for e in evs)
    tried = _settings_tried(spec, table, own)
    res = TuneResult(spec=spec, trials=table, feasible=feasible, candidates=cvals,
                     recommended=own if best == 0 else cvals[best - 1], confirmation=comp,
                     verdicts=evs[best]["verdicts"],
                     closest=(cands or ranked)[0] if ranked else {},
                     n_trials=n_trials(study), recommended_run=best,
                     settings_tried=tried, settings_total=spec.space_size)
    if feasible:
        res.styles = _style_checks(spec, out, workers, cluster, jobs[best], evs[best])
    res.text = tune_text(res, evs, best)
    res.files = write_tune(res, out, evs, best)
    return res


def _settings_tried(spec: TuneSpec, table, own: dict) -> int:
    """Settings of the searched ranges the study has played: its trials'
    and, when the variant's own settings lie in the ranges, those (the
    confirmation plays them)."""
    seen = {tuple(r[k.key] for k in spec.keys) for r in table.iter_rows(named=True)}
    if all(own[k.key] in k.values for k in spec.keys):
        seen.add(tuple(own[k.key] for k in spec.keys))
    return len(seen)


def _style_checks(spec: TuneSpec, out: Path, workers: int, cluster: str | None,
                  rec_job: Job, rec_ev: dict) -> list[dict]:
    """The recommended settings under each style of ``spec.styles`` (the
    confirmation's seed, every seat the style): one dict per style with
    ``style`` (its short spec), ``policy`` (full), ``deals``, ``run_dir``,
    ``stats`` {target: [estimate, low, high]}, ``verdicts`` {target:
    verdict} and ``meets_all``. The search's own style is first, from the
    confirmation run itself when it plays the same deals."""
    from nbsim.analysis.compare.estimates import run_stats
    from nbsim.policy_specs import parse_policy
    folder, ovs, _, _ = rec_job
    name = folder.name
    checks: list[tuple[str, Path, int, dict | None]] = []
    search = spec.search_style
    if search is not None:
        checks.append((search, folder, spec.confirm_deals, rec_ev))
    jobs: list[Job] = []
    for style, n in zip(spec.styles, spec.style_deals, strict=True):
        if style == search and n == spec.confirm_deals:
            continue
        if style == search:
            checks = [c for c in checks if c[0] != search]
        run = out / STYLES_DIR / name / _style_folder(style)
        jobs.append((run, ovs, (style,) * 4, n))
        checks.append((style, run, n, None))
    if jobs:
        _play(jobs, spec, workers, cluster, out)
    rows = []
    for style, run, n, ev in checks:
        ev = ev or evaluate(run_stats(run), spec.targets)
        rows.append({"style": parse_policy(style).spec, "policy": style, "deals": n,
                     "seed": spec.confirm_seed, "run_dir": str(run), "stats": ev["stats"],
                     "verdicts": ev["verdicts"],
                     "meets_all": all(v == MEETS for v in ev["verdicts"].values())})
    return rows


def _style_folder(style: str) -> str:
    """A style's folder name: its short spec, other characters as '-'."""
    import re

    from nbsim.policy_specs import parse_policy
    return re.sub(r"[^A-Za-z0-9.=]+", "-", parse_policy(style).spec).strip("-")
