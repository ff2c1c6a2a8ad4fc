"""The opt-in warm server of the ``nbsim`` command (``nbsim server start``,
or ``NBSIM_SERVER=1``; ``nbsim.client`` explains the client's side and
when it uses a server; ``nbsim.protocol`` holds what both sides share: the
sockets' folder, the wire format, and the ``status`` and ``stop`` requests
the ``nbsim server`` commands send). This module imports ``nbsim.protocol``
and the modules it preloads (among them ``nbsim.cli``, which runs the
commands), never ``nbsim.client``; no module imports this one (a server is
started as a process: ``python -m nbsim.server``).

``python -m nbsim.server SOCKET`` imports nbsim's modules and libraries once,
loads the compiled kernels of ``warmup.LOADABLE`` and the lookup tables, and
listens on the Unix socket SOCKET. For each command it forks: the copy takes
the client's standard input, output and error (passed over the socket), its
working directory, environment, umask and arguments, runs ``nbsim.cli.run``
and exits with its status, which it sends back first. The server itself
never runs polars or pyarrow code and starts no thread, so that every fork
starts from a process whose only threads are the libraries' idle helpers
(polars and pyarrow start their thread pools on first use, in the copy).

It serves clients of its own user only (checked with SO_PEERCRED; the
socket's folder has mode 0700), one lock file per socket keeps a second
server for the same socket from starting, a new server asks those of an
older setup of the same installation to stop (``supersede``), and it exits
after ``NBSIM_SERVER_IDLE`` seconds without a command (default 900), on
SIGTERM, on ``nbsim server stop`` and when its socket file is removed or
replaced.
A client that goes away (killed) takes its command's process with it
(SIGKILL: a thread of the command's process watches the client's socket),
as if they were one process, even when the server itself is gone; a
command's process killed by a signal is reported to its client with that
signal. The command's process takes the client's nice value, CPU affinity,
resource limits and ignored signals too; when it cannot (a lower nice value
or a higher hard limit than the server's), it refuses, and the client runs
the command itself.
"""
from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
import warnings

from nbsim.protocol import RELAYED, ask, read_request, servers

DEFAULT_IDLE_S = 900.0
_CRED = struct.Struct("3i")          # SO_PEERCRED: pid, uid, gid


