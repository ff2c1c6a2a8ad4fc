"""``nbsim report`` at scale: the time and peak memory of reporting a
10-million-deal game run, against a 1-million-deal run measured in the same
call (target: 15 s or less, memory not growing with the run).

The large run is built once and kept in the cache folder
(``$NBSIM_BENCH_DIR``, default ``~/.cache/nbsim/bench``): 100,000 ningbo-3baida
deals are played (seed 1, value policy, about a minute), and the big run
folders list that shard again and again with the deal index shifted, so the
report reads 10,000,000 rows in 100 shards exactly as it would read a
simulated run of that size. Each report runs in a fresh process
(``python -m nbsim report``) whose peak resident memory is read with
``resource.getrusage(RUSAGE_CHILDREN)``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl

from benchmarks.common import Result

BASE_DEALS = 100_000
SIZES = {"1m": 10, "10m": 100}           # copies of the base shard
QUICK_SIZES = {"200k": 2, "1m": 10}


def cache_dir() -> Path:
    """Where the benchmark keeps its runs."""
    env = os.environ.get("NBSIM_BENCH_DIR")
    return Path(env) if env else Path.home() / ".cache" / "nbsim" / "bench"


def base_run(root: Path) -> Path:
    """The played 100,000-deal run (simulated once, then reused)."""
    from nbsim.run.simulate import simulate

    base = root / "report-base"
    m = base / "manifest.json"
    if m.is_file() and json.loads(m.read_text()).get("status") == "complete" \
            and json.loads(m.read_text()).get("deals") == BASE_DEALS:
        return base
    simulate("ningbo-3baida", mode="game", deals=BASE_DEALS, seed=1, out=base, overwrite=True,
             shard_size=BASE_DEALS)
    return base


def large_run(root: Path, base: Path, name: str, copies: int) -> Path:
    """A run folder of ``copies`` x 100,000 deals made of the base shard with
    the deal index shifted per copy (built once)."""
    out = root / f"report-{name}"
    m = out / "manifest.json"
    if m.is_file() and json.loads(m.read_text()).get("deals") == copies * BASE_DEALS:
        return out
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((base / "manifest.json").read_text())
    df = pl.read_parquet(base / manifest["shards"][0]["file"])
    shards = []
    for i in range(copies):
        f = f"shard-{i:05d}.parquet"
        df.with_columns(pl.col("deal") + i * BASE_DEALS).write_parquet(
            out / f, compression="zstd", statistics=True)
        shards.append({"file": f, "first_deal": i * BASE_DEALS, "deals": BASE_DEALS,
                       "dealer_complete": int(df["dealer_complete"].sum())})
    manifest.update(deals=copies * BASE_DEALS, deals_done=copies * BASE_DEALS, shards=shards,
                    note="benchmark run: the base shard repeated with shifted deal indices")
    m.write_text(json.dumps(manifest, indent=1))
    return out


_CHILD = """
import resource, sys, time
from nbsim.cli import main
t0 = time.perf_counter()
try:
    main(["report", sys.argv[1], "--out", sys.argv[2]])
except SystemExit as e:
    if e.code:
        raise
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def time_report(run: Path, out: Path) -> tuple[float, float]:
    """Seconds (inside the process, imports excluded) and peak RSS in MiB of
    ``nbsim report RUN --out OUT`` run in a new Python process."""
    res = subprocess.run([sys.executable, "-c", _CHILD, str(run), str(out)], check=True,
                         capture_output=True, text=True)
    seconds, rss_kib = res.stdout.strip().splitlines()[-1].split()
    return float(seconds), int(rss_kib) / 1024


def bench(quick: bool = False):
    """Report time and peak memory per run size."""
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    base = base_run(root)
    sizes = QUICK_SIZES if quick else SIZES
    results = []
    first = None
    for name, copies in sizes.items():
        run = large_run(root, base, name, copies)
        dt, rss = time_report(run, root / f"report-{name}-out")
        deals = copies * BASE_DEALS
        if first is None:
            first = (name, dt, rss)
            results.append(Result(f"report of a {deals:,}-deal game run", dt, "s",
                                  note=f"peak RSS {rss:,.0f} MiB"))
        else:
            results.append(Result(f"report of a {deals:,}-deal game run", dt, "s",
                                  baseline=f"{first[0]} run", baseline_rate=first[1],
                                  note=f"peak RSS {rss:,.0f} MiB (the {first[0]} run: "
                                       f"{first[2]:,.0f} MiB); target <= 15 s"))
    return results
