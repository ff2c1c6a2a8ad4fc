"""The Optuna study of ``nbsim tune`` (docs/tune.md): its SQLite file
(``open_study``: created, or resumed with the trials a killed process left
queued again), one trial = one run folder played look by look with pruning
between looks (``_Trials``), the ask-and-tell loop on local threads or a
cluster (``optimize``), and the finished trials as a table, best first
(``trial_table``, ``ranked_settings``).
"""
from __future__ import annotations

import itertools
import json
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

from nbsim.analysis.tune.spec import TuneSpec, point_overrides, setting_name
from nbsim.analysis.tune.targets import evaluate, prune_gap
from nbsim.errors import RunError, RunInterrupted

__all__ = ["STUDY_DB", "STUDY_NAME", "RUNS_DIR", "MAX_ASKS", "PRUNE_ALPHA", "open_study",
           "identity_differences",
           "optimize", "trial_table", "ranked_settings", "n_trials"]

STUDY_DB = "study.db"
STUDY_NAME = "nbsim-tune"
RUNS_DIR = "runs"
MAX_ASKS = 5                  # trials asked at most per setting of the budget (repeats)
PRUNE_ALPHA = 0.05            # family-wise error of the pruning rule over looks and targets


def _prune_level(spec: TuneSpec) -> float:
    """Confidence of the pruning intervals: two-sided PRUNE_ALPHA split
    (Bonferroni) over every partial look and target."""
    looks = max(1, spec.steps - 1) * len(spec.targets)
    return 1 - PRUNE_ALPHA / looks


class _Trials:
    """Runs trials: one run folder per setting, locked while a trial plays
    it (two trials of one setting share the folder, one after the other)."""

    def __init__(self, spec: TuneSpec, out: Path, workers: int, cluster: str | None,
                 stop: threading.Event):
        self.spec, self.out, self.workers, self.cluster, self.stop = (spec, out, workers,
                                                                      cluster, stop)
        self.level = _prune_level(spec)
        self.guard = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.first: dict[str, int] = {}      # setting -> the trial that played it first
        self.repeats: set[int] = set()       # trials of a setting played before

    def known(self, study) -> None:
        """Learn the settings the study's finished trials played."""
        from optuna.trial import TrialState
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,
                                                          TrialState.PRUNED)):
            if "setting" in t.user_attrs and "repeat_of" not in t.user_attrs:
                self.first.setdefault(t.user_attrs["setting"], t.number)

    def _lock(self, name: str) -> threading.Lock:
        with self.guard:
            return self.locks.setdefault(name, threading.Lock())

    def run(self, trial) -> float:
        """The objective of one Optuna trial: play its setting look by look
        (pruning between looks), store its statistics in the trial's user
        attributes, return the objective. Raises optuna.TrialPruned."""
        import optuna

        from nbsim.analysis.compare.estimates import run_stats
        from nbsim.run.files import read_manifest
        from nbsim.run.simulate import run_status, simulate

        spec = self.spec
        values = {k.key: k.suggest(trial) for k in spec.keys}
        name = setting_name(spec.keys, values)
        folder = self.out / RUNS_DIR / name
        ovs = [*spec.overrides, *point_overrides(spec.keys, values)]
        trial.set_user_attr("run_dir", str(folder))
        trial.set_user_attr("values", values)
        trial.set_user_attr("setting", name)
        with self.guard:
            first = self.first.setdefault(name, trial.number)
            if first != trial.number:          # the sampler proposed it again: its run reused
                self.repeats.add(trial.number)
                trial.set_user_attr("repeat_of", first)
        size = spec.shard_size
        with self._lock(name):
            kw = dict(deals=spec.deals, seed=spec.seed, out=folder, mode="game",
                      overrides=ovs, policies=spec.policies, shard_size=size)
            status = run_status(spec.config, **kw)
            planned = read_manifest(folder).get("deals", 0) if status == "partial" else 0
            looks = [min(spec.deals, k * size) for k in range(1, spec.steps + 1)]
            looks = [n for n in looks if n >= planned] or [spec.deals]
            for i, n in enumerate([] if status == "complete" else looks):
                if self.stop.is_set():
                    raise RunInterrupted("stopped")
                simulate(spec.config, deals=n, seed=spec.seed, out=folder, mode="game",
                         policies=spec.policies, overrides=ovs, shard_size=size,
                         workers=self.workers, cluster=self.cluster, progress=False,
                         stop=self.stop, resume=status != "different" or i > 0,
                         overwrite=status == "different" and i == 0)
                if n < spec.deals:
                    stats = run_stats(folder)
                    gap = prune_gap(stats, spec.targets, self.level)
                    trial.report(max(gap, -1e6), n)
                    if trial.should_prune():
                        ev = evaluate(stats, spec.targets)
                        trial.set_user_attr("deals", n)
                        trial.set_user_attr("eval", ev)
                        raise optuna.TrialPruned(f"clearly outside a target after {n} deals")
            stats = run_stats(folder)
        ev = evaluate(stats, spec.targets)
        trial.set_user_attr("deals", spec.deals)
        trial.set_user_attr("eval", ev)
        return ev["objective"]