def _log(msg: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {msg}", flush=True)


def idle_limit() -> float:
    """Seconds without a command before the server exits (``NBSIM_SERVER_IDLE``)."""
    try:
        return max(1.0, float(os.environ.get("NBSIM_SERVER_IDLE", DEFAULT_IDLE_S)))
    except ValueError:
        return DEFAULT_IDLE_S


def preload() -> list[str]:
    """Import the CLI's modules and load the kernels of every compiled group
    of ``warmup.LOADABLE`` (and the lookup tables) into this process; the
    groups loaded. A group not yet compiled is left to the commands (each
    compiles or loads it itself)."""
    import nbsim.analysis.comparison  # noqa: F401
    import nbsim.analysis.report  # noqa: F401
    import nbsim.analysis.sweeps  # noqa: F401
    import nbsim.cli  # noqa: F401
    import nbsim.play.duel  # noqa: F401
    import nbsim.play.replays  # noqa: F401
    import nbsim.run.frames  # noqa: F401
    import nbsim.run.simulate  # noqa: F401
    from nbsim import warmup
    loaded = []
    for group in warmup.LOADABLE:
        if warmup.is_compiled(group):
            warmup.load(group)
            loaded.append(group)
    return loaded


class Server:
    """One listening socket, its forked command processes and their clients."""

    def __init__(self, path: str, lock=None):
        self.path = path
        self.lock = lock                      # the lock file, held for life
        self.started = time.time()
        self.last = time.monotonic()
        self.requests = 0
        self.loaded: list[str] = []
        self.children: dict[int, socket.socket] = {}      # command pid -> client
        self.stopping = False
        self.finished = False
        self.sel = selectors.DefaultSelector()
        self.listener: socket.socket | None = None
        self.inode = 0
        self.wake_r, self.wake_w = os.pipe()

    # ---------------------------------------------------------------- setup
    def listen(self) -> None:
        """Bind the socket (a stale file of a dead server is replaced)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(self.path)
        os.chmod(self.path, 0o600)
        s.listen(16)
        s.setblocking(False)
        self.listener = s
        self.last = time.monotonic()               # idle from now, not from the preload
        self.inode = os.stat(self.path).st_ino
        self.sel.register(s, selectors.EVENT_READ, "accept")
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.sel.register(self.wake_r, selectors.EVENT_READ, "signal")
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *a: None)
        signal.signal(signal.SIGTERM, self._on_term)

    def _on_term(self, signum, frame) -> None:
        self.stopping = True

    # ----------------------------------------------------------------- loop
    def serve(self) -> None:
        """Serve until idle for ``idle_limit()`` seconds or told to stop, then
        wait for the running commands."""
        limit = idle_limit()
        while True:
            self._reap()
            if self.finished and not self.children:
                self.finished = False
                self._preload_new()
            if self.stopping or not self._socket_is_ours():
                self._close_listener()
                if not self.children:
                    return
            elif not self.children and time.monotonic() - self.last > limit:
                return
            for key, _ in self.sel.select(timeout=min(30.0, limit)):
                if key.data == "accept":
                    self._accept()
                elif key.data == "signal":
                    with contextlib.suppress(OSError):
                        while os.read(self.wake_r, 512):
                            pass

    def _preload_new(self) -> None:
        """Load the groups compiled since the server started (a command of
        this server may have compiled them)."""
        from nbsim import warmup
        for group in warmup.LOADABLE:
            if group not in self.loaded and warmup.is_compiled(group):
                try:
                    warmup.load(group)
                except Exception as e:         # noqa: BLE001 - the commands report it
                    _log(f"loading {group} failed: {type(e).__name__}: {e}")
                    continue
                self.loaded.append(group)
                _log(f"preloaded {group}")

    def _socket_is_ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def _close_listener(self) -> None:
        if self.listener is not None:
            self.sel.unregister(self.listener)
            self.listener.close()
            self.listener = None
            if self._socket_is_ours():
                with contextlib.suppress(OSError):
                    os.unlink(self.path)

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            self.last = time.monotonic()
            self.finished = True
            if os.WIFSIGNALED(status):
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps({"signal": os.WTERMSIG(status)}).encode() + b"\n")
            conn.close()

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return
        conn.setblocking(True)
        conn.settimeout(1.0)          # a client sends its request as soon as it connects
        try:
            uid = _CRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                               _CRED.size))[1]
            if uid != os.getuid():
                raise OSError(f"a client of user {uid}")
            request, fds = read_request(conn)
        except (OSError, ValueError) as e:
            _log(f"request refused: {e}")
            conn.close()
            return
        op = request.get("op")
        if op == "run" and len(fds) == 3 and not self.stopping:
            self._fork(conn, request, fds)
            return
        for fd in fds:
            os.close(fd)
        if op == "run":
            answer = {"refused": "the server is stopping"}
        else:
            self.stopping = self.stopping or op == "stop"
            answer = self.status()
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(answer).encode() + b"\n")
        conn.close()

    def status(self) -> dict:
        """What ``nbsim server status`` prints: pid, socket, start time,
        commands served and running, groups preloaded, idle seconds."""
        return {"pid": os.getpid(), "socket": self.path, "started": self.started,
                "package": _package(), "python": sys.executable,
                "nice": os.getpriority(os.PRIO_PROCESS, 0),
                "requests": self.requests, "running": len(self.children),
                "preloaded": self.loaded, "idle_s": round(time.monotonic() - self.last, 1),
                "idle_limit_s": idle_limit(), "stopping": self.stopping}

    def _fork(self, conn: socket.socket, request: dict, fds: list[int]) -> None:
        self.requests += 1
        self.last = time.monotonic()
        sys.stdout.flush()
        sys.stderr.flush()
        with warnings.catch_warnings():        # Python 3.12+ warns of the libraries' idle threads
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            try:
                self._child_close()
                code = run_command(conn, request, fds)
            except BaseException:              # noqa: BLE001 - the copy must never return
                code = 70
            os._exit(code)
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn

    def _child_close(self) -> None:
        """In the forked copy: drop the server's sockets, pipe and handlers."""
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.listener is not None:
            self.listener.close()
        for c in self.children.values():
            c.close()
        self.sel.close()
        os.close(self.wake_r)
        os.close(self.wake_w)
        if self.lock is not None:             # a new server may start while this runs
            self.lock.close()


def _package() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def supersede(path: str) -> list[int]:
    """Ask the other servers of this interpreter, package folder and nice
    value (an older setup: edited files, other settings) to stop, so that
    one server per installation runs (and one per nice value: a server
    cannot lower its copies' nice value); the pids asked."""
    return [int(st["pid"]) for st in servers(os.path.dirname(path), skip=path)
            if st.get("package") == _package()
            and st.get("python") == sys.executable
            and st.get("nice") == os.getpriority(os.PRIO_PROCESS, 0)
            and ask(st["socket"], "stop") is not None]


def _text_stream(fd: int, info, mode: str, line_buffering: bool):
    enc, errors = info if info else (None, None)
    raw = io.FileIO(fd, mode, closefd=False)
    buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding=enc, errors=errors,
                            line_buffering=line_buffering)


