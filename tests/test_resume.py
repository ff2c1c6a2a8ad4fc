"""Runs that survive: --resume and extension, the writer lock, shard
integrity (damaged, foreign, missing, duplicated, unlisted shards), SIGKILL
at random moments, a disk that fills up, and the "run complete?" check."""
from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from nbsim.cli import cli
from nbsim.errors import RunError, RunInterrupted
from nbsim.run import files as FILES
from nbsim.run import shards as SH
from nbsim.run import simulate as SIM
from nbsim.run.files import open_run, verify_run
from nbsim.run.lock import RunLock, lock_holder, shown_status


def rows(out) -> pl.DataFrame:
    """Every row of a run, sorted by deal."""
    return pl.concat([pl.read_parquet(p) for p in FILES.shard_paths(out)]).sort("deal")


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    """An uninterrupted deal-mode run: 1,000 deals of seed 21."""
    out = tmp_path_factory.mktemp("ref") / "run"
    SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, shard_size=100, workers=1)
    return out


def _interrupt_at(monkeypatch, indices):
    real = SH.run_shard

    def job(task, out, progress=None, **kw):
        if task.index in indices:
            raise KeyboardInterrupt
        return real(task, out, progress, **kw)

    monkeypatch.setattr(SIM, "run_shard", job)


@pytest.mark.parametrize("workers", [1, 2])
def test_resume_completes_an_interrupted_run(tmp_path, monkeypatch, ref, workers):
    out = tmp_path / "run"
    _interrupt_at(monkeypatch, {4})
    with pytest.raises(RunInterrupted, match="continue with --resume"):
        SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, shard_size=100,
                     workers=workers)
    before = json.loads((out / "manifest.json").read_text())
    assert before["status"] == "interrupted" and before["deals_done"] < 1_000
    monkeypatch.undo()
    res = SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, resume=True,
                       workers=workers)
    assert res.status == "complete" and res.deals_done == 1_000
    assert res.new_deals == 1_000 - before["deals_done"]
    assert rows(out).equals(rows(ref))
    m = json.loads((out / "manifest.json").read_text())
    assert m["run_id"] == before["run_id"] and len(m["resumed"]) == 1
    if workers == 1:        # with two, the shard beside the failed one kept its first deals
        assert [s["file"] for s in m["shards"]] == [f"shard-{i:05d}.parquet" for i in range(10)]
    assert verify_run(out).complete
    # resuming a finished run computes nothing
    again = SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, resume=True)
    assert again.new_deals == 0 and again.status == "complete"


def test_extend_with_more_deals(tmp_path, ref):
    out = tmp_path / "run"
    SIM.simulate("ningbo-3baida", deals=250, seed=21, out=out, shard_size=100)
    res = SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, resume=True, workers=2)
    assert res.new_deals == 750
    ranges = [(s["first_deal"], s["deals"]) for s in res.shards]
    assert ranges == [(0, 100), (100, 100), (200, 50), (250, 50)] + [
        (a, 100) for a in range(300, 1_000, 100)]
    assert rows(out).equals(rows(ref))
    assert len({s["file"] for s in res.shards}) == len(res.shards)
    assert verify_run(out).complete


def test_game_run_resumed_and_extended(tmp_path):
    pols = ("value", "greedy", "value", "random")
    a = tmp_path / "a"
    SIM.simulate("ningbo-3baida", mode="game", deals=300, seed=5, out=a, shard_size=70,
                 policies=pols, workers=2)
    b = tmp_path / "b"
    SIM.simulate("ningbo-3baida", mode="game", deals=120, seed=5, out=b, shard_size=70,
                 policies=pols)
    SIM.simulate("ningbo-3baida", mode="game", deals=300, seed=5, out=b, resume=True,
                 policies=pols)
    assert rows(b).equals(rows(a))


@pytest.mark.parametrize("change,msg", [
    (dict(seed=22), "--seed is 22, the run's is 21"),
    (dict(overrides=["wilds.wilds=7baida"]), "--set overrides is [wilds.wilds=7baida], "
                                             "the run's is none"),
    (dict(config="ningbo-7baida"), "config (rules hash) is"),
    (dict(shard_size=50), "--shard-size is 50, the run's is 100"),
    (dict(deals=900), "--deals is 900, the run already has 1,000 deals planned"),
    (dict(mode="game"), "--mode is 'game', the run's is 'deal'"),
])
def test_resume_refuses_a_different_request(tmp_path, ref, change, msg):
    out = tmp_path / "run"
    shutil.copytree(ref, out)
    args = dict(config="ningbo-3baida", deals=1_000, seed=21, out=out, resume=True)
    args.update(change)
    config = args.pop("config")
    with pytest.raises(RunError, match="--resume: .*") as e:
        SIM.simulate(config, **args)
    assert msg in str(e.value)


