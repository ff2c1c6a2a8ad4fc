"""One shard of a run: the request it belongs to (``RunSpec``), the task
(``ShardTask``) and the function that computes it and writes its files
(``run_shard``), shared by the local threads of ``nbsim.run.simulate`` and the Dask
workers of ``nbsim.run.cluster`` (this module imports neither).

Every file is written atomically: serialised in memory, written to a
temporary file named after the writing process and thread, flushed to disk
(fsync) and renamed, so a shard file is whole or absent whatever kills the
writer. Its footer (Parquet key-value metadata, key ``nbsim``) records the
run id, seed and deal range; its row count, size and SHA-256 go to the
manifest entry ``run_shard`` returns.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbsim.rules.ruleset import RuleSet
from nbsim.run.files import FOOTER_KEY, shard_name, write_atomic

# zstd level 1 without column statistics: the settings are compared in
# make bench (benchmarks/bench_deal.py, the "Parquet write ..." lines)
PARQUET_OPTIONS = dict(compression="zstd", compression_level=1, statistics=False)


def nbsim_version() -> str:
    """The installed nbsim version (recorded in manifests, checked on resume)."""
    from nbsim.version import __version__
    return __version__


@dataclass(frozen=True)
class RunSpec:
    """A validated simulate request: everything that decides the rows.

    ``units`` are deals, or matches with fmt='matches'. Two requests with
    equal ``identity()`` write the same rows for the same deal indices."""
    rs: RuleSet
    mode: str
    fmt: str
    seed: int
    deals: int
    shard_size: int
    policies: tuple[str, ...]
    events: bool

    def identity(self) -> dict:
        """The manifest keys a resumed run must match (name -> value)."""
        return {"config": self.rs.hash, "overrides": list(self.rs.overrides),
                "seed": self.seed, "mode": self.mode, "game_format": self.fmt,
                "events": self.events, "policies": list(self.policies) or None,
                "nbsim_version": nbsim_version()}


@dataclass(frozen=True)
class ShardTask:
    """One shard to compute (picklable: sent to Dask workers as is): the run's
    spec, its run id, the shard index (file names) and deal range."""
    spec: RunSpec
    run_id: str
    index: int
    start: int
    stop: int


def write_parquet(df, path: Path, footer: dict) -> dict:
    """Write ``df`` to ``path`` atomically: serialise in memory, write a
    temporary file unique to this process and thread, fsync, rename. Returns
    {"rows", "bytes", "sha256"} of the file."""
    buf = io.BytesIO()
    df.write_parquet(buf, metadata={FOOTER_KEY: json.dumps(footer, sort_keys=True)},
                     **PARQUET_OPTIONS)
    data = buf.getbuffer()
    write_atomic(path, data, path.with_name(f"{path.name[:-len('.parquet')]}.{os.getpid()}-"
                                            f"{threading.get_ident()}.tmp"))
    return {"rows": df.height, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


_TABLES = None
_TABLES_LOCK = threading.Lock()


def tables():
    """The scorer's tables, loaded once per process."""
    global _TABLES
    with _TABLES_LOCK:
        if _TABLES is None:
            from nbsim.rules.lookups import load_tables
            _TABLES = load_tables()
        return _TABLES


class Stop:
    """A stop request shared by the threads of a run (thread-safe).

    ``request()`` asks the running shards to stop between kernel calls
    (``nbsim.run.frames.Pace``) and keep the deals they finished; ``close()``
    says the run no longer records anything, so a shard that sees it writes
    nothing (its deals are computed again by --resume)."""

    def __init__(self):
        self._requested = threading.Event()
        self._closed = threading.Event()

    def request(self) -> None:
        """Ask the shards to stop after their current kernel call."""
        self._requested.set()

    def close(self) -> None:
        """Stop, and from now on write no file."""
        self._requested.set()
        self._closed.set()

    @property
    def requested(self) -> bool:
        """True once ``request`` or ``close`` was called."""
        return self._requested.is_set()

    @property
    def closed(self) -> bool:
        """True once ``close`` was called."""
        return self._closed.is_set()


def run_shard(task: ShardTask, out: str | Path, progress=None, stop: Stop | None = None):
    """Compute one shard and write its files into the run folder ``out``.

    Returns the manifest entry: {"file", "index", "first_deal", "deals", "rows",
    "dealer_complete", "files": {name: {"rows", "bytes", "sha256"}}, plus
    "events_file" / "matches_file"}. ``progress(n)`` is called as deals (or
    matches) are done. ``stop``: once requested, the shard stops after its
    current kernel call and writes the deals (matches) it finished,
    ``first_deal .. first_deal + deals - 1`` (fewer than the task's; the
    rest is another shard's on --resume), or returns None when it finished
    none or ``stop`` is closed. Raises OSError if a file cannot be written
    (the shard's files are then absent or whole)."""
    spec, out = task.spec, Path(out)
    start, stop_at, index = task.start, task.stop, task.index
    halt = None if stop is None else (lambda: stop.requested)
    tables_ = tables()
    ev = totals = None
    if spec.mode == "deal":
        from nbsim.run.frames import deal_frame
        df = deal_frame(spec.rs.array, spec.seed, start, stop_at, tables_, progress, halt)
        done = df.height
    elif spec.fmt == "matches":
        from nbsim.run.game_mode import match_frame
        df, totals, ev = match_frame(spec.rs, spec.seed, start, stop_at, spec.policies,
                                     tables_, spec.events, progress, halt)
        done = 0 if totals is None else totals.height // 4
    else:
        from nbsim.run.game_mode import game_frame
        df, ev = game_frame(spec.rs, spec.seed, start, stop_at, spec.policies, tables_,
                            spec.events, progress, halt)
        done = 0 if df is None else df.height
    if done == 0 or (stop is not None and stop.closed):
        return None
    footer = {"run_id": task.run_id, "seed": spec.seed, "first_deal": start, "deals": done}
    info: dict[str, Any] = {"file": shard_name(index), "index": index, "first_deal": start,
                            "deals": done}
    files: dict[str, dict] = {}
    if totals is not None:
        name = shard_name(index, "matches")
        files[name] = write_parquet(totals, out / name, {**footer, "kind": "matches"})
        info["matches_file"] = name
    if ev is not None:
        name = shard_name(index, "events")
        files[name] = write_parquet(ev, out / name, {**footer, "kind": "events"})
        info["events_file"] = name
    files[info["file"]] = write_parquet(df, out / info["file"], {**footer, "kind": "shard"})
    info["rows"] = df.height
    info["dealer_complete"] = int(df["dealer_complete"].sum())
    info["files"] = files
    return info