# ------------------------------------------------------------------ the study
def _storage(out: Path):
    import optuna
    return optuna.storages.RDBStorage(f"sqlite:///{out / STUDY_DB}",
                                      engine_kwargs={"connect_args": {"timeout": 60}})


def _sampler(spec: TuneSpec):
    import optuna
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # constant_liar is marked experimental
        return optuna.samplers.TPESampler(seed=spec.seed, constant_liar=True,
                                          n_startup_trials=min(10, max(2, spec.trials // 2)))


def open_study(spec: TuneSpec, out: Path, resume: bool, overwrite: bool):
    """The study of ``out`` (``OUT/study.db``: created, or loaded with
    ``resume``); trials a killed process left running are failed and their
    settings queued again. When the searched ranges hold no more settings
    than ``spec.trials``, every setting not yet tried is queued once.
    Raises RunError: both ``resume`` and ``overwrite``, a study already in
    ``out`` without either, ``resume`` of a file that holds no nbsim tune
    study or a study of another request (``TuneSpec.identity``)."""
    import optuna
    from optuna.trial import TrialState

    db = out / STUDY_DB
    if overwrite and resume:
        raise RunError("give either --overwrite (start the study again) or --resume (continue "
                       "it), not both")
    if db.exists() and not (resume or overwrite):
        raise RunError(f"--out {str(out)!r} already holds a study ({STUDY_DB}); use --resume to "
                       f"continue it, --overwrite to start again, or choose another folder")
    if overwrite and db.exists():
        db.unlink()
    pruner = optuna.pruners.ThresholdPruner(upper=0.0)
    storage = _storage(out)
    ident = spec.identity()
    if db.exists() and resume:
        try:
            study = optuna.load_study(study_name=STUDY_NAME, storage=storage,
                                      sampler=_sampler(spec), pruner=pruner)
        except KeyError:
            raise RunError(f"--resume: {db} holds no nbsim tune study") from None
        diffs = identity_differences(ident, study.user_attrs.get("identity", {}))
        if diffs:
            raise RunError(f"--resume: {out} holds a different study: " + "; ".join(diffs)
                           + " (use the study's own arguments, or --overwrite)")
        done = {json.dumps(t.params, sort_keys=True) for t in study.get_trials(
            deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.WAITING))}
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.FAIL)):
            if t.state == TrialState.RUNNING:        # its process was killed
                storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
            key = json.dumps(t.params, sort_keys=True)
            if t.params and len(t.params) == len(spec.keys) and key not in done:
                study.enqueue_trial(t.params, user_attrs={"resumed_from": t.number})
                done.add(key)
    else:
        study = optuna.create_study(study_name=STUDY_NAME, storage=storage,
                                    sampler=_sampler(spec), pruner=pruner, direction="minimize")
        study.set_user_attr("identity", ident)
        done = set()
    if spec.space_size <= spec.trials:      # every setting fits in the budget: each once
        for combo in itertools.product(*[k.values for k in spec.keys]):
            params = {k.key: int(v) if k.kind == "int" else v
                      for k, v in zip(spec.keys, combo, strict=True)}
            key = json.dumps(params, sort_keys=True)
            if key not in done and not _tried(study, params):
                study.enqueue_trial(params)
                done.add(key)
    return study