def test_resume_compares_policies_as_strings(tmp_path):
    out = tmp_path / "run"
    SIM.simulate("ninghai", mode="game", deals=30, seed=1, out=out, policies=("value",) * 4)
    with pytest.raises(RunError, match=r"policies is \[greedy, value, value, value\], the "
                                       r"run's is \[value, value, value, value\]"):
        SIM.simulate("ninghai", mode="game", deals=60, seed=1, out=out, resume=True,
                     policies=("greedy", "value", "value", "value"))
    with pytest.raises(RunError, match="--events is True, the run's is False"):
        SIM.simulate("ninghai", mode="game", deals=60, seed=1, out=out, resume=True,
                     events=True)


def test_resume_and_overwrite_together_refused(tmp_path):
    with pytest.raises(RunError, match="either --overwrite .* or --resume"):
        SIM.simulate("ninghai", deals=10, seed=1, out=tmp_path / "r", resume=True,
                     overwrite=True)


def test_resume_of_an_empty_folder_starts_the_run(tmp_path):
    res = SIM.simulate("ninghai", deals=10, seed=1, out=tmp_path / "r", resume=True)
    assert res.status == "complete" and res.new_deals == 10


# ------------------------------------------------------------------ the lock
_HOLD = """
import sys, time
from nbsim.run.lock import RunLock
RunLock(sys.argv[1], "test holder").acquire()
print("locked", flush=True)
time.sleep(60)
"""


def test_lock_refuses_a_second_writer_and_is_taken_over_when_stale(tmp_path, ref):
    out = tmp_path / "run"
    shutil.copytree(ref, out)
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert lock_holder(out)["pid"] == holder.pid
        for kwargs in (dict(overwrite=True), dict(resume=True)):
            with pytest.raises(RunError, match=f"being written by process {holder.pid} "
                                               r"\(test holder"):
                SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, **kwargs)
        res = CliRunner().invoke(cli, ["simulate", "ningbo-3baida", "--deals", "1000", "--seed",
                                       "21", "--out", str(out), "--resume"])
        assert res.exit_code == 2 and f"process {holder.pid}" in res.output
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert lock_holder(out) is None                    # the dead holder's lock is stale
    res = SIM.simulate("ningbo-3baida", deals=1_200, seed=21, out=out, resume=True)
    assert res.new_deals == 200 and rows(out).equals(
        SIM.deal_frame(SIM.make_spec("ningbo-3baida", deals=1, seed=21).rs, 21, 0, 1_200))


