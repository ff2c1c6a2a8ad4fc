"""Seconds from a signal to the exit of ``nbsim simulate``: each trial
starts the command with ``--progress`` in a fresh folder, waits until the
bar shows a deal done and then ``WAIT_S`` seconds more, sends the signal and
times the exit; it prints the seconds, the exit status and what the
manifest kept.

Run: ``.venv/bin/python -m benchmarks.stop_time TRIALS WAIT_S SIGINT|SIGTERM
-- SIMULATE_ARGS`` (without --out), e.g.
``.venv/bin/python -m benchmarks.stop_time 3 3 SIGINT -- ningbo-3baida --mode game
--policy lookahead --deals 200 --workers 1 --seed 1``.
"""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def progress_seen(proc: subprocess.Popen, err: list[bytes] | None = None
                  ) -> tuple[threading.Event, threading.Thread]:
    """Read ``proc``'s stderr in a daemon thread: the event is set once its
    progress bar shows a unit done; the whole stderr is appended to ``err``
    (when given) at the end. Returns (the event, the reading thread)."""
    seen = threading.Event()

    def read():
        data = b""
        while chunk := proc.stderr.read1(4096):
            data += chunk
            if re.search(rb"\| *[1-9][\d.]*k?/", data):
                seen.set()
        if err is not None:
            err.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return seen, reader


def trial(args: list[str], wait_s: float, sig: int) -> str:
    """One trial: a line with the seconds from ``sig`` to the exit."""
    out = Path(tempfile.mkdtemp(prefix="nbsim-stop-")) / "run"
    proc = subprocess.Popen([sys.executable, "-m", "nbsim", "simulate", *args, "--out",
                             str(out), "--progress"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    seen, _ = progress_seen(proc)
    seen.wait(1800)
    time.sleep(wait_s)
    t0 = time.monotonic()
    proc.send_signal(sig)
    status = proc.wait()
    took = time.monotonic() - t0
    m = json.loads((out / "manifest.json").read_text())
    return (f"{took:.2f} s to exit, status {status}, run {m['status']}, "
            f"{m['deals_done']:,} deals kept in {len(m['shards'])} shards")


def main() -> None:
    trials, wait_s, sig = int(sys.argv[1]), float(sys.argv[2]), getattr(signal, sys.argv[3])
    args = sys.argv[sys.argv.index("--") + 1:]
    for t in range(trials):
        print(f"trial {t}: {trial(args, wait_s, sig)}", flush=True)


if __name__ == "__main__":
    main()
