"""The ``nbsim`` command's entry point: hand the command to a warm server.

A fresh Python process pays 2.5 to 3 s before nbsim does any work (imports of
numba, polars and pyarrow, numba's first cached call; measured by ``make
bench``). The warm server (``nbsim.server``) has paid that once: for each
command it forks a copy of itself that runs the command with this process's
arguments, terminal (its standard input, output and error are passed over
a Unix socket) and process settings (``process_settings``: working
directory, environment, umask, nice value, CPU affinity, resource limits,
ignored signals), so a warm call costs tenths of a second. The command, its
output, its exit status and its handling of signals are those of the same
command run in this process.

This module imports the standard library only (a few milliseconds):

1. ``NBSIM_SERVER=0`` (or ``off``), ``nbsim server ...``, a failed
   connection, a server that does not start the command within
   ``FIRST_REPLY_S`` seconds or refuses it, and a working directory that no
   longer exists all run the command in this process (``nbsim.cli.main``).
2. When no server answers, the command runs here and a server is started in
   the background afterwards for the next call (unless ``NBSIM_SERVER=0``).
   It stops after ``NBSIM_SERVER_IDLE`` seconds without a command (default
   900) and when any nbsim source file, installed package or setting of
   ``KEY_ENV_PREFIXES`` changes (they name its socket, so a changed setup
   gets a new server; the old one idles out).
3. Signals sent to this process (``RELAYED``: Ctrl-C, SIGTERM, SIGHUP,
   SIGQUIT, ...) are sent on to the command's process, except those this
   process ignores, which the command ignores too; Ctrl-Z stops both. If
   this process is killed, the command's process ends too, as if both were
   one. A SIGSTOP (which no process can catch) stops this process only.

Sockets live in ``$NBSIM_SERVER_DIR``, else ``$XDG_RUNTIME_DIR/nbsim``, else
``<tmp>/nbsim-<uid>``: a folder only its owner may open, checked before use.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import struct
import sys
import tempfile

from nbsim.errors import NbsimError

# settings read when the server imports its libraries: a change starts a new
# server (the command's own environment is passed on with every call)
KEY_ENV_PREFIXES = ("NBSIM_", "NUMBA_", "PYTHON", "MPL", "OPENBLAS", "OMP_", "LD_", "XDG_CACHE",
                    "HOME")
# settings of the server itself, not part of its identity
_SERVER_ENV = ("NBSIM_SERVER", "NBSIM_SERVER_IDLE", "NBSIM_SERVER_DIR")
# signals passed on to the command's process (Ctrl-Z is handled apart)
RELAYED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
           signal.SIGUSR2, signal.SIGALRM, signal.SIGWINCH, signal.SIGCONT)
FIRST_REPLY_S = 10.0     # a server that does not start a command in this time is passed over
HEADER = struct.Struct("!Q")     # the request's length, sent with the three descriptors


class ServerUnavailable(NbsimError):
    """No usable server (none listening, or it broke off before the command started)."""


def enabled() -> bool:
    """False when ``NBSIM_SERVER`` is 0, off, no or false (any case)."""
    return os.environ.get("NBSIM_SERVER", "").strip().lower() not in ("0", "off", "no", "false")


def server_dir(create: bool = True) -> str:
    """The folder of the servers' sockets and logs (see the module doc),
    created with mode 0700 when ``create``. Raises ServerUnavailable when it
    belongs to another user or others may open it."""
    base = os.environ.get("NBSIM_SERVER_DIR")
    if not base:
        run = os.environ.get("XDG_RUNTIME_DIR")
        base = (os.path.join(run, "nbsim") if run and os.path.isdir(run)
                else os.path.join(tempfile.gettempdir(), f"nbsim-{os.getuid()}"))
    try:
        base = os.path.abspath(base)
    except OSError as e:                       # a relative folder and no working directory
        raise ServerUnavailable(f"cannot use {base}: {e}") from None
    if create:
        try:
            os.makedirs(base, mode=0o700, exist_ok=True)
        except OSError as e:
            raise ServerUnavailable(f"cannot create {base}: {e}") from None
    try:
        st = os.stat(base)
    except OSError as e:
        raise ServerUnavailable(f"cannot use {base}: {e}") from None
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise ServerUnavailable(f"{base} must belong to this user with mode 0700")
    return base


def fingerprint(pkg: str | None = None) -> str:
    """A hash of what the server's imports depend on: the interpreter, every
    file of the package folder ``pkg`` (default: nbsim's; path, size,
    modification time), the folders of ``sys.path`` (an install or upgrade
    changes them) and the settings of ``KEY_ENV_PREFIXES``. 16 hex digits."""
    h = hashlib.sha256()
    h.update(f"{sys.executable}\0{sys.version}\0".encode("utf-8", "surrogateescape"))
    pkg = pkg or os.path.dirname(os.path.abspath(__file__))
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            try:
                st = os.stat(os.path.join(root, f))
            except OSError:
                continue
            h.update(f"{root}/{f}\0{st.st_size}\0{st.st_mtime_ns}\0".encode(
                "utf-8", "surrogateescape"))
    for p in sys.path:
        try:
            h.update(f"{p}\0{os.stat(p).st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
        except OSError:
            h.update(f"{p}\0-\0".encode("utf-8", "surrogateescape"))
    for k in sorted(os.environ):
        if k.startswith(KEY_ENV_PREFIXES) and k not in _SERVER_ENV:
            h.update(f"{k}={os.environ[k]}\0".encode("utf-8", "surrogateescape"))
    h.update(f"nice={os.getpriority(os.PRIO_PROCESS, 0)}".encode())
    return h.hexdigest()[:16]


def socket_path() -> str:
    """The socket of the server for this interpreter, code and settings."""
    return os.path.join(server_dir(), f"server-{fingerprint()}.sock")


def connect(path: str, timeout: float = 5.0) -> socket.socket | None:
    """A connection to the server listening at ``path``, or None."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
    except OSError:
        s.close()
        return None
    return s