def test_lock_within_one_process(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    with RunLock(tmp_path), pytest.raises(RunError, match=f"process {os.getpid()}"):
        RunLock(tmp_path).acquire()
    with RunLock(tmp_path):                              # released: free again
        pass


def test_a_run_whose_writer_died_shows_as_interrupted(tmp_path, ref):
    """A manifest left "running" by a killed writer reads as interrupted in
    report and compare; while a live writer holds the lock it reads as running."""
    out = tmp_path / "run"
    shutil.copytree(ref, out)
    m = json.loads((out / "manifest.json").read_text())
    m["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(m))
    assert shown_status("running", out) == "interrupted; --resume finishes it"
    assert shown_status("complete", out) == "complete"
    with RunLock(out):
        assert shown_status("running", out) == "running"
    res = CliRunner().invoke(cli, ["report", str(out)])
    assert res.exit_code == 0, res.output
    assert "INCOMPLETE run (interrupted; --resume finishes it)" in res.output
    res = CliRunner().invoke(cli, ["compare", str(ref), str(out), "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert "INCOMPLETE (interrupted; --resume finishes it)" in res.output


# ------------------------------------------------------------------ damage
def _flip_byte(run):
    p = run / "shard-00003.parquet"
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0xFF
    p.write_bytes(b)


def _truncate(run):
    p = run / "shard-00003.parquet"
    p.write_bytes(p.read_bytes()[:500])


def _foreign(other):
    def damage(run):
        shutil.copy(other / "shard-00003.parquet", run / "shard-00003.parquet")
    return damage


def _copy_over(run):
    shutil.copy(run / "shard-00002.parquet", run / "shard-00003.parquet")


def _remove(run):
    (run / "shard-00003.parquet").unlink()


def _unlisted(run):
    shutil.copy(run / "shard-00002.parquet", run / "shard-00012.parquet")


def _listed_twice(run):
    m = json.loads((run / "manifest.json").read_text())
    m["shards"].append(dict(m["shards"][3]))
    (run / "manifest.json").write_text(json.dumps(m))


@pytest.fixture(scope="module")
def other_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("other") / "run"
    SIM.simulate("ningbo-3baida", deals=1_000, seed=99, out=out, shard_size=100)
    return out


DAMAGE = [
    ("flipped-byte", _flip_byte, "damaged", "shard-00003.parquet", "SHA-256 differs"),
    ("truncated", _truncate, "damaged", "shard-00003.parquet", "bytes, the manifest records"),
    ("foreign", None, "foreign", "shard-00003.parquet", "written by another run (seed 99, "
                                                         "deals 300..399)"),
    ("duplicate", _copy_over, "duplicate", "shard-00003.parquet",
     "a copy of shard-00002.parquet (deals 200..299)"),
    ("missing", _remove, "missing", "shard-00003.parquet", "not in the folder"),
    ("unlisted", _unlisted, "unlisted", "shard-00012.parquet", "not listed in the manifest"),
    ("listed-twice", _listed_twice, "duplicate", "shard-00003.parquet", "overlap another"),
]


@pytest.mark.parametrize("damage,kind,name,detail", [d[1:] for d in DAMAGE],
                         ids=[d[0] for d in DAMAGE])
def test_each_kind_of_damage_is_named_and_resume_repairs_it(tmp_path, ref, other_run, damage,
                                                            kind, name, detail):
    run = tmp_path / "run"
    shutil.copytree(ref, run)
    (damage or _foreign(other_run))(run)
    check = verify_run(run)
    assert not check.ok and not check.complete
    assert [(p.kind, p.file) for p in check.problems] == [(kind, name)]
    assert detail in check.problems[0].detail
    res = CliRunner().invoke(cli, ["report", str(run)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert name in res.output and any(w in res.output for w in (
        kind, "damaged Parquet", "not a readable Parquet", "missing"))
    fixed = SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=run, resume=True)
    assert fixed.recomputed and name in fixed.recomputed[0]
    assert verify_run(run).complete and rows(run).equals(rows(ref))


def test_size_only_check_skips_hashing(tmp_path, ref):
    run = tmp_path / "run"
    shutil.copytree(ref, run)
    _flip_byte(run)
    assert verify_run(run, checksums=False).ok
    assert not verify_run(run).ok


# ------------------------------------------------------------------ SIGKILL
def test_sigkill_at_random_moments_then_resume(tmp_path):
    """A CLI run killed with SIGKILL three times at random moments, resumed
    after each kill: never a partial shard, and the same rows as one run."""
    out = tmp_path / "run"
    args = [sys.executable, "-m", "nbsim", "simulate", "ningbo-3baida", "--deals", "120000",
            "--seed", "8", "--out", str(out), "--shard-size", "1500", "--workers", "2",
            "--no-progress"]
    rnd = random.Random(1234)
    for attempt in range(3):
        proc = subprocess.Popen(args + (["--resume"] if attempt else []),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not (out / "manifest.json").is_file() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rnd.uniform(0.0, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for p in out.glob("shard-*.parquet"):              # whole or absent: every one reads
            pl.read_parquet(p)
        check = verify_run(out)
        assert all(p.kind == "unlisted" for p in check.problems), check.message()
        if json.loads((out / "manifest.json").read_text())["shards"]:
            open_run(out)                     # a report reads the recorded shards
    res = subprocess.run(args + ["--resume"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert verify_run(out).complete
    expect = SIM.deal_frame(SIM.make_spec("ningbo-3baida", deals=1, seed=8).rs, 8, 0, 120_000)
    assert rows(out).equals(expect)


# ------------------------------------------------------------------ bad places
def test_disk_full_during_a_shard_keeps_a_consistent_run(tmp_path, monkeypatch, ref):
    out = tmp_path / "run"
    real = SH.write_parquet
    calls = []

    def full(df, path, footer):
        calls.append(path.name)
        if path.name == "shard-00006.parquet":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(df, path, footer)

    monkeypatch.setattr(SH, "write_parquet", full)
    with pytest.raises(RunError, match="the disk is full: .* continue with --resume"):
        SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, shard_size=100,
                     workers=1)
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and "No space left" in m["error"]
    assert m["deals_done"] == 600
    assert verify_run(out).ok                     # consistent: listed shards intact
    assert not list(out.glob("*.tmp"))
    monkeypatch.undo()
    SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, resume=True)
    assert rows(out).equals(rows(ref)) and verify_run(out).complete


def test_disk_full_for_the_manifest_too(tmp_path, monkeypatch, ref):
    """Shards fill the disk, then the manifest saves fail too: the message
    counts what the manifest on disk records, no temporary file is left, the
    report reads the recorded shards, and --resume finishes the run."""
    out = tmp_path / "run"
    real_shard, real_json = SH.write_parquet, SIM._write_json_atomic
    full = {"on": False}

    def shard(df, path, footer):
        if path.name == "shard-00004.parquet":
            full["on"] = True           # from here on, manifest saves fail
        if path.name == "shard-00006.parquet":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_shard(df, path, footer)

    def manifest_save(path, data):
        if full["on"]:
            with open(path.with_name(path.name + ".tmp"), "w"):
                pass                    # the temporary file is made, then the write fails
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_json(path, data)

    monkeypatch.setattr(SH, "write_parquet", shard)
    monkeypatch.setattr(SIM, "_write_json_atomic", manifest_save)
    with pytest.raises(RunError) as err:
        SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, shard_size=100,
                     workers=1)
    m = json.loads((out / "manifest.json").read_text())
    assert len(m["shards"]) == 4 and m["deals_done"] == 400
    assert "400 of 1,000 deals done; 4 finished shards" in str(err.value)
    assert "(1 more shard finished but could not be recorded" in str(err.value)
    (out / "manifest.json.tmp").unlink()        # (the stand-in above cannot clean up)
    monkeypatch.undo()
    res = CliRunner().invoke(cli, ["report", str(out)])
    assert res.exit_code == 0 and "INCOMPLETE run (interrupted" in res.output, res.output
    SIM.simulate("ningbo-3baida", deals=1_000, seed=21, out=out, resume=True)
    assert rows(out).equals(rows(ref)) and verify_run(out).complete


def test_manifest_save_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "manifest.json"
    SIM._write_json_atomic(path, {"a": 1})
    monkeypatch.setattr(SIM.os, "fsync", lambda fd: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, "No space left on device")))
    with pytest.raises(OSError):
        SIM._write_json_atomic(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 1} and not list(tmp_path.glob("*.tmp"))


def test_full_folder_refused_before_work(tmp_path, monkeypatch):
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(SIM.shutil, "disk_usage",
                        lambda p: usage._replace(free=10_000))
    with pytest.raises(RunError, match="only 0.0 MB free on its disk, and one shard needs"):
        SIM.simulate("ningbo-3baida", deals=1_000, seed=1, out=tmp_path / "r")
    assert not (tmp_path / "r" / "manifest.json").exists()


def test_cli_bad_places_give_one_line(tmp_path):
    runner = CliRunner()
    f = tmp_path / "file"
    f.write_text("x")
    for extra, msg in [(["--out", str(f / "sub")], "cannot create or write the folder"),
                       (["--out", str(tmp_path / "r"), "--deals", "-5"], "--deals must be 1.."),
                       (["--out", str(tmp_path / "r"), "--workers", "-1"],
                        "--workers must be 1..")]:
        args = ["simulate", "ningbo-3baida", "--deals", "10", "--seed", "1"] + extra
        res = runner.invoke(cli, args)
        assert res.exit_code == 2 and msg in res.output and "Traceback" not in res.output
    res = runner.invoke(cli, ["simulate", str(tmp_path / "none.toml"), "--deals", "10",
                              "--seed", "1", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "no such file or shipped config" in res.output
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------ run complete?
def test_run_status(tmp_path, ref):
    kw = dict(deals=1_000, seed=21)
    assert SIM.run_status("ningbo-3baida", out=tmp_path / "none", **kw) == "absent"
    assert SIM.run_status("ningbo-3baida", out=ref, **kw) == "complete"
    # fewer deals than the run has: not this run (a sweep replaces it)
    assert SIM.run_status("ningbo-3baida", out=ref, deals=500, seed=21) == "different"
    assert SIM.run_status("ningbo-3baida", out=ref, deals=2_000, seed=21) == "partial"
    assert SIM.run_status("ningbo-3baida", out=ref, deals=1_000, seed=3) == "different"
    run = tmp_path / "run"
    shutil.copytree(ref, run)
    _remove(run)
    assert SIM.run_status("ningbo-3baida", out=run, **kw) == "partial"


def test_progress_counts_deals_within_a_shard(tmp_path, monkeypatch):
    """Game shards report progress per kernel call, not once per shard."""
    from nbsim.run import frames
    monkeypatch.setattr(frames, "PLAIN_CHUNK", 25)
    ticks = []
    task = SH.ShardTask(SIM.make_spec("ninghai", deals=100, seed=1, mode="game"), "x", 0, 0, 100)
    tmp = Path(tmp_path)
    SH.run_shard(task, tmp, ticks.append)
    assert sum(ticks) == 100 and len(ticks) >= 4 and max(ticks) <= 25


def test_sigterm_stops_like_ctrl_c(tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "nbsim", "simulate", "ningbo-3baida", "--deals", "2000000",
            "--seed", "3", "--out", str(out), "--shard-size", "20000", "--no-progress"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (out / "manifest.json").is_file() and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    m = json.loads((out / "manifest.json").read_text())
    if proc.returncode == 0:                       # finished before the signal
        assert m["status"] == "complete"
        return
    assert proc.returncode == 130 and "continue with --resume" in err
    assert m["status"] == "interrupted" and verify_run(out).ok


def test_recorder_ticks_are_capped_and_late_ones_dropped(tmp_path):
    """Progress within a shard never passes its size (a recomputed Dask task
    reports again), ticks after its record are dropped, and the record moves
    the bar by the rest: every deal counted exactly once."""
    class Bar:
        def __init__(self):
            self.n = 0

        def update(self, n):
            self.n += n

    bar = Bar()
    rec = SIM._Recorder(tmp_path / "manifest.json", {"shards": []}, bar)
    rec.tick(0, 60, 100)
    rec.tick(0, 60, 100)                   # a second try of the same shard: capped
    assert bar.n == 100
    rec.tick(1, 30, 50)
    rec.record({"file": "shard-00001.parquet", "index": 1, "first_deal": 100, "deals": 50})
    assert bar.n == 150
    rec.tick(1, 20, 50)                    # late: dropped
    rec.record({"file": "shard-00000.parquet", "index": 0, "first_deal": 0, "deals": 100})
    assert bar.n == 150 and rec.manifest["deals_done"] == 150


OLD_LOOKAHEAD = ("lookahead:caution=0.3:bind=0.5:speed=1:short=1.5:worth=0.1:samples=48:"
                 "top_k=3:gap=1:z=1:playout=3")     # as manifests wrote it before `hold`


def test_a_parameter_added_since_reads_as_the_play_before_it(tmp_path):
    """A manifest written before a parameter existed reads with the
    parameter's ``before`` value (the play of that time), not today's
    default: an old lookahead run (no hold, confirm nor opponents then) is a
    run of lookahead:hold=0:confirm=0:opponents=0, never one of lookahead at
    its default hold 0.15, confirm 96 or opponents -1 (by the rules); the
    same for defend."""
    from nbsim.policy_specs import parse_policy, parse_written
    then = "lookahead:hold=0:confirm=0:opponents=0"
    assert parse_written(OLD_LOOKAHEAD) == parse_policy(then)
    assert parse_written(OLD_LOOKAHEAD) != parse_policy("lookahead")
    assert parse_written(OLD_LOOKAHEAD) != parse_policy("lookahead:hold=0:confirm=0")
    assert parse_written("lookahead") == parse_policy(then)
    assert parse_written("lookahead:hold=0.3") == parse_policy(
        "lookahead:hold=0.3:confirm=0:opponents=0")
    # written since stop 38 in the full form: the rules' model stays the rules' model
    assert parse_written("lookahead:opponents=-1:confirm=96") == parse_policy(
        "lookahead:hold=0:opponents=-1")
    assert parse_written("defend:caution=0.3:bind=0.5") == parse_policy("defend:hold=0")
    assert parse_written("defend:caution=0.3:bind=0.5") != parse_policy("defend")
    out = tmp_path / "run"
    SIM.simulate("ningbo-3baida", mode="game", deals=20, seed=4, out=out,
                 policies=("defend",) * 4)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["policies"] = [OLD_LOOKAHEAD] * 4
    (out / "manifest.json").write_text(json.dumps(manifest))
    kw = dict(mode="game", deals=20, seed=4, out=out)
    old = (then,) * 4
    assert SIM.run_status("ningbo-3baida", policies=old, **kw) == "complete"
    assert SIM.run_status("ningbo-3baida", policies=("lookahead",) * 4, **kw) == "different"
