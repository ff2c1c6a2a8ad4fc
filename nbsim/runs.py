"""``nbsim simulate``: deals of a variant -> Parquet shards + manifest.json.

A run folder holds:
    manifest.json          what was run (config text and hash, overrides, seed,
                           nbsim version, mode, schema, deal count) and how far
                           it got (``status``, ``deals_done``, ``shards``)
    shard-00000.parquet    deals [0, K), then [K, 2K), ... (K = shard size)

Deal ``i`` of seed ``S`` is a pure function of (S, i) (``nbsim.kernels.rng``),
so the rows do not depend on the shard size or the number of workers. Shards
are written (temporary file + rename) as soon as they finish, and the manifest
is rewritten after each one: after Ctrl-C the folder keeps every finished
shard and a manifest with ``status = "interrupted"`` and the number of deals
done; ``nbsim report`` reads such a folder and says it is incomplete.

Workers are threads of a ``concurrent.futures.ThreadPoolExecutor``: the deal
kernel releases the GIL, and polars writes Parquet outside it.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from nbsim import schema as S
from nbsim.errors import RunError, RunInterrupted
from nbsim.kernels import batch as KB
from nbsim.kernels import codes as C
from nbsim.kernels import rng as KR
from nbsim.kernels.wilds import wild_kinds
from nbsim.rules import RuleSet, as_rules
from nbsim.tiles import KIND_NAMES, format_tiles

MANIFEST = "manifest.json"
SHARD_GLOB = "shard-*.parquet"
# files ``nbsim report`` writes (replaced with the run by --overwrite)
REPORT_MD = "report.md"
SUMMARY_JSON = "summary.json"
PLOT_FILES = ("heavenly_by_wilds.png", "wilds_per_seat.png", "flowers_per_seat.png")
REPORT_FILES = (REPORT_MD, SUMMARY_JSON) + PLOT_FILES
DEFAULT_SHARD_SIZE = 100_000
EVENTS_SHARD_SIZE = 20_000     # game mode with --events (about 330 event rows per deal)
MATCH_SHARD_SIZE = 2_000       # --format matches: matches per shard (about 22 deals each)
MAX_SHARD_SIZE = 10_000_000
MAX_SEED = 2**64 - 1
MAX_DEALS = 2**62


def shard_name(index: int) -> str:
    """File name of shard ``index`` (``shard-00012.parquet``)."""
    return f"shard-{index:05d}.parquet"


# ------------------------------------------------------------------ one shard
def _strings(data: np.ndarray, offsets: np.ndarray, n: int, name: str) -> pl.Series:
    arr = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))
    return pl.from_arrow(arr).alias(name)


def _lookup_tables(rules: np.ndarray):
    """Notation look-ups by indicator kind (index 42 = no indicator) and by
    flower bit mask."""
    ind = pl.Series("indicator", list(KIND_NAMES) + [None], dtype=pl.String)
    wk = [[KIND_NAMES[k] for k in wild_kinds(rules, i)] for i in range(C.N_KINDS)] + [[]]
    wild = pl.Series("wild_kinds", wk, dtype=pl.List(pl.String))
    flowers = pl.Series("flowers", [format_tiles([C.FLOWER0 + f for f in range(8) if m >> f & 1])
                                    for m in range(256)], dtype=pl.String)
    return ind, wild, flowers


def deal_columns(arr: np.ndarray, seed: int, start: int, hands, flowers, wilds, dice, ind,
                 comp) -> dict[str, pl.Series]:
    """The deal-mode columns (``nbsim.schema``) from the deal kernel's arrays
    for deals ``start .. start + n - 1``: hands int8[n, 4, 42], flowers
    uint8[n, 4] bit masks, wilds uint8[n, 4], dice uint8[n, 4], ind int8[n]
    (indicator kind or -1), comp bool[n]. Shared by deal and game mode."""
    n = hands.shape[0]
    ind_lut, wild_lut, flower_lut = _lookup_tables(arr)
    ind_idx = np.where(ind < 0, C.N_KINDS, ind).astype(np.int64)
    n_dice = 2 * int(arr[C.R_DICE_THROWS])
    cols: dict[str, pl.Series] = {
        "deal": pl.Series("deal", np.arange(start, start + n, dtype=np.int64)),
        "seed": pl.Series("seed", np.full(n, seed, dtype=np.uint64)),
        "dice": pl.Series("dice", np.ascontiguousarray(dice[:, :n_dice])).cast(pl.List(pl.UInt8)),
        "indicator": ind_lut.gather(ind_idx).alias("indicator"),
        "wild_kinds": wild_lut.gather(ind_idx).alias("wild_kinds"),
        "dealer_complete": pl.Series("dealer_complete", comp),
    }
    data = np.empty((4, n * KB.MAX_HAND_TEXT + 4), np.uint8)
    offsets = np.empty((4, n + 1), np.int32)
    used = np.zeros(4, np.int64)
    KB.format_hands(hands, KB.SUIT_LETTERS, data, offsets, used)
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"hand_{suf}"] = _strings(data[s, :used[s]], offsets[s], n, f"hand_{suf}")
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"flowers_{suf}"] = flower_lut.gather(flowers[:, s].astype(np.int64)).alias(
            f"flowers_{suf}")
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"wilds_{suf}"] = pl.Series(f"wilds_{suf}", np.ascontiguousarray(wilds[:, s]))
    return cols


def deal_frame(rules: RuleSet | np.ndarray, seed: int, start: int, stop: int,
               tables=None) -> pl.DataFrame:
    """Deals ``start .. stop - 1`` of ``seed`` as a DataFrame in the deal-mode
    schema (``nbsim.schema``; RULES.md sections 2, 3, 5).

    rules: a RuleSet or its int64[R_LEN] array; seed: 0 .. 2**64 - 1;
    tables: ``nbsim.tables.load_tables()`` (loaded if None)."""
    arr = rules.array if isinstance(rules, RuleSet) else rules
    if tables is None:
        from nbsim.tables import load_tables
        tables = load_tables()
    n = stop - start
    hands = np.empty((n, 4, C.N_KINDS), np.int8)
    flowers = np.empty((n, 4), np.uint8)
    wilds = np.empty((n, 4), np.uint8)
    dice = np.empty((n, 4), np.uint8)
    ind = np.empty(n, np.int8)
    comp = np.empty(n, np.bool_)
    res = KB.deal_batch(arr, np.uint64(seed), np.int64(start), tables, hands, flowers,
                        wilds, dice, ind, comp)
    if res < 0:  # pragma: no cover - a 144-tile wall always suffices
        raise RunError(f"deal kernel failed in deals {start}..{stop - 1}")
    cols = deal_columns(arr, seed, start, hands, flowers, wilds, dice, ind, comp)
    df = pl.DataFrame([cols[c] for c in S.column_order("deal")])
    return df.cast(dict(S.schema("deal")))


# ------------------------------------------------------------------ the run
@dataclass
class RunResult:
    """What ``simulate`` did: the run folder, the deals asked for and done,
    the shard files (in deal order), wall-clock seconds, and status
    ('complete' or 'interrupted')."""
    out: Path
    deals: int
    deals_done: int
    shards: list[dict] = field(default_factory=list)
    elapsed: float = 0.0
    status: str = "complete"
    dealer_complete: int = 0


def _check_int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise RunError(f"{name} must be a whole number {lo}..{hi}, got {value!r}")
    if not lo <= int(value) <= hi:
        raise RunError(f"{name} must be {lo}..{hi}, got {value}")
    return int(value)


def _owned_files(out: Path) -> list[Path]:
    files = [out / MANIFEST, *out.glob(SHARD_GLOB), *out.glob("shard-*.tmp"),
             *out.glob("events-*.parquet"), *out.glob("matches-*.parquet"),
             *out.glob("events-*.tmp"), *out.glob("matches-*.tmp")]
    files += [out / f for f in REPORT_FILES]
    from nbsim.plots import GAME_PLOT_FILES
    files += [out / f for f in GAME_PLOT_FILES]
    return [f for f in files if f.is_file()]


def prepare_out_dir(out: str | Path, overwrite: bool) -> Path:
    """Create or clear the run folder. An existing run (manifest.json) is only
    replaced with ``overwrite`` (its shards, manifest and report files are
    deleted; other files are left alone). A non-empty folder that is not a run
    is refused. Raises RunError with the reason."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {str(out)!r} exists and is not a folder")
    if out.is_dir():
        entries = list(out.iterdir())
        if entries:
            if not (out / MANIFEST).is_file():
                raise RunError(f"--out {str(out)!r} is not empty and holds no nbsim run "
                               f"(no {MANIFEST}); choose a new or empty folder")
            if not overwrite:
                raise RunError(f"--out {str(out)!r} already holds a run; use --overwrite to "
                               f"replace it, or choose another folder")
            for f in _owned_files(out):
                f.unlink()
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".nbsim-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise RunError(f"--out {str(out)!r}: cannot create or write the folder "
                       f"({e.strerror or e})") from None
    return out


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _versions() -> dict:
    import numba

    from nbsim import __version__
    return {"nbsim": __version__, "numba": numba.__version__, "numpy": np.__version__,
            "polars": pl.__version__, "python": sys.version.split()[0]}