def send_request(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """Send one request (JSON) with the file descriptors ``fds``."""
    payload = json.dumps(request).encode()
    socket.send_fds(conn, [HEADER.pack(len(payload))], fds)
    conn.sendall(payload)


def ask(path: str, op: str) -> dict | None:
    """Send the control request ``op`` ('status' or 'stop') to the server at
    ``path``; its JSON answer, or None when none answers."""
    conn = connect(path)
    if conn is None:
        return None
    try:
        with conn:
            send_request(conn, {"op": op}, [])
            line = conn.makefile("rb").readline()
    except OSError:
        return None
    return json.loads(line) if line else None


def closed_std_fds() -> list[int]:
    """Which of descriptors 0, 1, 2 are closed. They are then opened on
    /dev/null (before any socket, which would otherwise take their number)
    and the command's process closes them again."""
    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
    for fd in closed:
        os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    return closed


def _stream_info(stream) -> list | None:
    return [stream.encoding, stream.errors] if stream is not None else None


def process_settings() -> dict:
    """What the command's process must share with this one beyond its
    descriptors: working directory, environment, umask, argv[0], nice value,
    CPU affinity, resource limits, ignored signals and stream encodings.
    Raises ServerUnavailable when the working directory is gone (the
    command then runs here)."""
    import resource
    try:
        cwd = os.getcwd()
    except OSError as e:
        raise ServerUnavailable(f"no working directory: {e}") from None
    limits = {name: list(resource.getrlimit(getattr(resource, name)))
              for name in dir(resource) if name.startswith("RLIMIT_")}
    return {"cwd": cwd, "env": dict(os.environ), "umask": _umask(), "argv0": sys.argv[0],
            "nice": os.getpriority(os.PRIO_PROCESS, 0),
            "affinity": sorted(os.sched_getaffinity(0)), "rlimits": limits,
            "ignored": [int(s) for s in (*RELAYED, signal.SIGTSTP)
                        if signal.getsignal(s) == signal.SIG_IGN],
            "streams": [_stream_info(sys.stdin), _stream_info(sys.stdout),
                        _stream_info(sys.stderr)]}


def run_remote(conn: socket.socket, argv: list[str], closed: list[int]) -> int:
    """Run ``argv`` in the server at ``conn``; the command's exit status.
    ``closed``: the standard descriptors this process started without
    (``closed_std_fds``). Raises ServerUnavailable when the server did not
    start the command within ``FIRST_REPLY_S`` seconds or refused it (the
    caller then runs it here)."""
    request = {"op": "run", "argv": argv, "closed": closed, **process_settings()}
    try:
        send_request(conn, request, [0, 1, 2])
        conn.settimeout(FIRST_REPLY_S)
        reader = conn.makefile("rb")
        first = json.loads(reader.readline() or b"{}")
        conn.settimeout(None)
    except (OSError, ValueError) as e:
        raise ServerUnavailable(str(e)) from None
    if "pid" not in first:
        raise ServerUnavailable(first.get("refused", "the server closed the connection"))
    relay = _Relay(int(first["pid"]), request["ignored"])
    while True:
        try:
            line = reader.readline()
        except OSError:
            line = b""
        if not line:
            print("nbsim: the warm server's command process ended without an exit status "
                  "(set NBSIM_SERVER=0 to run commands without the server)", file=sys.stderr)
            return 1
        msg = json.loads(line)
        if "exit" in msg:
            return int(msg["exit"])
        if "signal" in msg:                     # killed: end the same way
            signum = int(msg["signal"])
            relay.restore()
            if signum not in (signal.SIGKILL, signal.SIGSTOP):     # these keep SIG_DFL
                signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return 128 + signum


class _Relay:
    """Signals to this process passed on to the command's process ``pid``:
    those of ``RELAYED`` this process does not ignore (an ignored one is
    ignored by the command too), and Ctrl-Z (SIGTSTP), which stops the
    command and then this process, and continues both on SIGCONT."""

    def __init__(self, pid: int, ignored: list[int]):
        self.pid = pid
        self.saved = {}
        for sig in RELAYED:
            if int(sig) not in ignored:
                self.saved[sig] = signal.signal(sig, self._forward)
        if signal.getsignal(signal.SIGTSTP) != signal.SIG_IGN:
            self.saved[signal.SIGTSTP] = signal.signal(signal.SIGTSTP, self._stop)

    def _send(self, signum: int) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.pid, signum)

    def _forward(self, signum, frame) -> None:
        self._send(signum)

    def _stop(self, signum, frame) -> None:
        # SIGSTOP: the command's process is in the server's orphaned process
        # group, where the kernel drops SIGTSTP
        self._send(signal.SIGSTOP)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)       # stops here until SIGCONT
        signal.signal(signal.SIGTSTP, self._stop)
        self._send(signal.SIGCONT)

    def restore(self) -> None:
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def start_server(path: str) -> None:
    """Start a server for ``path`` in the background (its own session, no
    terminal, output to ``<path>.log``, working directory /, and ``-P``: no
    folder of the caller's put first on its import path); returns at once.
    A second server for the same path exits by itself (``nbsim.server``
    holds a lock)."""
    import subprocess
    log = open(path[:-len(".sock")] + ".log", "ab")     # noqa: SIM115 - handed to the child
    try:
        subprocess.Popen([sys.executable, "-P", "-m", "nbsim.server", path],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd="/",
                         start_new_session=True, close_fds=True)
    finally:
        log.close()


def _in_process(argv: list[str]) -> int:
    from nbsim.cli import main as cli_main
    try:
        cli_main(argv)
    except SystemExit as e:
        return _exit_code(e.code)
    return 0


def _exit_code(code) -> int:
    """sys.exit's argument as a status (a message is printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main() -> None:
    """Console entry point (``nbsim``): run the command in the warm server,
    or here (module doc). Exits with the command's status."""
    argv = sys.argv[1:]
    if not enabled() or argv[:1] == ["server"]:
        sys.exit(_in_process(argv))
    try:
        path = socket_path()
    except ServerUnavailable:
        sys.exit(_in_process(argv))
    closed = closed_std_fds()
    conn = connect(path)
    if conn is not None:
        try:
            with conn:
                sys.exit(run_remote(conn, argv, closed))
        except ServerUnavailable:
            pass
    for fd in closed:                          # as this process started
        os.close(fd)
    try:
        code = _in_process(argv)
    finally:
        if conn is None:
            with contextlib.suppress(OSError):
                start_server(path)
    sys.exit(code)
