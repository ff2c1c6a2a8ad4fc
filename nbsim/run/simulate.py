"""``nbsim simulate``: deals of a variant -> Parquet shards + manifest.json.

The folder layout and its readers are in ``nbsim.run.files``; the frames in
``nbsim.run.frames``; this module runs the shards and keeps the manifest.

Deal ``i`` of seed ``S`` is a pure function of (S, i) (``nbsim.kernels.rng``),
so the rows do not depend on the shard size, the number of workers, the
cluster, or on how often a run was interrupted and resumed. Shards cover
deal ranges on a grid of ``shard_size`` deals; each is written to a
temporary file, flushed to disk and renamed, so a shard file is either
whole or absent, whenever the process dies (SIGKILL included). The manifest
is rewritten (temporary file + rename) after each shard, with the shard's
deal range and each file's row count, size and SHA-256.

``--resume`` continues a run: its manifest must match the request (config,
overrides, seed, mode, format, events, policies, nbsim version; a message
names the difference), its shards are verified (``files.verify_run``),
damaged or missing ones are computed again, and a larger ``--deals``
extends it with the following deals of the same seed. A run folder has one
writer at a time (``nbsim.run.lock``).

Local workers are threads of one process: the kernels release the GIL
(``nogil=True``) and so do polars' frame building and Parquet writing, so
threads scale without the start-up and data copies of processes.
``--cluster`` runs the shards as Dask tasks instead (``nbsim.run.cluster``).
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import json
import os
import queue
import shutil
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nbsim.args import stderr_is_terminal
from nbsim.errors import RunError, RunInterrupted
from nbsim.rules.ruleset import RuleSet, as_rules
from nbsim.run import schema as S
from nbsim.run.files import (
    LOCK_FILE,
    MANIFEST,
    MAX_DEALS,
    MAX_SEED,
    REPORT_FILES,
    RUN_FORMAT,
    SHARD_PATTERN,
    TMP_PATTERN,
    read_manifest,
    shard_name,
    verify_run,
    write_atomic,
)
from nbsim.run.lock import RunLock
from nbsim.run.shards import RunSpec, ShardTask, Stop, nbsim_version, run_shard

DEFAULT_SHARD_SIZE = 100_000
EVENTS_SHARD_SIZE = 20_000     # game mode with --events (about 330 event rows per deal)
MATCH_SHARD_SIZE = 2_000       # --format matches: matches per shard (about 22 deals each)
MAX_SHARD_SIZE = 10_000_000
MAX_WORKERS = 256
# rough Parquet bytes per deal (per match for matches) of each kind of run: the
# free-space check before a run needs room for one shard of them
BYTES_PER_UNIT = {"deal": 60, "game": 120, "events": 2_000, "matches": 3_000}


def default_workers() -> int:
    """Worker count used when none is given: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------ results
@dataclass
class RunResult:
    """What ``simulate`` did: the run folder, the deals asked for and done,
    the shard entries of the manifest (in deal order), wall-clock seconds of
    this call, status ('complete' or 'interrupted'), the count of complete
    dealer hands, and the deals this call computed (``new_deals``; 0 when a
    finished run was found)."""
    out: Path
    deals: int
    deals_done: int
    shards: list[dict] = field(default_factory=list)
    elapsed: float = 0.0
    status: str = "complete"
    dealer_complete: int = 0
    new_deals: int = 0
    recomputed: list[str] = field(default_factory=list)
    new_rows: int = 0       # rows of the shards this call wrote (deals of --format matches)


def _check_int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise RunError(f"{name} must be a whole number {lo}..{hi}, got {value!r}")
    if not lo <= int(value) <= hi:
        raise RunError(f"{name} must be {lo}..{hi}, got {value}")
    return int(value)


