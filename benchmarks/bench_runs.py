"""Whole runs: fixed cost of a warm call, scaling with workers, and deal mode
end to end.

Figures:
  * warm fixed cost: ``nbsim simulate --deals 1`` as a fresh subprocess with
    a warm Numba cache (imports, tables, cached kernels, polars start-up,
    folder, lock and manifest), deal mode and game mode; baseline: the
    libraries' floor, a subprocess that only imports numba, polars and
    pyarrow and calls one cached kernel (numba sets up its typing and
    target context on that first call), itself against the bare ``python -c
    pass`` start-up of the same interpreter.
  * many requests in one process: hands scored by one ``nbsim score
    --state -`` process against one process per hand.
  * game mode, whole process (``nbsim simulate`` subprocess, wall time,
    default policy): ningbo-3baida, 200,000 deals, --workers 2 against
    --workers 1 (target speed-up >= 1.85x), in its own process
    (``python -m nbsim``, which pays the ~3 s fixed cost of every fresh
    process on both sides).
  * game kernel alone: ``games.game_batch`` on 2 threads against 1 thread,
    the same number of deals per thread, default policy.
  * deal mode end to end (``nbsim.simulate`` in this process: kernel,
    notation, frames, Parquet, checksums, manifest), --workers 1 and 2, in
    deals per CPU-second of the process (per core, whatever else the machine
    runs), against the deal kernel alone in the same unit; target >= 500,000
    deals/s per core.

Peak memory against run size: ``bench_memory``.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from benchmarks.common import Result


def _cli(args: list[str], out: Path) -> float:
    """Wall seconds of one ``nbsim simulate`` subprocess."""
    cmd = [sys.executable, "-m", "nbsim", "simulate", *args, "--seed", "1", "--out", str(out),
           "--overwrite", "--no-progress"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    return time.perf_counter() - t0


_FLOOR = ("import numpy, numba, polars, pyarrow; from nbsim.kernels import rng; "
          "rng.deal_key(numpy.uint64(1), numpy.int64(2))")


def _python(code: str) -> float:
    """Wall seconds of ``python -c code`` as a fresh subprocess."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t0


