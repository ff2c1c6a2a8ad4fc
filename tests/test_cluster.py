"""``--cluster``: a real Dask LocalCluster with 2 worker processes on the
loopback, the same rows as a local run, and a worker killed mid-run whose
shard is computed again with the same content and no duplicate."""
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

from nbsim.errors import RunError
from nbsim.run import files as FILES
from nbsim.run import simulate as SIM
from nbsim.run.files import verify_run

distributed = pytest.importorskip("distributed")


def rows(out) -> pl.DataFrame:
    return pl.concat([pl.read_parquet(p) for p in FILES.shard_paths(out)]).sort("deal")


def test_cluster_local_gives_the_rows_of_a_local_run(tmp_path):
    """``python -m nbsim simulate --cluster local`` (the worker processes are
    spawned: they must not re-run the CLI)."""
    a, b = tmp_path / "a", tmp_path / "b"
    SIM.simulate("ningbo-3baida", deals=3_000, seed=12, out=a, shard_size=1_000, workers=1)
    proc = subprocess.run([sys.executable, "-m", "nbsim", "simulate", "ningbo-3baida",
                           "--deals", "3000", "--seed", "12", "--out", str(b), "--shard-size",
                           "400", "--workers", "2", "--cluster", "local", "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "3,000 deals in" in proc.stdout and "8 shards" in proc.stdout
    assert rows(b).equals(rows(a))
    m = json.loads((b / "manifest.json").read_text())
    assert m["cluster"] == "local" and verify_run(b).complete
    assert not list(b.glob("*.tmp"))


@pytest.fixture()
def loopback_cluster():
    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", scheduler_port=0,
                                  dashboard_address="127.0.0.1:0")
    yield lc
    lc.close()


def test_killed_worker_shard_is_recomputed(tmp_path, loopback_cluster):
    """Kill one worker process with SIGKILL once the first shard is in: its
    running shard is computed again elsewhere; the run has the rows of a
    local run, each shard listed once."""
    ref, out = tmp_path / "ref", tmp_path / "run"
    kw = dict(mode="game", deals=6_000, seed=3, shard_size=750, policies=("value",) * 4)
    SIM.simulate("ningbo-3baida", out=ref, workers=2, **kw)
    addr = loopback_cluster.scheduler_address
    assert addr.startswith("tcp://127.0.0.1:")
    client = distributed.Client(addr)
    pids = set(client.run(os.getpid).values())
    result: dict = {}

    def run():
        try:
            result["res"] = SIM.simulate("ningbo-3baida", out=out, cluster=addr, **kw)
        except BaseException as e:  # reported below
            result["err"] = e

    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and t.is_alive():
        m = out / "manifest.json"
        try:
            if m.is_file() and json.loads(m.read_text())["shards"]:
                break
        except ValueError:
            pass
        time.sleep(0.02)
    victim = sorted(pids)[0]
    os.kill(victim, signal.SIGKILL)
    t.join(180)
    assert not t.is_alive() and "err" not in result, result.get("err")
    res = result["res"]
    assert res.status == "complete" and res.deals_done == 6_000
    files = [s["file"] for s in res.shards]
    assert len(files) == len(set(files)) == 8
    assert verify_run(out).complete
    assert rows(out).equals(rows(ref))
    assert victim not in set(client.run(os.getpid).values())      # it really died
    client.close()


def test_cluster_needs_dask(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(RunError, match=r"--cluster needs Dask .* pip install 'nbsim\[cluster\]'"):
        SIM.simulate("ninghai", deals=10, seed=1, out=tmp_path / "r", cluster="local")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("addr", ["lokal", "http://x:1", "tcp://host", "tcp://a:b"])
def test_cluster_address_checked(tmp_path, addr):
    with pytest.raises(RunError, match="give 'local' or a scheduler address tcp://HOST:PORT"):
        SIM.simulate("ninghai", deals=10, seed=1, out=tmp_path / "r", cluster=addr)


def test_a_server_that_is_not_dask_gives_one_message(tmp_path):
    """An address where something else answers (here an HTTP 400 on every
    connection), and tls:// without Dask's TLS settings: a RunError naming
    the address, the folder kept for --resume."""
    import socketserver

    class Answer(socketserver.BaseRequestHandler):
        def handle(self):
            self.request.recv(100)
            self.request.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    server = socketserver.TCPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        addr = f"tcp://127.0.0.1:{server.server_address[1]}"
        with pytest.raises(RunError, match=f"--cluster {addr}: cannot connect to a Dask "
                                           r"scheduler .* is a Dask scheduler listening there"
                                           r".* with --resume"):
            SIM.simulate("ninghai", deals=10, seed=1, out=tmp_path / "r", cluster=addr)
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(RunError, match="tls:// needs Dask's TLS settings"):
        SIM.simulate("ninghai", deals=10, seed=1, out=tmp_path / "t",
                     cluster="tls://127.0.0.1:1")


def test_progress_moves_within_shards_on_a_cluster(tmp_path, loopback_cluster):
    """Workers report deals per kernel chunk (Dask events): the bar moves
    before a shard is recorded, and counts every deal exactly once."""
    from nbsim.run import cluster as CL
    from nbsim.run import shards as SH

    class Bar:
        def __init__(self):
            self.updates, self.postfix = [], []

        def update(self, n):
            self.updates.append(n)

        def set_postfix_str(self, text):
            self.postfix.append(text)

    tmp_path.mkdir(exist_ok=True)
    bar = Bar()
    rec = SIM._Recorder(tmp_path / "manifest.json", {"shards": []}, bar)

    spec = SIM.make_spec("ningbo-3baida", deals=16_000, seed=4, mode="game",
                         policies=("value",) * 4)
    tasks = [SH.ShardTask(spec, "progress-test", i, i * 8_000, (i + 1) * 8_000)
             for i in range(2)]
    CL.run_on_cluster(loopback_cluster.scheduler_address, tasks, tmp_path, 2, rec)
    assert sum(bar.updates) == 16_000
    # more updates than shards: some chunk's ticks came before its shard's record
    assert len(bar.updates) > 2, bar.updates
    assert rec.manifest["deals_done"] == 16_000 and len(rec.manifest["shards"]) == 2
    assert bar.postfix[0].startswith("connecting to tcp://127.0.0.1:")
    assert bar.postfix[-1] == ""