def make_spec(config, *, deals, seed, mode="deal", shard_size=None, overrides=(),
              policies=None, events=False, fmt="deals") -> RunSpec:
    """Validate a simulate request (see ``simulate``) into a RunSpec.

    Raises RunError (bad mode, format, policies, counts) or ConfigError (bad
    config or override) before anything is written."""
    if mode not in S.MODES:
        raise RunError(f"unknown mode {mode!r}; available modes: {', '.join(S.IMPLEMENTED_MODES)}")
    if mode not in S.IMPLEMENTED_MODES:
        raise RunError(f"mode {mode!r} is not implemented yet (it needs the game engine); "
                       f"available modes: {', '.join(S.IMPLEMENTED_MODES)}")
    if fmt not in ("deals", "matches"):
        raise RunError(f"unknown --format {fmt!r}; allowed: deals, matches")
    if mode == "deal" and (fmt != "deals" or events or policies):
        raise RunError("--format, --events and --policy/--policies need --mode game")
    if mode == "game":
        from nbsim.policy_specs import as_policies
        policies = tuple(p.full for p in as_policies(policies))
    if shard_size is None:
        shard_size = (MATCH_SHARD_SIZE if fmt == "matches" else
                      EVENTS_SHARD_SIZE if events else DEFAULT_SHARD_SIZE)
    deals = _check_int("--deals", deals, 1, MAX_DEALS)
    seed = _check_int("--seed", seed, 0, MAX_SEED)
    shard_size = _check_int("--shard-size", shard_size, 1, MAX_SHARD_SIZE)
    rs = as_rules(config, overrides)
    return RunSpec(rs, mode, fmt, seed, deals, shard_size, tuple(policies or ()), bool(events))


# ------------------------------------------------------------------ the folder
def _owned_files(out: Path) -> list[Path]:
    """Files of a run folder that a run owns (replaced by --overwrite)."""
    files = [p for p in out.iterdir() if p.is_file() and (
        p.name == MANIFEST or p.name == MANIFEST + ".tmp" or SHARD_PATTERN.match(p.name)
        or TMP_PATTERN.match(p.name))]
    files += [out / f for f in REPORT_FILES if (out / f).is_file()]
    return files


def _check_folder(out: Path, overwrite: bool, resume: bool) -> bool:
    """Refuse an unusable --out before any work; True if it holds a run."""
    if overwrite and resume:
        raise RunError("give either --overwrite (replace the run) or --resume (continue it), "
                       "not both")
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    if not out.is_dir():
        return False
    entries = [p for p in out.iterdir() if p.name != LOCK_FILE]
    if not entries:
        return False
    if not (out / MANIFEST).is_file():
        raise RunError(f"--out {str(out)!r} is not empty and holds no nbsim run "
                       f"(no {MANIFEST}); choose a new or empty folder")
    if not (overwrite or resume):
        raise RunError(f"--out {str(out)!r} already holds a run; use --overwrite to replace it, "
                       f"--resume to complete or extend it, or choose another folder")
    return True