def _policies_text(policies) -> str:
    """A study's policy specs: once when every seat plays the same."""
    if isinstance(policies, list) and policies and len(set(policies)) == 1:
        return f"{policies[0]} (every seat)"
    return repr(policies)


def identity_differences(ident: dict, have: dict) -> list[str]:
    """How a request's ``TuneSpec.identity`` differs from a study's (empty:
    --resume continues it), one phrase per key. The study's policy specs are
    compared in this version's full form (a parameter added since takes the value
    that plays as before it existed); a changed config is said to be one."""
    from nbsim.run.simulate import current_specs
    have = dict(have)
    have["policies"] = current_specs(have.get("policies"))
    diffs = []
    for k in ident:
        if have.get(k) == ident[k]:
            continue
        if k == "rules_hash":
            if have.get("config") == ident["config"]:
                diffs.append(f"the content of config {ident['config']!r} changed since the "
                             f"study started (its rules hash is {str(ident[k])[:8]}, the "
                             f"study's {str(have.get(k))[:8]})")
        elif k == "policies":
            diffs.append(f"policies is {_policies_text(ident[k])}, the study's is "
                         f"{_policies_text(have.get(k))}")
        else:
            diffs.append(f"{k} is {ident[k]!r}, the study's is {have.get(k)!r}")
    return diffs


def _tried(study, params: dict) -> bool:
    from optuna.trial import TrialState
    return any(t.params == params for t in study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.WAITING)))


def n_trials(study) -> int:
    """The study's finished trials (complete or pruned), repeats included."""
    from optuna.trial import TrialState
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)))


def _budget(spec: TuneSpec) -> int:
    """Trials the study runs: ``trials``, or every setting once when the
    searched ranges hold fewer settings."""
    return min(spec.trials, spec.space_size)


def _finished(study) -> int:
    """Settings the study has played to the end or pruned (repeats once)."""
    from optuna.trial import TrialState
    return len({t.user_attrs.get("setting", t.number) for t in study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))})


def optimize(study, spec: TuneSpec, out: Path, workers: int, cluster: str | None,
              progress: bool) -> None:
    """Ask and tell until the study has played ``_budget(spec)`` settings:
    ``workers`` trials at a time on local threads (each trial's simulate on
    one thread; the kernels release the GIL), or one at a time with
    ``cluster`` (each look's shards on the cluster). A trial of a setting
    played before (the sampler may propose one again) reuses its run and
    does not count; after ``MAX_ASKS`` x budget trials the search stops
    however many settings it has played. Ctrl-C stops the running trials at
    their next look (their run folders kept, their trials failed and queued
    again by --resume) and raises RunInterrupted."""
    import optuna
    from optuna.trial import TrialState
    from tqdm import tqdm

    stop = threading.Event()
    jobs = 1 if cluster is not None else workers
    runner = _Trials(spec, out, workers if cluster is not None else 1, cluster, stop)
    runner.known(study)
    count, asking = threading.Lock(), threading.Lock()
    done, running = [_finished(study)], [0]
    asks = [len(study.trials) + MAX_ASKS * _budget(spec)]
    errors: list[BaseException] = []
    budget = _budget(spec)
    bar = tqdm(total=budget, initial=done[0], unit="setting", disable=not progress,
               desc=f"tune {spec.config}", file=__import__("sys").stderr)

    def loop():
        while not stop.is_set():
            with count:
                if done[0] + running[0] >= budget or asks[0] <= 0:
                    return
                running[0] += 1
                asks[0] -= 1
            with asking:            # two threads must not take the same queued trial
                trial = study.ask()
            try:
                value = runner.run(trial)
            except optuna.TrialPruned:
                study.tell(trial, state=TrialState.PRUNED)
            except BaseException as e:  # noqa: BLE001 - told to the study, then raised
                study.tell(trial, state=TrialState.FAIL)
                stop.set()
                errors.append(e)
                return
            else:
                study.tell(trial, value)
            with count:
                running[0] -= 1
                if trial.number not in runner.repeats:
                    done[0] += 1
                    bar.update(1)

    pool = ThreadPoolExecutor(max_workers=max(1, jobs - 1), thread_name_prefix="nbsim-tune")
    futures = [pool.submit(loop) for _ in range(jobs - 1)]
    try:
        loop()                                  # the main thread plays trials too
        for f in futures:
            f.result()
    except KeyboardInterrupt:
        stop.set()
        errors.append(RunInterrupted("interrupted"))
    finally:
        stop.set()
        pool.shutdown(wait=True)
        bar.close()
    if errors:
        e = errors[0]
        if isinstance(e, (RunInterrupted, KeyboardInterrupt)):
            raise RunInterrupted(f"interrupted: {_finished(study)} of {budget} settings "
                                 f"finished; the study ({out / STUDY_DB}) and the run folders "
                                 f"are kept: continue with --resume") from None
        raise e


