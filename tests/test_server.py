"""The opt-in warm server of the ``nbsim`` command (nbsim.client,
nbsim.server, nbsim.protocol).

Each test runs the installed ``nbsim`` console script as a user would, with
its own server folder (NBSIM_SERVER_DIR), and stops its servers afterwards.
By default a command runs in its own process and starts no server; a
server started with ``nbsim server start`` (or by NBSIM_SERVER=1) serves
the later calls. What a command prints, writes and exits with must be the
same through the server as in its own process; signals reach the command;
a killed client takes its command with it; a changed setup gets a new
server.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from nbsim import protocol
from nbsim.run.lock import lock_holder

NBSIM = Path(sys.executable).with_name("nbsim")
pytestmark = pytest.mark.skipif(not NBSIM.exists(), reason="the nbsim console script is not "
                                                           "installed next to this interpreter")


@pytest.fixture()
def env(tmp_path):
    """The environment of a user with the default NBSIM_SERVER (unset) and
    the server folder tmp_path/srv: calls go through a server there once
    one is started."""
    e = {k: v for k, v in os.environ.items() if k != "NBSIM_SERVER"}
    e["NBSIM_SERVER_DIR"] = str(tmp_path / "srv")
    yield e
    subprocess.run([str(NBSIM), "server", "stop"], env=e, capture_output=True, timeout=60)
    _wait_gone(e, 30)


def _nbsim(args, env, **kw):
    return subprocess.run([str(NBSIM), *args], env=env, capture_output=True, text=True,
                          timeout=600, **kw)


def _status(env) -> list[dict]:
    out = _nbsim(["server", "status"], env)
    assert out.returncode == 0, out.stderr
    return [dict(pid=int(m[0]), requests=int(m[1]), running=int(m[2]))
            for m in re.findall(r"pid (\d+): (\d+) commands, (\d+) running", out.stdout)]


def _wait_gone(env, limit_s: float) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        if not _status(env):
            return True
        time.sleep(0.2)
    return False


def _started(env) -> dict:
    out = _nbsim(["server", "start"], env)
    assert out.returncode == 0, out.stderr
    (st,) = _status(env)
    return st


def _frame(run: Path) -> pl.DataFrame:
    return pl.read_parquet(sorted(run.glob("shard-*.parquet"))).sort("deal")


def _no_timing(text: str) -> str:
    return re.sub(r"in [\d.]+ s \([\d,]+ deals/s\)", "in T", text)


def test_by_default_a_command_runs_in_its_own_process(env, tmp_path):
    """With no server started, a call runs in its own process, starts no
    server and does not even create the server folder; NBSIM_SERVER=1
    starts the server first and runs the call in it."""
    out = _nbsim(["simulate", "ningbo-3baida", "--seed", "1", "--deals", "10", "--no-progress",
                  "--out", str(tmp_path / "own")], env)
    assert out.returncode == 0, out.stderr
    time.sleep(1)
    assert not Path(env["NBSIM_SERVER_DIR"]).exists()
    assert not _status(env)
    out = _nbsim(["rules", "ninghai", "--json"], dict(env, NBSIM_SERVER="1"))
    assert out.returncode == 0 and json.loads(out.stdout)
    (st,) = _status(env)
    assert st["requests"] == 1


@pytest.mark.parametrize("value,mode", [("", "running"), ("  ", "running"), ("1", "on"),
                                        (" Yes ", "on"), ("TRUE", "on"), ("0", "off"),
                                        ("off", "off"), ("No", "off")])
def test_server_mode_values(monkeypatch, value, mode):
    monkeypatch.setenv("NBSIM_SERVER", value)
    assert protocol.server_mode() == mode


def test_an_unknown_nbsim_server_value_is_one_message(env):
    """NBSIM_SERVER=maybe is no setting: server_mode names the allowed
    values, and the command (through the client, or python -m nbsim server
    status) stops with that one message, exit status 2, starting nothing."""
    from nbsim.errors import ConfigError
    bad = dict(env, NBSIM_SERVER="maybe")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NBSIM_SERVER", "maybe")
        with pytest.raises(ConfigError, match=r"^NBSIM_SERVER='maybe': expected 1 \(or on, "
                                              r"yes, true.*0 \(or off, no, false.*unset or "
                                              r"empty"):
            protocol.server_mode()
    for cmd in ([str(NBSIM), "rules", "ninghai"], [str(NBSIM), "server", "status"],
                [sys.executable, "-m", "nbsim", "server", "status"]):
        out = subprocess.run(cmd, env=bad, capture_output=True, text=True, timeout=300)
        assert out.returncode == 2 and out.stdout == "", out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: NBSIM_SERVER='maybe': expected 1")
    assert not Path(env["NBSIM_SERVER_DIR"]).exists()


def test_commands_through_the_server_match_their_own_process(env, tmp_path):
    """simulate (deal and game), report and a bad request: the same output,
    files and exit status through the server as with NBSIM_SERVER=0, and
    the server counts the calls it served."""
    st = _started(env)
    alone = dict(env, NBSIM_SERVER="0")
    for mode in ("deal", "game"):
        args = ["simulate", "ningbo-3baida", "--mode", mode, "--seed", "5", "--deals", "700",
                "--shard-size", "300", "--no-progress"]
        a = _nbsim([*args, "--out", str(tmp_path / f"srv-{mode}")], env)
        b = _nbsim([*args, "--out", str(tmp_path / f"own-{mode}")], alone)
        assert (a.returncode, b.returncode) == (0, 0), a.stderr + b.stderr
        assert _no_timing(a.stdout).replace("srv-", "own-") == _no_timing(b.stdout)
        assert _frame(tmp_path / f"srv-{mode}").equals(_frame(tmp_path / f"own-{mode}"))
        ra = _nbsim(["report", str(tmp_path / f"srv-{mode}")], env)
        rb = _nbsim(["report", str(tmp_path / f"own-{mode}")], alone)
        assert ra.returncode == rb.returncode == 0
        assert ra.stdout.replace("srv-", "own-") == rb.stdout
    bad = ["simulate", "no-such-variant", "--seed", "1", "--deals", "5", "--out",
           str(tmp_path / "x")]
    a, b = _nbsim(bad, env), _nbsim(bad, alone)
    assert a.returncode == b.returncode == 2
    assert a.stderr == b.stderr and "no such file or shipped config" in a.stderr
    (after,) = _status(env)
    assert after["pid"] == st["pid"] and after["requests"] == st["requests"] + 5


def test_working_directory_and_umask_are_the_clients(env, tmp_path):
    """A relative --out lands in the client's working directory, and the
    files are created under the client's umask, as in its own process."""
    _started(env)
    work = tmp_path / "here"
    work.mkdir()
    modes = []
    for name, e in (("srv", env), ("own", dict(env, NBSIM_SERVER="0"))):
        out = _nbsim(["simulate", "ningbo-3baida", "--seed", "1", "--deals", "10", "--out", name,
                      "--no-progress"], e, cwd=work, preexec_fn=lambda: os.umask(0o027))
        assert out.returncode == 0, out.stderr
        modes.append(sorted((p.name, p.stat().st_mode) for p in (work / name).iterdir()))
    assert modes[0] == modes[1]
    assert all(mode & 0o007 == 0 for _, mode in modes[0])