def _make_folder(out: Path, need_bytes: int) -> None:
    """Create --out and check it is writable with room for one shard."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".nbsim-write-test-{os.getpid()}"
        probe.write_bytes(b"x")
        probe.unlink()
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot create or write the folder "
                       f"({e.strerror or e})") from None
    free = shutil.disk_usage(out).free
    if free < need_bytes:
        raise RunError(f"--out {str(out)!r}: only {free / 1e6:,.1f} MB free on its disk, and "
                       f"one shard needs about {need_bytes / 1e6:,.1f} MB (1 MB of it kept "
                       f"spare for the manifest and temporary files); free some space or "
                       f"choose another folder")


def _write_json_atomic(path: Path, data: dict) -> None:
    """Write ``data`` as JSON to ``path`` through a flushed temporary file and
    a rename; on an error (a full disk) the temporary file is removed and
    ``path`` keeps its previous content. Raises OSError."""
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    write_atomic(path, text.encode("utf-8"), path.with_name(path.name + ".tmp"))


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _versions() -> dict:
    import numba
    import polars as pl
    return {"nbsim": nbsim_version(), "numba": numba.__version__, "numpy": np.__version__,
            "polars": pl.__version__, "python": sys.version.split()[0]}


def _new_manifest(spec: RunSpec, workers: int) -> dict:
    from nbsim.kernels import rng as KR
    rs = spec.rs
    text = Path(rs.source).read_text(encoding="utf-8") if Path(rs.source).is_file() else ""
    schema_mode = "match" if spec.fmt == "matches" else spec.mode
    m = {
        "format": RUN_FORMAT,
        "run_id": uuid.uuid4().hex,
        "nbsim_version": nbsim_version(),
        "versions": _versions(),
        "mode": spec.mode,
        "game_format": spec.fmt,
        "policies": list(spec.policies) or None,
        "events": spec.events,
        "config": {"name": rs.name, "source": rs.source, "hash": rs.hash,
                   "text_sha256": hashlib.sha256(text.encode()).hexdigest(), "text": text},
        "overrides": list(rs.overrides),
        "rules": rs.to_dict(),
        "seed": spec.seed,
        "deals": spec.deals,
        "deals_done": 0,
        "dealer_complete": 0,
        "shard_size": spec.shard_size,
        "workers": workers,
        "status": "running",
        "started": _now(),
        "finished": None,
        "elapsed_s": None,
        "shards": [],
        "schema": S.schema_json(schema_mode, rs),
        "rng": {"algorithm": "SplitMix64 counter-based streams (nbsim/kernels/rng.py)",
                "streams": {"wall": KR.STREAM_WALL, "dice": KR.STREAM_DICE,
                            "round_wind": KR.STREAM_ROUND_WIND,
                            "policy": f"{KR.STREAM_POLICY} + seat"}},
    }
    if spec.fmt == "matches":
        m["units"] = "matches"
        m["match_seed"] = "deal j of match m is deal j of seed rng.deal_key(seed, m)"
    return m


_IDENTITY_NAMES = {"config": "config (rules hash)", "overrides": "--set overrides",
                   "seed": "--seed", "mode": "--mode", "game_format": "--format",
                   "events": "--events", "policies": "policies",
                   "nbsim_version": "nbsim version"}


def manifest_identity(manifest: dict) -> dict:
    """The keys of a manifest that decide its rows (as ``RunSpec.identity``)."""
    return {"config": (manifest.get("config") or {}).get("hash"),
            "overrides": list(manifest.get("overrides") or []),
            "seed": manifest.get("seed"), "mode": manifest.get("mode"),
            "game_format": manifest.get("game_format", "deals"),
            "events": bool(manifest.get("events", False)),
            "policies": current_specs(manifest.get("policies")) or None,
            "nbsim_version": manifest.get("nbsim_version")}


def current_specs(policies):
    """A manifest's policy specs in this version's full form: a parameter added
    since the run was written takes the value that plays as the policy did
    before it existed (``policy_specs.parse_written``; the rule for a new
    parameter: docs/layout.md), so such a run still resumes and is never
    taken for a run of a changed default. Specs that no longer parse stay as
    written."""
    from nbsim.policy_specs import parse_written
    if not policies:
        return policies
    out = []
    for p in policies:
        try:
            out.append(parse_written(p).full)
        except (TypeError, ValueError):       # NbsimError is a ValueError
            out.append(p)
    return out


def differences(spec: RunSpec, manifest: dict) -> list[str]:
    """How a request differs from a run's manifest (empty: it continues that
    run): one phrase per key, e.g. "--seed is 5, the run's is 4"."""
    want, have = spec.identity(), manifest_identity(manifest)
    diffs = []
    for key, label in _IDENTITY_NAMES.items():
        if want[key] != have[key]:
            diffs.append(f"{label} is {_show(want[key])}, the run's is {_show(have[key])}")
    if manifest.get("format") != RUN_FORMAT:
        diffs.append(f"the run's format is {manifest.get('format')!r}, not {RUN_FORMAT!r}")
    return diffs


def _show(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(map(str, v)) + "]" if v else "none"
    return "none" if v is None else repr(v) if isinstance(v, str) else str(v)


def pending_ranges(deals: int, shard_size: int, done: list[tuple[int, int]]):
    """The deal ranges [a, b) of [0, deals) that no range in ``done`` covers,
    cut on the grid of ``shard_size`` (so a resumed run has the shard
    boundaries of an uninterrupted one wherever it can). A generator."""
    pos = 0
    for a, b in sorted(done) + [(deals, deals)]:
        while pos < min(a, deals):
            nxt = min((pos // shard_size + 1) * shard_size, a, deals)
            yield pos, nxt
            pos = nxt
        pos = max(pos, b)


def run_status(config, *, deals, seed, out, mode="deal", shard_size=None, overrides=(),
               policies=None, events=False, fmt="deals", checksums=False) -> str:
    """Whether ``out`` already holds the run that ``simulate`` with these
    arguments would make (for sweeps that skip finished runs).

    Returns 'complete' (a finished run matching the request, exactly
    ``deals`` deals, shards intact), 'partial' (the same run, unfinished or
    shorter: ``simulate(..., resume=True)`` completes it), 'different' (a run
    of other arguments, or of more deals than asked for), or 'absent' (no
    run). checksums: also hash every
    shard (slow on big runs; sizes and ranges are always checked). Raises
    RunError/ConfigError for bad arguments, as simulate does."""
    spec = make_spec(config, deals=deals, seed=seed, mode=mode, shard_size=shard_size,
                     overrides=overrides, policies=policies, events=events, fmt=fmt)
    out = Path(out)
    if not (out / MANIFEST).is_file():
        return "absent"
    manifest = read_manifest(out)
    if differences(spec, manifest):
        return "different"
    planned = manifest.get("deals", 0)
    if not isinstance(planned, int) or planned > spec.deals:
        return "different"
    check = verify_run(out, manifest, checksums=checksums)
    if check.complete and planned == spec.deals:
        return "complete"
    return "partial"


def reuse_status(config, *, out, overwrite: bool, **request) -> str:
    """``run_status`` of ``out`` for a command that reuses finished runs
    (sweep, band), refusing to replace a run of another request unless
    ``overwrite``: finished work is never lost silently. ``request``: the
    keyword arguments of ``run_status`` but ``out``. Raises RunError naming
    the folder and how its run differs (e.g. "--seed is 2, the run's is 1")."""
    status = run_status(config, out=out, **request)
    if status == "different" and not overwrite:
        spec = make_spec(config, **{k: v for k, v in request.items() if k != "checksums"})
        manifest = read_manifest(Path(out))
        why = differences(spec, manifest) or [
            f"it holds {manifest.get('deals')} deals, more than the {spec.deals:,} asked for"]
        raise RunError(f"{str(out)!r} holds a run of another request ({'; '.join(why)}); "
                       f"give another --out, or --overwrite to replace such runs")
    return status


# ------------------------------------------------------------------ the run
class _Recorder:
    """Keeps the manifest in step with the finished shards (thread-safe)."""

    def __init__(self, path: Path, manifest: dict, bar):
        self.path, self.manifest, self.bar = path, manifest, bar
        self.lock = threading.Lock()
        self.by_file = {s["file"]: s for s in manifest["shards"]}
        self.new_deals = 0
        self.new_rows = 0
        self.ticked: dict[int, int] = {}   # deals shown so far per running shard index
        self.recorded: set[int] = set()     # shard indices recorded by this call
        self._sync()

    def _sync(self):
        shards = sorted(self.by_file.values(), key=lambda s: s["first_deal"])
        self.manifest["shards"] = shards
        self.manifest["deals_done"] = sum(s["deals"] for s in shards)
        self.manifest["dealer_complete"] = sum(s.get("dealer_complete", 0) for s in shards)

    def tick(self, index: int, n: int, size: int) -> None:
        """Progress within shard ``index`` (``size`` deals): ``n`` more deals
        done. Thread-safe; a shard's count is capped at its size (a Dask task
        computed again reports again), and ticks after it is recorded are
        dropped (Dask events can arrive late)."""
        with self.lock:
            if index in self.recorded:
                return
            have = self.ticked.get(index, 0)
            n = min(int(n), size - have)
            if n <= 0:
                return
            self.ticked[index] = have + n
        self.bar.update(n)

    def record(self, info: dict) -> None:
        """Add a finished shard (once: a repeat of the same file is ignored),
        and move the bar by its deals not yet ticked."""
        with self.lock:
            if info["file"] in self.by_file:       # a lost Dask task computed twice
                return
            self.by_file[info["file"]] = info
            self.recorded.add(info["index"])
            self.new_deals += info["deals"]
            self.new_rows += info.get("rows", 0)
            self._sync()
            _write_json_atomic(self.path, self.manifest)
            rest = info["deals"] - self.ticked.pop(info["index"], 0)
        if rest > 0:
            self.bar.update(rest)

    def save(self) -> None:
        with self.lock:
            _write_json_atomic(self.path, self.manifest)


def _shard_tasks(spec: RunSpec, run_id: str, ranges, used: set[str]):
    """ShardTasks for pending ranges: index = grid position when that file
    name is free, else the next free index past the grid (a generator)."""
    nxt = -(-spec.deals // spec.shard_size)
    for a, b in ranges:
        idx = a // spec.shard_size
        if a % spec.shard_size or shard_name(idx) in used:
            while shard_name(nxt) in used:
                nxt += 1
            idx = nxt
        used.add(shard_name(idx))
        yield ShardTask(spec, run_id, idx, a, b)


RESUME_HINT = "continue with --resume"


@contextlib.contextmanager
def rerun_to_resume(command: str):
    """For a command that resumes its own partial runs when it is run again
    (``nbsim sweep``, ``nbsim band``), which has no ``--resume``: a
    RunInterrupted raised by ``simulate`` inside the block is raised again
    saying to run ``command`` again instead (its finished shards are kept
    either way)."""
    try:
        yield
    except RunInterrupted as e:
        raise RunInterrupted(str(e).replace(
            RESUME_HINT, f"run the same {command} again to continue")) from None


POLL_S = 0.05          # how often the main thread looks for a stop request
STOP_GRACE_S = 1.5     # after one: how long running shards may take to stop and write


@contextlib.contextmanager
def _signals_stop(stop: Stop):
    """While a run's shards work: SIGINT (Ctrl-C) and SIGTERM ask them to
    stop (``stop.request``) instead of raising in the main thread, so no
    bookkeeping is cut short. Yields the list of signal numbers received
    (a second one cuts the wait for the running shards short). In a thread
    other than the main one (signals cannot be caught there) and for a
    signal this process ignores (a shell's background job), nothing
    changes."""
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return

    def handler(signum, frame):
        got.append(signum)
        stop.request()

    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) != signal.SIG_IGN:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield got
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _run_threads(tasks, out: Path, workers: int, rec: _Recorder, external=None) -> bool:
    """Run shard tasks on ``workers`` threads, recording each as it finishes.

    The shards run in daemon threads and the calling thread only hands out
    tasks, waits and records: at most 2 x workers shards are queued (1 with
    one worker). Ctrl-C, SIGTERM (``_signals_stop``), ``external.is_set()``
    or an error ask the shards to stop (``shards.Stop``): each stops after
    its current kernel call (``frames.Pace``: a fraction of a second, a deal
    of a search policy) and writes and records the deals it finished. A
    shard still running ``STOP_GRACE_S`` seconds after the request (or at a
    second signal) is left behind: it writes nothing, and its thread, a
    daemon, never holds up the end of the process. Returns True when a
    signal or ``external`` stopped the run; raises the first error."""
    stop = Stop()
    todo: queue.Queue = queue.Queue()
    results: queue.Queue = queue.Queue()

    def work():
        while (task := todo.get()) is not None:
            if stop.requested:
                results.put((None, None))
                continue
            try:
                info = run_shard(task, out, lambda n, t=task: rec.tick(t.index, n,
                                                                       t.stop - t.start),
                                 stop=stop)
            except BaseException as e:     # noqa: BLE001 - re-raised by the main thread
                results.put((None, e))
            else:
                results.put((info, None))

    threads = [threading.Thread(target=work, daemon=True, name=f"nbsim-shard-{i}")
               for i in range(workers)]
    for t in threads:
        t.start()
    depth = 2 * workers if workers > 1 else 1
    tasks = iter(tasks)
    outstanding = 0                        # tasks handed out and not yet answered
    errors: list[BaseException] = []
    interrupted = False
    deadline = None
    with _signals_stop(stop) as got:
        try:
            while True:
                if external is not None and external.is_set():
                    stop.request()
                if stop.requested and deadline is None:
                    interrupted = interrupted or not errors
                    deadline = time.monotonic() + STOP_GRACE_S
                while not stop.requested and outstanding < depth:
                    task = next(tasks, None)
                    if task is None:
                        break
                    todo.put(task)
                    outstanding += 1
                if outstanding == 0 or deadline is not None and (
                        time.monotonic() >= deadline or len(got) > 1):
                    break
                try:
                    info, err = results.get(timeout=POLL_S)
                except queue.Empty:
                    continue
                outstanding -= 1
                if err is not None:
                    errors.append(err)
                    stop.request()
                elif info is not None:
                    rec.record(info)
        except KeyboardInterrupt:          # a signal not caught by _signals_stop
            interrupted = True
        finally:
            stop.close()                   # the shards still running write nothing
            for _ in threads:
                todo.put(None)
            while True:                    # shards that finished meanwhile
                try:
                    info, err = results.get_nowait()
                except queue.Empty:
                    break
                if info is not None:
                    rec.record(info)
    if errors:
        raise errors[0]
    return interrupted


def simulate(config: str | Path | RuleSet, *, deals: int, seed: int, out: str | Path,
             mode: str = "deal", shard_size: int | None = None, workers: int | None = None,
             overwrite: bool = False, resume: bool = False, overrides=(),
             progress: bool | None = None, policies: tuple[str, ...] | None = None,
             events: bool = False, fmt: str = "deals", cluster: str | None = None,
             stop=None) -> RunResult:
    """Simulate ``deals`` deals of a variant and write (or complete) a run folder.

    Args:
        config: config path, shipped config name, or a loaded RuleSet.
        deals: number of deals (1 .. 2**62); seed: 0 .. 2**64 - 1.
        out: run folder (created; an existing run needs ``overwrite`` or
            ``resume``).
        mode: 'deal' (deal, flower replacement, heavenly-hand check) or
            'game' (deals played out by bots, docs/rules.md §4-§8).
        policies: game mode: policy name per seat from the dealer
            (``nbsim.policy_specs.as_policies``: one spec for every seat, or
            four; default: the default policy, defend); with
            fmt='matches', per player.
        events: game mode: also write the event log (events-*.parquet).
        fmt: game mode: 'deals' (independent deals, the default) or
            'matches' (``deals`` then counts whole matches).
        shard_size: deals (matches) per Parquet shard (1 .. 10,000,000;
            None: 100,000 deals, 20,000 with events, 2,000 matches; a
            resumed run keeps its own). Changes no row.
        workers: local worker threads (1 .. 256; None: every core), or with
            ``cluster`` the LocalCluster's worker processes. Changes no row.
        overwrite: replace a run in ``out``.
        resume: complete the run in ``out`` (its missing, damaged or
            unlisted shards are computed again), or extend it to a larger
            ``deals``; the request must match its manifest. Without a run
            in ``out``, starts one.
        overrides: ``--set`` strings (``"win.min_tai=5"``) when config is
            not a RuleSet.
        progress: tqdm bar on stderr counting deals; None = only when
            stderr is a terminal.
        cluster: None (threads), 'local' (a Dask LocalCluster on the
            loopback) or a scheduler address 'tcp://HOST:PORT'
            (``nbsim.run.cluster``; needs ``pip install 'nbsim[cluster]'``).
        stop: None, or an object with ``is_set()`` (a ``threading.Event``)
            that another thread sets to stop the run as Ctrl-C does
            (threads only, not with ``cluster``).
    Returns:
        RunResult. Raises ConfigError (bad config or override), RunError
        (bad arguments or folder, a request that differs from the run to
        resume, a folder locked by another writer, a disk that filled up:
        the finished shards and a consistent manifest are kept) or
        RunInterrupted (Ctrl-C, SIGTERM or ``stop``; likewise kept). Every
        argument is checked before any work starts.

    Ctrl-C and SIGTERM (caught while the shards run, when ``simulate`` is
    called from the main thread) stop the run within about two seconds:
    every running shard stops after its current kernel call (about 0.2 s,
    or one deal of a search policy) and keeps the deals it finished as a
    shard of its own; a shard that does not stop in time is dropped (its
    thread writes nothing). A run whose every deal was done when the stop
    came is complete, not interrupted.
    """
    spec = make_spec(config, deals=deals, seed=seed, mode=mode, shard_size=shard_size,
                     overrides=overrides, policies=policies, events=events, fmt=fmt)
    workers = default_workers() if workers is None else _check_int("--workers", workers, 1,
                                                                   MAX_WORKERS)
    if cluster is not None:
        from nbsim.run.cluster import check_cluster_address
        check_cluster_address(cluster)
    out = Path(out)
    has_run = _check_folder(out, overwrite, resume)
    unit = ("matches" if spec.fmt == "matches" else "events" if spec.events else spec.mode)
    _make_folder(out, BYTES_PER_UNIT[unit] * min(spec.shard_size, spec.deals) + (1 << 20))
    lock = RunLock(out).acquire()
    try:
        return _simulate_locked(spec, out, workers, has_run and resume, has_run and overwrite,
                                progress, cluster, shard_size, stop)
    finally:
        lock.release()


def _resume_manifest(spec: RunSpec, out: Path, shard_size_given: int | None, workers: int):
    """The manifest of the run to continue, checked against ``spec``; returns
    (manifest, spec with the run's shard size, names of shards to redo)."""
    from nbsim.run.files import read_run_manifest
    manifest = read_run_manifest(out)
    diffs = differences(spec, manifest)
    if diffs:
        raise RunError(f"--resume: {out} holds a different run: " + "; ".join(diffs)
                       + " (use the run's own arguments, or --overwrite to replace it)")
    old_size = manifest.get("shard_size")
    if shard_size_given is not None and shard_size_given != old_size:
        raise RunError(f"--resume: --shard-size is {shard_size_given}, the run's is {old_size} "
                       f"(leave it out to keep the run's)")
    if not isinstance(old_size, int) or old_size < 1:
        raise RunError(f"--resume: {out / MANIFEST} has no valid shard_size")
    if spec.deals < manifest.get("deals", 0):
        raise RunError(f"--resume: --deals is {spec.deals:,}, the run already has "
                       f"{manifest['deals']:,} deals planned; give at least that many "
                       f"(more extends the run)")
    check = verify_run(out, manifest, checksums=True)
    redo = [p for p in check.problems if p.kind != "gap"]
    bad = {id(s) for s in check.bad_shards}
    manifest["shards"] = [s for s in manifest.get("shards", []) if id(s) not in bad]
    listed = {n for s in manifest["shards"] for n in _entry_files(s)}
    for p in out.iterdir():                       # unlisted or damaged files: ours, redo them
        if (SHARD_PATTERN.match(p.name) or TMP_PATTERN.match(p.name)) and p.name not in listed:
            p.unlink()
    spec = RunSpec(spec.rs, spec.mode, spec.fmt, spec.seed, spec.deals, old_size,
                   spec.policies, spec.events)
    manifest["deals"] = spec.deals
    manifest["workers"] = workers
    manifest.setdefault("resumed", []).append(_now())
    manifest["run_id"] = manifest.get("run_id") or uuid.uuid4().hex
    return manifest, spec, [str(p) for p in redo]


def _entry_files(entry: dict) -> list[str]:
    names = list((entry.get("files") or {}).keys())
    return names + [entry[k] for k in ("file", "events_file", "matches_file")
                    if isinstance(entry.get(k), str) and entry[k] not in names]


def _simulate_locked(spec, out, workers, resume, overwrite, progress, cluster, size_given,
                     stop=None):
    mpath = out / MANIFEST
    redo: list[str] = []
    if resume:
        manifest, spec, redo = _resume_manifest(spec, out, size_given, workers)
        if redo:
            print(f"nbsim: recomputing shards of {out}: " + "; ".join(redo[:5])
                  + (f"; and {len(redo) - 5} more" if len(redo) > 5 else ""), file=sys.stderr)
    else:
        if overwrite:
            for f in _owned_files(out):
                f.unlink()
        manifest = _new_manifest(spec, workers)
    manifest["status"] = "running"
    manifest["workers"] = workers
    manifest["cluster"] = cluster
    manifest.pop("error", None)
    done = [(s["first_deal"], s["first_deal"] + s["deals"]) for s in manifest["shards"]]
    used = {n for s in manifest["shards"] for n in _entry_files(s)}
    tasks = _shard_tasks(spec, manifest["run_id"], pending_ranges(spec.deals, spec.shard_size,
                                                                  done), used)
    if progress is None:
        progress = stderr_is_terminal()
    if tasks and cluster is None:
        from nbsim.warmup import ensure_compiled
        if spec.mode == "game" and spec.fmt == "deals":
            from nbsim.kernels.policies.catalog import SEARCH
            from nbsim.policy_specs import parse_policy
            ensure_compiled("game", clock=progress)   # says so before a first compile
            if any(parse_policy(p).name in SEARCH for p in spec.policies):
                ensure_compiled("lookahead", clock=progress)   # the engine with a search policy
        elif spec.mode == "game":
            ensure_compiled("game", clock=progress)   # whole matches load the engine from it
            ensure_compiled("match", clock=progress)
        else:
            ensure_compiled("deal", clock=progress)
    from tqdm import tqdm
    unit = "match" if spec.fmt == "matches" else "deal"
    bar = tqdm(total=spec.deals, initial=sum(b - a for a, b in done), unit=unit,
               unit_scale=True, disable=not progress, mininterval=0.25,
               desc=f"{spec.rs.name} seed {spec.seed}", file=sys.stderr)
    rec = _Recorder(mpath, manifest, bar)
    t0 = time.perf_counter()
    status, failure = "complete", None
    try:
        rec.save()
        if cluster is None:
            if _run_threads(tasks, out, workers, rec, stop):
                status = "interrupted"
        else:
            from nbsim.run.cluster import run_on_cluster
            try:
                run_on_cluster(cluster, tasks, out, workers, rec)
            except RunError as e:
                raise RunError(f"{e}; the run folder {out} is kept: run the same command "
                               f"with --resume to continue") from None
    except KeyboardInterrupt:
        status = "interrupted"
    except OSError as e:
        status = "failed"
        failure = e
    finally:
        bar.close()
        for p in out.iterdir():
            if TMP_PATTERN.match(p.name) and p.name.split(".")[-2].split("-")[0] == str(
                    os.getpid()):
                p.unlink(missing_ok=True)
        elapsed = time.perf_counter() - t0
        if manifest["deals_done"] == spec.deals and failure is None:
            status = "complete"        # every shard finished, whatever came after
        elif status == "complete":
            status = "failed"
        manifest["status"] = status
        manifest["finished"] = _now()
        manifest["elapsed_s"] = round(elapsed, 3)
        if failure is not None:
            manifest["error"] = f"{type(failure).__name__}: {failure}"
        recorded = manifest
        try:
            rec.save()
        except OSError as e:            # the disk is full: the previous manifest stays valid
            failure = failure or e
            with contextlib.suppress(RunError):     # the manifest as last saved
                recorded = read_manifest(out)
    result = RunResult(out=out, deals=spec.deals, deals_done=manifest["deals_done"],
                       shards=list(manifest["shards"]), elapsed=elapsed, status=status,
                       dealer_complete=manifest.get("dealer_complete", 0),
                       new_deals=rec.new_deals, recomputed=redo, new_rows=rec.new_rows)
    done_text = (f"{recorded['deals_done']:,} of {spec.deals:,} {unit}s done; "
                 f"{len(recorded['shards'])} finished shards and manifest.json kept in {out}")
    if recorded is not manifest and len(recorded["shards"]) < len(manifest["shards"]):
        more = len(manifest["shards"]) - len(recorded["shards"])
        done_text += (f" ({more} more shard{'s' if more > 1 else ''} finished but could not "
                      f"be recorded: --resume checks and records {'them' if more > 1 else 'it'})")
    if status == "interrupted":
        raise RunInterrupted(f"interrupted: {done_text}; {RESUME_HINT}")
    if failure is not None:
        why = ("the disk is full" if getattr(failure, "errno", None) == errno.ENOSPC
               else f"cannot write ({getattr(failure, 'strerror', None) or failure})")
        raise RunError(f"{out}: {why}: {done_text}; free some space and continue with "
                       f"--resume") from None
    if status != "complete":    # pragma: no cover - every shard is recorded or raises
        raise RunError(f"{out}: the run stopped early: {done_text}; continue with --resume")
    return result


# the frame builders of nbsim.run.frames, callable from here too
def deal_frame(rules, seed: int, start: int, stop: int, tables=None):
    """Deals ``start .. stop - 1`` of ``seed`` in the deal-mode schema
    (``nbsim.run.frames.deal_frame``)."""
    from nbsim.run.frames import deal_frame as _deal_frame
    return _deal_frame(rules, seed, start, stop, tables)