def _game_kernel_scaling(n: int) -> tuple[float, float]:
    """Deals/s of the game kernel on 1 thread and on 2 threads (n deals each
    thread, disjoint deal ranges)."""
    from nbsim.kernels.engine import games as KG
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.policies.catalog import DEFAULT_POLICY
    from nbsim.policy_specs import as_policies, kernel_arrays
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import load_rules
    from nbsim.run import frames as F
    rs, tables = load_rules("ningbo-3baida"), load_tables()
    pols = kernel_arrays(as_policies((DEFAULT_POLICY,) * 4), rs.array, tables)

    def play(start, count):
        a = F._alloc(count, False)
        KG.game_batch(rs.array, tables, np.uint64(1), np.int64(start), pols, ES.new_state(), False,
                      KG.DealRows(*(a[k] for k in F.PER_DEAL)),
                      KG.EventRows(*(a[k] for k in F.PER_EVENT)))

    play(0, 100)
    t0 = time.perf_counter()
    play(0, n)
    one = n / (time.perf_counter() - t0)
    threads = [threading.Thread(target=play, args=(k * n, n)) for k in (1, 2)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    two = 2 * n / (time.perf_counter() - t0)
    return one, two


def _many_in_one_process(tmp: Path, n: int) -> Result:
    """``n`` scoring requests answered by one ``nbsim score --state -``
    process (one JSON line each on standard input) against the same ``n``
    requests as ``n`` separate ``nbsim score`` processes (fewer of them,
    timed and scaled to ``n``): requests per second."""
    import json
    hand = {"config": "ningbo-3baida", "hand": "234m567p345s67s55m", "win_tile": "8s",
            "win_by": "self_draw", "seat": "S", "indicator": "9m", "flowers": "2f"}
    cmd = [sys.executable, "-m", "nbsim", "score"]
    t0 = time.perf_counter()
    subprocess.run(cmd + ["--state", "-"], input="\n".join([json.dumps(hand)] * n) + "\n",
                   text=True, check=True, capture_output=True)
    stream = time.perf_counter() - t0
    single = ["ningbo-3baida", "--hand", hand["hand"], "--win-tile", "8s", "--self-draw",
              "--seat", "S", "--indicator", "9m", "--flowers", "2f", "--json"]
    k = 3
    t0 = time.perf_counter()
    for _ in range(k):
        subprocess.run(cmd + single, check=True, capture_output=True)
    apart = (time.perf_counter() - t0) / k
    return Result(f"{n} hands scored by one process: nbsim score --state -", n / stream,
                  "hands/s", "one nbsim score process per hand", 1 / apart,
                  "many requests in one process, as a platform or a notebook sends them")


def bench(quick: bool = False) -> list[Result]:
    out: list[Result] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # warm fixed cost
        _cli(["ningbo-3baida", "--deals", "1"], tmp / "w")          # warm the caches
        _cli(["ningbo-3baida", "--mode", "game", "--deals", "1"], tmp / "w")
        bare = min(_python("pass") for _ in range(3))
        # what no nbsim call can go below: importing numba, polars and
        # pyarrow, then numba's first call of a cached kernel (it sets up
        # numba's typing and target context, scipy's BLAS check included)
        floor = min(_python(_FLOOR) for _ in range(3))
        out.append(Result("the libraries' floor: import numba, polars, pyarrow, call one "
                          "cached kernel", floor, "s", "python -c pass", bare,
                          "no nbsim call can start faster"))
        own = {}
        for mode in ("deal", "game"):
            own[mode] = min(_cli(["ningbo-3baida", "--mode", mode, "--deals", "1"], tmp / "w")
                            for _ in range(3))
            out.append(Result(f"warm fixed cost in its own process: nbsim simulate --mode {mode} "
                              "--deals 1", own[mode], "s", "the libraries' floor", floor,
                              "ratio = floor / nbsim"))

        # the same call again inside a warm process (a sweep, a notebook)
        from nbsim.run.simulate import simulate
        for mode in ("deal", "game"):
            simulate("ningbo-3baida", mode=mode, deals=1, seed=1, out=tmp / "p", overwrite=True,
                     progress=False)
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                simulate("ningbo-3baida", mode=mode, deals=1, seed=1, out=tmp / "p",
                         overwrite=True, progress=False)
                best = min(best, time.perf_counter() - t0)
            out.append(Result(f"fixed cost of simulate(mode={mode!r}, deals=1) in a warm "
                              "process", best, "s", "", float("nan"),
                              "folder, lock, manifest, one shard"))

        # whole-process scaling, game mode
        n = 50_000 if quick else 200_000
        # two shards at least (the default shard is 100,000 deals), so that
        # both workers have one
        args = ["ningbo-3baida", "--mode", "game", "--deals", str(n),
                "--shard-size", str(min(100_000, n // 2))]
        t1 = _cli(args + ["--workers", "1"], tmp / "g1")
        t2 = _cli(args + ["--workers", "2"], tmp / "g2")
        out.append(Result(f"game run in its own process, {n:,} deals, --workers 2", n / t2,
                          "deals/s", "--workers 1", n / t1,
                          "python -m nbsim: the ~3 s fixed cost included"))
        out.append(_many_in_one_process(tmp, 50 if quick else 500))
        one, two = _game_kernel_scaling(10_000 if quick else 40_000)
        out.append(Result("game kernel alone, 2 threads", two, "deals/s", "1 thread", one,
                          "ningbo-3baida, the default policy"))

        # deal mode end to end, in process; per core = per CPU-second of this
        # process (every thread: kernel, notation, polars, Parquet, checksums)
        from nbsim.kernels.batch import deal_batch
        from nbsim.rules.lookups import load_tables
        from nbsim.rules.ruleset import load_rules
        rs, tables = load_rules("ningbo-3baida"), load_tables()
        k = 200_000
        arrays = (np.empty((k, 4, 42), np.int8), np.empty((k, 4), np.uint8),
                  np.empty((k, 4), np.uint8), np.empty((k, 4), np.uint8), np.empty(k, np.int8),
                  np.empty(k, np.bool_))
        deal_batch(rs.array, np.uint64(2), np.int64(0), tables, *arrays)
        c0 = time.process_time()
        for r in range(5):
            deal_batch(rs.array, np.uint64(2), np.int64(r * k), tables, *arrays)
        kernel_cpu = 5 * k / (time.process_time() - c0)
        m = 1_000_000 if quick else 4_000_000
        simulate("ningbo-3baida", deals=200_000, seed=2, out=tmp / "d0", workers=1)
        for w in (1, 2):
            t0, c0 = time.perf_counter(), time.process_time()
            simulate("ningbo-3baida", deals=m, seed=2, out=tmp / f"d{w}", workers=w,
                     overwrite=True, progress=False)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            out.append(Result(f"deal mode end to end, {m:,} deals, --workers {w}, per core",
                              m / cpu, "deals/cpu-s", "deal kernel alone, per core",
                              kernel_cpu, f"{m / wall:,.0f} deals/s wall; target >= 500,000 "
                                          f"per core"))
    return out


if __name__ == "__main__":  # pragma: no cover
    for r in bench(quick="--quick" in sys.argv):
        print(r)
    os._exit(0)