def test_ctrl_c_reaches_the_command_and_resume_finishes(env, tmp_path):
    """SIGINT to the client interrupts the command in the server (status
    130, finished shards kept); SIGKILL of the client kills the command; the
    run then resumes to the content of an uninterrupted run."""
    _started(env)
    run = tmp_path / "run"
    args = ["simulate", "ningbo-3baida", "--mode", "game", "--seed", "9", "--deals", "24000",
            "--shard-size", "1000", "--workers", "1", "--no-progress", "--out", str(run)]
    proc = subprocess.Popen([str(NBSIM), *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _wait_for_shard(run, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "continue with --resume" in err
    kept = sorted(run.glob("shard-*.parquet"))
    assert kept

    # SIGKILL of the command's process (the OOM killer, kill -9 of the lock
    # holder): the client ends the same way, without a traceback
    proc = subprocess.Popen([str(NBSIM), *args, "--resume"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    holder = None
    # {}: the lock is taken but its holder's record not yet written (the
    # holder truncates the file, then writes it): wait for the record
    while not holder and time.monotonic() - t0 < 60:
        holder = lock_holder(run)
        time.sleep(0.05)
    assert holder and holder["pid"] != proc.pid
    os.kill(holder["pid"], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL and "Traceback" not in err, err

    proc = subprocess.Popen([str(NBSIM), *args, "--resume"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    t0 = time.monotonic()
    while _status(env)[0]["running"] and time.monotonic() - t0 < 30:
        time.sleep(0.2)
    assert _status(env)[0]["running"] == 0          # the command died with its client

    done = _nbsim([*args, "--resume"], env)
    assert done.returncode == 0, done.stderr
    ref = tmp_path / "ref"
    ref_args = ["simulate", "ningbo-3baida", "--mode", "game", "--seed", "9", "--deals", "24000",
                "--shard-size", "1000", "--workers", "2", "--no-progress", "--out", str(ref)]
    whole = _nbsim(ref_args, dict(env, NBSIM_SERVER="0"))
    assert whole.returncode == 0, whole.stderr
    assert _frame(run).equals(_frame(ref))


def _wait_for_shard(run: Path, proc, limit_s: float = 120) -> None:
    t0 = time.monotonic()
    while not list(run.glob("shard-*.parquet")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < limit_s
        time.sleep(0.05)


def test_a_changed_setup_gets_its_own_server(env, tmp_path, monkeypatch):
    """The socket's name changes with a setting read at import (NUMBA_*,
    NBSIM_*) and with any file of the package, not with the server's own
    settings."""
    monkeypatch.setenv("NBSIM_SERVER_DIR", env["NBSIM_SERVER_DIR"])
    base = protocol.socket_path()
    monkeypatch.setenv("NBSIM_SERVER_IDLE", "5")
    assert protocol.socket_path() == base
    monkeypatch.setenv("NUMBA_OPT", "2")
    assert protocol.socket_path() != base
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("x = 1\n")
    before = protocol.fingerprint(str(pkg))
    (pkg / "a.py").write_text("x = 22\n")
    assert protocol.fingerprint(str(pkg)) != before


def test_stop_idle_and_a_stale_socket(env, tmp_path):
    """``nbsim server stop`` ends the server and removes its socket; a
    server exits by itself after NBSIM_SERVER_IDLE seconds; a socket file
    left by a dead server is replaced by the next server."""
    st = _started(env)
    stopped = _nbsim(["server", "stop"], env)
    assert stopped.returncode == 0 and str(st["pid"]) in stopped.stdout
    assert _wait_gone(env, 30)
    assert not list(Path(env["NBSIM_SERVER_DIR"]).glob("*.sock"))

    idle = dict(env, NBSIM_SERVER_IDLE="1")
    _started(idle)
    assert _wait_gone(idle, 40)

    path = Path(_socket_for(env))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))                  # a socket file nobody listens on
    s.close()
    out = _nbsim(["rules", "ningbo-3baida", "--json"], env)   # runs here, starts no server
    assert out.returncode == 0 and json.loads(out.stdout)
    assert not _status(env)
    out = _nbsim(["rules", "ningbo-3baida", "--json"], dict(env, NBSIM_SERVER="1"))
    assert out.returncode == 0 and json.loads(out.stdout)      # a new server at that socket
    (st,) = _status(env)
    assert st["requests"] == 1


def _socket_for(env) -> str:
    code = "from nbsim import protocol; print(protocol.socket_path())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_an_unsafe_folder_runs_commands_in_their_own_process(tmp_path):
    """A server folder others may open is refused, even with NBSIM_SERVER=1:
    the command still runs (in its own process) and no server starts."""
    srv = tmp_path / "open"
    srv.mkdir(mode=0o755)
    srv.chmod(0o755)
    e = dict(os.environ, NBSIM_SERVER="1", NBSIM_SERVER_DIR=str(srv))
    out = _nbsim(["rules", "ninghai", "--json"], e)
    assert out.returncode == 0 and json.loads(out.stdout)
    time.sleep(1)
    assert not list(srv.iterdir())
    with pytest.raises(protocol.ServerUnavailable, match="mode 0700"):
        os.environ["NBSIM_SERVER_DIR"] = str(srv)
        try:
            protocol.server_dir()
        finally:
            del os.environ["NBSIM_SERVER_DIR"]


def _game(out: Path, deals: int = 20000) -> list[str]:
    return [str(NBSIM), "simulate", "ningbo-3baida", "--mode", "game", "--deals", str(deals),
            "--seed", "1", "--workers", "1", "--shard-size", "1000", "--no-progress",
            "--out", str(out)]


def _files(run: Path) -> int:
    return len(list(run.glob("shard-*.parquet")))


def test_kill_minus_9_with_closed_descriptors_and_ignored_signals(env, tmp_path):
    """With its standard output closed, a client killed with SIGKILL still
    takes its command along (the command does not inherit the socket as its
    output); a signal the caller ignores (here SIGINT, as a shell does for
    background jobs) is ignored by the command too, and one that only the
    process which started the server ignored (SIGUSR1) is not. (Ctrl-Z is
    not tested here: in an orphaned process group, as under some CI
    runners, the kernel drops SIGTSTP for the client and the command alike.)"""
    out = _nbsim(["server", "start"], env,
                 preexec_fn=lambda: signal.signal(signal.SIGUSR1, signal.SIG_IGN))
    assert out.returncode == 0, out.stderr
    run = tmp_path / "closed"
    proc = subprocess.Popen(_game(run), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    _wait_for_shard(run, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    time.sleep(1.0)
    n = _files(run)
    time.sleep(2.0)
    assert _files(run) == n < 20

    run = tmp_path / "ignored"
    proc = subprocess.Popen(_game(run), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                        signal.SIG_IGN))
    _wait_for_shard(run, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert _files(run) == 20

    run = tmp_path / "usr1"
    proc = subprocess.Popen(_game(run), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _wait_for_shard(run, proc)
    proc.send_signal(signal.SIGUSR1)
    assert proc.wait(timeout=60) == -signal.SIGUSR1      # killed by it, as the command was
    assert _files(run) < 20


def test_nice_affinity_and_odd_settings_are_the_clients(env, tmp_path):
    """The command runs with the client's CPU affinity (the default
    --workers follows it) and nice value; a setting that is not UTF-8 and a
    working directory that no longer exists do not break the client."""
    _started(env)
    out = _nbsim(["simulate", "ningbo-3baida", "--mode", "game", "--deals", "600",
                  "--shard-size", "300", "--seed", "1", "--no-progress", "--out",
                  str(tmp_path / "one")], env, preexec_fn=lambda: os.sched_setaffinity(0, [0]))
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "one" / "manifest.json").read_text())["workers"] == 1
    run = tmp_path / "niced"
    _nbsim(["server", "start"], env, preexec_fn=lambda: os.nice(5))
    proc = subprocess.Popen(_game(run), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=lambda: os.nice(5))
    _wait_for_shard(run, proc)
    writer = json.loads((run / ".nbsim.lock").read_text())["pid"]   # the command's process
    nice = int(Path(f"/proc/{writer}/stat").read_text().rsplit(")", 1)[1].split()[16])
    proc.kill()
    proc.wait(timeout=30)
    assert nice == 5
    assert len(_status(env)) == 2                # a server per nice value
    # the byte 0xff, not UTF-8: the call starts a server of its own (a setting
    # names the setup) and runs in it; that server exits once idle for 1 s
    odd = dict(env, NBSIM_ODD_SETTING="\udcff", NBSIM_SERVER="1", NBSIM_SERVER_IDLE="1")
    out = subprocess.run([os.fsencode(str(NBSIM)), b"--version"],
                         env={os.fsencode(k): os.fsencode(v) for k, v in odd.items()},
                         capture_output=True, timeout=120)
    assert out.returncode == 0 and b"version" in out.stdout
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.run(f"cd {gone} && rmdir {gone} && {NBSIM} rules ningbo-3baida --json",
                          shell=True, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)


def test_a_new_setup_stops_the_older_server(env):
    """Starting the server of a changed setup (here one more NBSIM_ setting)
    asks the older server of the same installation to stop."""
    first = _started(env)
    other = dict(env, NBSIM_SETUP_TAG="2")
    out = _nbsim(["server", "start"], other)
    assert out.returncode == 0, out.stderr
    t0 = time.monotonic()
    while len(_status(other)) > 1 and time.monotonic() - t0 < 30:
        time.sleep(0.2)
    (st,) = _status(other)
    assert st["pid"] != first["pid"]