def _manifest(rs: RuleSet, mode, seed, deals, shard_size, workers, *, fmt="deals",
              policies=None, events=False) -> dict:
    text = Path(rs.source).read_text(encoding="utf-8") if Path(rs.source).is_file() else ""
    schema_mode = "match" if fmt == "matches" else mode
    m = {
        "format": "nbsim-run/1",
        "nbsim_version": _versions()["nbsim"],
        "versions": _versions(),
        "mode": mode,
        "game_format": fmt,
        "policies": list(policies) if policies else None,
        "events": bool(events),
        "config": {"name": rs.name, "source": rs.source, "hash": rs.hash,
                   "text_sha256": hashlib.sha256(text.encode()).hexdigest(), "text": text},
        "overrides": list(rs.overrides),
        "rules": rs.to_dict(),
        "seed": seed,
        "deals": deals,
        "deals_done": 0,
        "shard_size": shard_size,
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
    if fmt == "matches":
        m["units"] = "matches"
        m["match_seed"] = "deal j of match m is deal j of seed rng.deal_key(seed, m)"
    return m


@dataclass(frozen=True)
class _Job:
    """What every shard of a run needs (picklable, shared by the workers)."""
    rs: RuleSet
    mode: str
    fmt: str
    seed: int
    policies: tuple
    events: bool


def _write_parquet(df: pl.DataFrame, path: Path) -> None:
    tmp = path.with_name(path.name[:-len(".parquet")] + ".tmp")
    df.write_parquet(tmp, compression="zstd", statistics=True)
    os.replace(tmp, path)


def _shard_job(job: _Job, index, start, stop, out: Path, tables) -> dict:
    info = {"file": shard_name(index), "first_deal": start, "deals": stop - start}
    ev = None
    if job.mode == "deal":
        df = deal_frame(job.rs.array, job.seed, start, stop, tables)
    elif job.fmt == "matches":
        from nbsim.game import match_frame
        df, totals, ev = match_frame(job.rs, job.seed, start, stop, job.policies, tables,
                                     job.events)
        _write_parquet(totals, out / f"matches-{index:05d}.parquet")
        info["matches_file"] = f"matches-{index:05d}.parquet"
        info["rows"] = df.height
    else:
        from nbsim.game import game_frame
        df, ev = game_frame(job.rs, job.seed, start, stop, job.policies, tables, job.events)
    if ev is not None:
        _write_parquet(ev, out / f"events-{index:05d}.parquet")
        info["events_file"] = f"events-{index:05d}.parquet"
    _write_parquet(df, out / shard_name(index))
    info["dealer_complete"] = int(df["dealer_complete"].sum())
    return info


def simulate(config: str | Path | RuleSet, *, deals: int, seed: int, out: str | Path,
             mode: str = "deal", shard_size: int | None = None, workers: int = 1,
             overwrite: bool = False, overrides=(), progress: bool | None = None,
             policies: tuple[str, ...] | None = None, events: bool = False,
             fmt: str = "deals") -> RunResult:
    """Simulate ``deals`` deals of a variant and write a run folder.

    Args:
        config: config path, shipped config name, or a loaded RuleSet.
        deals: number of deals (1 .. 2**62); seed: 0 .. 2**64 - 1.
        out: run folder (created; an existing run needs ``overwrite``).
        mode: 'deal' (deal, flower replacement, heavenly-hand check) or
            'game' (deals played out by bots, RULES.md sections 4-8).
        policies: game mode: policy name per seat from the dealer
            (``nbsim.game.parse_policies``; default value x 4); with
            fmt='matches', per player.
        events: game mode: also write the event log (events-*.parquet).
        fmt: game mode: 'deals' (independent deals, the default) or
            'matches' (``deals`` then counts whole matches).
        shard_size: deals (matches) per Parquet shard (1 .. 10,000,000;
            None: 100,000 deals, 20,000 with events, 2,000 matches);
            workers: threads (>= 1). Neither changes any row.
        overrides: ``--set`` strings (``"win.min_tai=5"``) when config is
            not a RuleSet.
        progress: tqdm bar on stderr; None = only when stderr is a terminal.
    Returns:
        RunResult. Raises ConfigError (bad config or override), RunError
        (bad arguments or folder) or RunInterrupted (Ctrl-C; finished shards
        and an 'interrupted' manifest are kept).
    """
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
        from nbsim.game import parse_policies
        from nbsim.args import text_items
        policies = text_items(policies, "policies", "('value',) * 4", RunError) or parse_policies()
        if len(policies) != 4:
            raise RunError(f"policies: give 4 names, got {policies!r}")
        parse_policies(policies=",".join(policies))
    if shard_size is None:
        shard_size = (MATCH_SHARD_SIZE if fmt == "matches" else
                      EVENTS_SHARD_SIZE if events else DEFAULT_SHARD_SIZE)
    deals = _check_int("--deals", deals, 1, MAX_DEALS)
    seed = _check_int("--seed", seed, 0, MAX_SEED)
    shard_size = _check_int("--shard-size", shard_size, 1, MAX_SHARD_SIZE)
    workers = _check_int("--workers", workers, 1, 256)
    rs = as_rules(config, overrides)
    from nbsim.tables import load_tables
    tables = load_tables()
    out = prepare_out_dir(out, overwrite)
    manifest = _manifest(rs, mode, seed, deals, shard_size, workers, fmt=fmt,
                         policies=policies, events=events)
    job = _Job(rs, mode, fmt, seed, tuple(policies or ()), bool(events))
    mpath = out / MANIFEST
    _write_json_atomic(mpath, manifest)

    # lazily: a huge --deals must not build the shard list up front
    jobs = ((i, s, min(s + shard_size, deals)) for i, s in enumerate(range(0, deals, shard_size)))
    if progress is None:
        progress = sys.stderr.isatty()
    from tqdm import tqdm
    bar = tqdm(total=deals, unit="deal", unit_scale=True, disable=not progress,
               desc=f"{rs.name} seed {seed}", file=sys.stderr)
    done: list[dict] = []
    lock = threading.Lock()
    t0 = time.perf_counter()

    def record(info: dict) -> None:
        with lock:
            done.append(info)
            done.sort(key=lambda d: d["first_deal"])
            manifest["shards"] = list(done)
            manifest["deals_done"] = sum(d["deals"] for d in done)
            manifest["dealer_complete"] = sum(d["dealer_complete"] for d in done)
            _write_json_atomic(mpath, manifest)
        bar.update(info["deals"])

    status = "complete"
    try:
        if workers == 1:
            for i, s, e in jobs:
                record(_shard_job(job, i, s, e, out, tables))
        else:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nbsim-shard")
            submitted, pending, recorded, order = [], set(), set(), {}

            def collect(finished):
                for f in sorted(finished, key=order.__getitem__):
                    if f not in recorded and not f.cancelled() and f.exception() is None:
                        recorded.add(f)
                        record(f.result())
                for f in finished:
                    if not f.cancelled() and f.exception() is not None:
                        raise f.exception()

            try:
                for spec in jobs:                    # keep at most 2 x workers queued
                    f = pool.submit(_shard_job, job, *spec, out, tables)
                    order[f] = len(submitted)
                    submitted.append(f)
                    pending.add(f)
                    if len(pending) >= 2 * workers:
                        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                        collect(finished)
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    collect(finished)
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                for f in submitted:                  # shards that finished meanwhile
                    if f.done() and f not in recorded and not f.cancelled() \
                            and f.exception() is None:
                        recorded.add(f)
                        record(f.result())
                raise
            pool.shutdown(wait=True)
    except KeyboardInterrupt:
        status = "interrupted"
    finally:
        bar.close()
        for pat in ("shard-*.tmp", "events-*.tmp", "matches-*.tmp"):
            for tmp in out.glob(pat):
                tmp.unlink(missing_ok=True)
        elapsed = time.perf_counter() - t0
        manifest["status"] = status if manifest["deals_done"] == deals or status != "complete" \
            else "failed"
        manifest["finished"] = _now()
        manifest["elapsed_s"] = round(elapsed, 3)
        _write_json_atomic(mpath, manifest)
    result = RunResult(out=out, deals=deals, deals_done=manifest["deals_done"],
                       shards=list(done), elapsed=elapsed, status=manifest["status"],
                       dealer_complete=manifest.get("dealer_complete", 0))
    if status == "interrupted":
        raise RunInterrupted(f"interrupted: {result.deals_done:,} of {deals:,} deals done; "
                             f"{len(done)} finished shards and manifest.json "
                             f"(status 'interrupted') kept in {out}")
    return result


def read_manifest(run_dir: str | Path) -> dict:
    """The manifest of a run folder. Raises RunError if it is not a run."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunError(f"run folder {str(run_dir)!r} does not exist or is not a folder")
    m = run_dir / MANIFEST
    if not m.is_file():
        raise RunError(f"{str(run_dir)!r} is not an nbsim run folder (no {MANIFEST}); "
                       f"create one with 'nbsim simulate'")
    try:
        return json.loads(m.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RunError(f"{m}: cannot read the manifest ({e})") from None


def shard_paths(run_dir: str | Path, manifest: dict | None = None) -> list[Path]:
    """The finished shard files of a run, in deal order (from its manifest)."""
    run_dir = Path(run_dir)
    manifest = manifest or read_manifest(run_dir)
    paths = [run_dir / s["file"] for s in manifest.get("shards", [])]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise RunError(f"{run_dir}: shard files listed in the manifest are missing: "
                       f"{', '.join(missing[:5])}")
    return paths


def scan_run(run_dir: str | Path) -> pl.LazyFrame:
    """polars LazyFrame over the finished shards of a run. Raises RunError if
    the folder is not a run or holds no finished shard."""
    paths = shard_paths(run_dir)
    if not paths:
        raise RunError(f"{run_dir}: the run has no finished shard yet")
    return pl.scan_parquet([str(p) for p in paths])
