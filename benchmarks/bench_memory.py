"""Peak memory against run size: the max RSS of an ``nbsim
simulate`` subprocess of 10 million against 100 million deal-mode deals
(--quick: 1 million against 10 million), with the wall time of each. A
ratio near 1 means memory stays bounded whatever the run size.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import Result


def _peak_rss_mb(args: list[str], out: Path) -> tuple[float, float]:
    """(seconds, peak RSS MB) of an ``nbsim simulate`` subprocess, from the
    wait4 accounting of a small wrapper process that reports its child."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
            "print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    cmd = [sys.executable, "-c", code, sys.executable, "-m", "nbsim", "simulate", *args,
           "--seed", "1", "--out", str(out), "--overwrite", "--no-progress"]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    secs, kb = res.stdout.split()
    return float(secs), int(kb) / 1024


def bench(quick: bool = False) -> list[Result]:
    out: list[Result] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # peak memory against run size
        small, big = (1_000_000, 10_000_000) if quick else (10_000_000, 100_000_000)
        s_small, m_small = _peak_rss_mb(["ningbo-3baida", "--deals", str(small)], tmp / "m1")
        s_big, m_big = _peak_rss_mb(["ningbo-3baida", "--deals", str(big)], tmp / "m2")
        out.append(Result(f"peak memory, {big:,} deal-mode deals ({s_big:,.0f} s)", m_big, "MB",
                          f"{small:,} deals ({s_small:,.0f} s)", m_small,
                          "ratio near 1 = bounded memory"))
        for d in ("m1", "m2"):
            shutil.rmtree(tmp / d, ignore_errors=True)
    return out