def run_command(conn: socket.socket, request: dict, fds: list[int]) -> int:
    """In the forked copy: become the client's process (``adopt``), tell
    the client its pid, run the command through ``nbsim.cli.run``, run the
    exit handlers a normal exit would run, and send the exit status. A
    client that goes away takes this process with it (``_watch``). When the
    client's settings cannot be reproduced here (a lower nice value, a
    higher hard limit), the command is refused and the client runs it
    itself. Returns the status."""
    try:
        adopt(request, fds)
    except (OSError, ValueError) as e:
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps({"refused": f"cannot take the caller's settings: {e}"})
                         .encode() + b"\n")
        return 0
    conn.settimeout(None)
    import threading
    threading.Thread(target=_watch, args=(conn,), daemon=True).start()
    conn.sendall(json.dumps({"pid": os.getpid()}).encode() + b"\n")
    code = 0
    try:
        from nbsim.cli import run
        code = run([str(a) for a in request["argv"]])
    except BaseException as e:                 # noqa: BLE001 - as a normal process would
        _print_uncaught(e)
        code = 1
    _exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps({"exit": code}).encode() + b"\n")
    return code


def _print_uncaught(e: BaseException) -> None:
    """An exception no command caught, printed as the interpreter would
    (to standard error, nothing when it is closed), without this module's
    frames."""
    if sys.stderr is None:
        return
    import traceback
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb, file=sys.stderr)


def adopt(request: dict, fds: list[int]) -> None:
    """Take the client's descriptors 0-2 (closing those it started without),
    streams, working directory, environment, umask, argv, ignored signals,
    nice value, CPU affinity and resource limits (``nbsim.client.process_settings``).
    Raises OSError or ValueError when one cannot be taken."""
    import resource
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    streams = request.get("streams") or [None, None, None]
    sys.stdin = _text_stream(0, streams[0], "r", False)
    sys.stdout = _text_stream(1, streams[1], "w", os.isatty(1))
    sys.stderr = _text_stream(2, streams[2], "w", True)
    for fd in request.get("closed", []):
        os.close(fd)
        setattr(sys, ("stdin", "stdout", "stderr")[fd], None)
    for name in ("stdin", "stdout", "stderr"):        # what a fresh process's would be
        setattr(sys, f"__{name}__", getattr(sys, name))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(int(request["umask"]))
    sys.argv = [str(request.get("argv0", "nbsim")), *map(str, request["argv"])]
    for signum in (*RELAYED, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
        # not what the process that started the server ignored, but the caller's
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in request.get("ignored", []):
        signal.signal(signum, signal.SIG_IGN)
    nice = int(request.get("nice", 0))
    if os.getpriority(os.PRIO_PROCESS, 0) != nice:
        os.setpriority(os.PRIO_PROCESS, 0, nice)
    if "affinity" in request:
        os.sched_setaffinity(0, request["affinity"])
    for name, (soft, hard) in request.get("rlimits", {}).items():
        which = getattr(resource, name, None)
        if which is not None and resource.getrlimit(which) != (soft, hard):
            resource.setrlimit(which, (soft, hard))


def _watch(conn: socket.socket) -> None:
    """The client's end closing (the client ended or was killed) ends this
    command process at once, as if both were one process."""
    with contextlib.suppress(OSError):
        while conn.recv(64):
            pass
    os.kill(os.getpid(), signal.SIGKILL)


def _exit_handlers() -> None:
    """What the interpreter does at a normal exit: join the non-daemon
    threads (and the thread pools' exit hooks), then the atexit functions."""
    import atexit
    import threading
    with contextlib.suppress(Exception):
        threading._shutdown()                  # type: ignore[attr-defined]
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()


def main(argv: list[str] | None = None) -> int:
    """``python -m nbsim.server SOCKET``: serve at SOCKET (started by
    ``nbsim server start``, or by a call with ``NBSIM_SERVER=1``, through
    ``nbsim.protocol.start_server``). Exit status 0, 1 when another server
    holds SOCKET's lock, 2 for a bad command line."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not args[0].endswith(".sock"):
        print("usage: python -m nbsim.server PATH.sock", file=sys.stderr)
        return 2
    path = args[0]
    lock = open(path[:-len(".sock")] + ".lock", "w")      # noqa: SIM115 - held for life
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 1
    server = Server(path, lock)
    t0 = time.perf_counter()
    try:
        server.loaded = preload()
    except Exception as e:                     # noqa: BLE001 - the commands report it
        _log(f"preload failed ({type(e).__name__}: {e}); commands load what they need")
    server.listen()
    _log(f"serving {path}: preloaded {', '.join(server.loaded) or 'no kernels'} in "
         f"{time.perf_counter() - t0:.1f} s")
    old = supersede(path)
    if old:
        _log(f"asked the servers of an older setup to stop: pid {', '.join(map(str, old))}")
    try:
        server.serve()
    finally:
        server._close_listener()
        _log(f"stopped after {server.requests} commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
