"""Stopping a run: Ctrl-C and SIGTERM end `nbsim simulate` within seconds
(deal and game mode, one worker or two), the deals finished before the
signal are kept as valid shards, --resume completes the run with the rows
of a run never interrupted, and a run whose every deal was done when the
signal came is complete. The seconds from a signal to the exit of a
lookahead run are measured apart (benchmarks/stop_time.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import polars as pl
import pytest
from click.testing import CliRunner

from benchmarks.stop_time import progress_seen
from nbsim.cli import cli
from nbsim.errors import RunInterrupted
from nbsim.run import files as FILES
from nbsim.run import frames as F
from nbsim.run import shards as SH
from nbsim.run import simulate as SIM
from nbsim.run.files import verify_run

EXIT_BOUND_S = 10.0     # generous: a loaded machine; the real figure is well under 2 s
GAME = dict(mode="game", policies=("defend",) * 4, deals=3_000, seed=5)


def rows(out) -> pl.DataFrame:
    """Every row of a run, sorted by deal."""
    return pl.concat([pl.read_parquet(p) for p in FILES.shard_paths(out)]).sort("deal")


@pytest.fixture(scope="module")
def game_ref(tmp_path_factory):
    """3,000 defend deals of seed 5, never interrupted."""
    out = tmp_path_factory.mktemp("ref") / "run"
    SIM.simulate("ningbo-3baida", out=out, workers=1, **GAME)
    return out


def _signal_after_progress(args, sig, command="simulate", after_s=None):
    """Start `python -m nbsim COMMAND ARGS --progress`, send ``sig`` once
    the progress bar shows a deal done (or ``after_s`` seconds after the
    start); returns (exit status, seconds from the signal to the exit,
    stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "nbsim", command, *args, "--progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err: list[bytes] = []
    seen, reader = progress_seen(proc, err)
    if after_s is not None:
        threading.Timer(after_s, seen.set).start()
    try:
        assert seen.wait(300), "no progress shown"
        t0 = time.monotonic()
        proc.send_signal(sig)
        status = proc.wait(timeout=120)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    return status, took, b"".join(err).decode(errors="replace")


@pytest.mark.parametrize("workers,sig", [(1, signal.SIGINT), (2, signal.SIGTERM),
                                         (2, signal.SIGINT)])
def test_signal_stops_a_game_run_which_resumes_to_the_same_rows(tmp_path, game_ref, workers,
                                                                 sig):
    """One shard per worker: the running shards stop between kernel calls
    and keep what they finished; --resume completes the run."""
    out = tmp_path / "run"
    args = ["ningbo-3baida", "--mode", "game", "--policy", "defend", "--deals", "3000",
            "--seed", "5", "--out", str(out), "--workers", str(workers),
            "--shard-size", str(3_000 // workers)]
    status, took, err = _signal_after_progress(args, sig)
    assert status == 130, err
    assert took < EXIT_BOUND_S
    assert "continue with --resume" in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "interrupted"
    assert 0 < m["deals_done"] < 3_000
    assert any(s["deals"] < 3_000 // workers for s in m["shards"])   # a running shard's deals
    assert verify_run(out, checksums=True).ok
    kept = rows(out)
    assert kept["deal"].to_list() == [d for s in m["shards"]
                                      for d in range(s["first_deal"],
                                                     s["first_deal"] + s["deals"])]
    assert kept.equals(rows(game_ref).filter(pl.col("deal").is_in(kept["deal"].to_list())))
    res = SIM.simulate("ningbo-3baida", out=out, workers=workers, resume=True, **GAME)
    assert res.status == "complete" and res.deals_done == 3_000
    assert rows(out).equals(rows(game_ref))
    assert verify_run(out).complete


def test_sigint_stops_a_deal_run(tmp_path):
    """Deal mode, shards of 200,000 deals on two workers."""
    out = tmp_path / "run"
    args = ["ningbo-3baida", "--deals", "2000000", "--seed", "8", "--out", str(out),
            "--workers", "2", "--shard-size", "200000"]
    status, took, err = _signal_after_progress(args, signal.SIGINT)
    assert status == 130, err
    assert took < EXIT_BOUND_S
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "interrupted" and 0 < m["deals_done"] < 2_000_000
    assert any(s["deals"] < 200_000 for s in m["shards"])           # a running shard's deals
    assert verify_run(out, checksums=True).ok


def test_sigint_stops_a_duel(tmp_path):
    """A duel (no run folder) ends at Ctrl-C between kernel calls, status 130."""
    args = ["ningbo-3baida", "--a", "defend", "--b", "random", "--deals", "400000",
            "--seed", "1", "--workers", "2"]
    status, took, err = _signal_after_progress(args, signal.SIGINT, "duel", after_s=8.0)
    assert status == 130, err
    assert took < EXIT_BOUND_S and "interrupted" in err


def test_a_run_whose_shards_all_finished_is_complete(tmp_path, monkeypatch):
    """Ctrl-C after the last shard finished: the run is complete (exit 0),
    and the report says so."""
    real = SH.run_shard

    def job(task, out, progress=None, **kw):
        info = real(task, out, progress, **kw)
        if task.index == 2:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)                # the main thread sees it while shards run
        return info

    monkeypatch.setattr(SIM, "run_shard", job)
    out = tmp_path / "run"
    res = CliRunner().invoke(cli, ["simulate", "ningbo-3baida", "--deals", "300", "--seed", "2",
                                   "--out", str(out), "--shard-size", "100", "--workers", "1"])
    assert res.exit_code == 0, res.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["deals_done"] == 300
    rep = CliRunner().invoke(cli, ["report", str(out)])
    assert rep.exit_code == 0 and "INCOMPLETE" not in rep.output


def test_stop_keeps_the_finished_matches(tmp_path, monkeypatch):
    """--format matches: a stop request keeps the whole matches played
    (never a cut one); --resume gives the rows of an uninterrupted run."""
    kw = dict(mode="game", fmt="matches", policies=("defend",) * 4, deals=12, seed=3,
              shard_size=12, workers=1)
    ref = tmp_path / "ref"
    SIM.simulate("ningbo-3baida", out=ref, **kw)
    stop = threading.Event()
    real = SIM._Recorder.tick

    def tick(self, index, n, size):
        real(self, index, n, size)
        stop.set()                          # stop after the first kernel call,
        time.sleep(5 * SIM.POLL_S)          # once the main thread (polling) passed it on

    monkeypatch.setattr(SIM._Recorder, "tick", tick)
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted, match="continue with --resume"):
        SIM.simulate("ningbo-3baida", out=out, stop=stop, **kw)
    m = json.loads((out / "manifest.json").read_text())
    assert 0 < m["deals_done"] < 12 and verify_run(out, checksums=True).ok
    monkeypatch.undo()
    SIM.simulate("ningbo-3baida", out=out, resume=True, **{**kw, "shard_size": None})
    for name in ("shard", "matches"):
        got = pl.concat([pl.read_parquet(p) for p in sorted(out.glob(f"{name}-*.parquet"))])
        want = pl.concat([pl.read_parquet(p) for p in sorted(ref.glob(f"{name}-*.parquet"))])
        keys = ["match", "deal"] if name == "shard" else ["match", "player"]
        assert got.sort(keys).equals(want.sort(keys))


@pytest.mark.parametrize("case", [dict(mode="deal", deals=5_000),
                                  dict(mode="game", deals=300, events=True),
                                  dict(mode="game", deals=6, fmt="matches")])
def test_kernel_calls_of_one_unit_write_the_same_bytes(tmp_path, monkeypatch, case):
    """The pace of the kernel calls changes no byte of a shard: calls of one
    deal (match) each give the files of calls growing eightfold."""
    spec = SIM.make_spec("ningbo-3baida", seed=4, **case)
    task = SH.ShardTask(spec, "run-id", 0, 2, spec.deals)
    infos = []
    for call_s in (1e9, 0.0):          # 1, 8, 64, ... units per call; 1 unit per call
        monkeypatch.setattr(F, "CALL_S", call_s)
        folder = tmp_path / str(call_s)
        folder.mkdir()
        infos.append(SH.run_shard(task, folder))
    assert infos[0] == infos[1]


def test_sigint_stops_a_tune_whose_trials_run_in_threads(tmp_path):
    """`nbsim tune --workers 2` plays one trial in the main thread and one
    in a pool thread, where no signal arrives: Ctrl-C stops both within the
    bound (the pool thread's run is told through simulate's ``stop``), the
    study says how to continue, status 130."""
    args = ["ningbo-3baida", "--target", "win_rate=0.5..0.6", "--vary", "win.min_tai=3..6",
            "--trials", "4", "--deals", "400000", "--steps", "1", "--seed", "1",
            "--workers", "2", "--styles", "none", "--out", str(tmp_path / "study")]
    status, took, err = _signal_after_progress(args, signal.SIGINT, "tune", after_s=20.0)
    assert status == 130, err
    assert took < EXIT_BOUND_S, (took, err)
    assert "--resume" in err


@pytest.mark.parametrize("command, module", [("sweep", "nbsim.analysis.sweeps"),
                                             ("band", "nbsim.play.band")])
def test_commands_that_rerun_to_resume_say_so(command, module):
    """sweep and band resume their partial runs when run again and have no
    --resume: an interrupted run inside them says to run the same command
    again, keeping simulate's account of what was kept."""
    import importlib
    import inspect

    assert "rerun_to_resume(" in inspect.getsource(importlib.import_module(module))
    with pytest.raises(RunInterrupted) as e, SIM.rerun_to_resume(command):
        raise RunInterrupted(f"interrupted: 5 of 9 deals done; {SIM.RESUME_HINT}")
    text = str(e.value)
    assert f"run the same {command} again to continue" in text and "--resume" not in text
    assert text.startswith("interrupted: 5 of 9 deals done")