def trial_table(study, spec: TuneSpec) -> pl.DataFrame:
    """One row per setting the study finished, by trial number (repeats
    left out): trial, state ('complete' or 'pruned'), deals, the varied
    keys' values (TOML text), per target ``<stat>``, ``<stat>_ci_low``,
    ``<stat>_ci_high`` (Float64) and ``<stat>_verdict``, ``objective``
    (Float64; a pruned trial's is that of its partial run), ``centre`` and
    ``run_dir`` (the columns of ``TuneResult.trials``)."""
    from optuna.trial import TrialState
    rows = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)):
        ev = t.user_attrs.get("eval")
        if not ev or "repeat_of" in t.user_attrs:
            continue
        values = t.user_attrs.get("values") or {k: str(v) for k, v in t.params.items()}
        row: dict[str, Any] = {"trial": t.number,
                               "state": "complete" if t.state == TrialState.COMPLETE
                               else "pruned",
                               "deals": t.user_attrs.get("deals")}
        for k in spec.keys:
            row[k.key] = str(values.get(k.key))
        for tg in spec.targets:
            est, lo, hi = ev["stats"][tg.key]
            row[tg.key] = est
            row[f"{tg.key}_ci_low"] = lo
            row[f"{tg.key}_ci_high"] = hi
            row[f"{tg.key}_verdict"] = ev["verdicts"][tg.key]
        row["objective"] = t.value if t.state == TrialState.COMPLETE else ev["objective"]
        row["centre"] = ev["centre"]
        row["run_dir"] = t.user_attrs.get("run_dir")
        rows.append(row)
    schema: dict[str, Any] = {"trial": pl.Int64, "state": pl.String, "deals": pl.Int64}
    schema |= {k.key: pl.String for k in spec.keys}
    for tg in spec.targets:
        schema |= {tg.key: pl.Float64, f"{tg.key}_ci_low": pl.Float64,
                   f"{tg.key}_ci_high": pl.Float64, f"{tg.key}_verdict": pl.String}
    schema |= {"objective": pl.Float64, "centre": pl.Float64, "run_dir": pl.String}
    return pl.DataFrame(rows, schema=schema).sort("trial")


def ranked_settings(trials: pl.DataFrame, spec: TuneSpec) -> list[dict]:
    """The settings best first: complete trials by objective, then centre;
    after them the pruned ones by the objective of their partial run."""
    done = trials.with_columns((pl.col("state") != "complete").alias("_pruned")).sort(
        ["_pruned", "objective", "centre", "trial"]).drop("_pruned")
    seen, out = set(), []
    for r in done.iter_rows(named=True):
        key = tuple(r[k.key] for k in spec.keys)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out
