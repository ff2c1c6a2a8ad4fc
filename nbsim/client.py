"""The ``nbsim`` command's entry point: hand the command to a warm server.

A fresh Python process pays 2.5 to 3 s before nbsim does any work (imports of
numba, polars and pyarrow, numba's first cached call; measured by ``make
bench``). The warm server (``nbsim.server``) has paid that once: for each
command it forks a copy of itself that runs the command with this process's
arguments, working directory, environment, umask and terminal (its standard
input, output and error are passed over a Unix socket), so a warm call costs
tenths of a second. The command, its output, its exit status and its
handling of Ctrl-C are those of the same command run in this process.

This module imports the standard library only (a few milliseconds):

1. ``NBSIM_SERVER=0`` (or ``off``), ``nbsim server ...`` and a failed
   connection all run the command in this process (``nbsim.cli.main``).
2. When no server answers, the command runs here and a server is started in
   the background afterwards for the next call (unless ``NBSIM_SERVER=0``).
   It stops after ``NBSIM_SERVER_IDLE`` seconds without a command (default
   900) and when any nbsim source file, installed package or setting of
   ``KEY_ENV_PREFIXES`` changes (they name its socket, so a changed setup
   gets a new server; the old one idles out).
3. Signals sent to this process (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT) are sent on
   to the command's process; if this process is killed, the server kills the
   command's process too, as if both were one.

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
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
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
    h.update(f"{sys.executable}\0{sys.version}\0".encode())
    pkg = pkg or os.path.dirname(os.path.abspath(__file__))
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            try:
                st = os.stat(os.path.join(root, f))
            except OSError:
                continue
            h.update(f"{root}/{f}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for p in sys.path:
        try:
            h.update(f"{p}\0{os.stat(p).st_mtime_ns}\0".encode())
        except OSError:
            h.update(f"{p}\0-\0".encode())
    for k in sorted(os.environ):
        if k.startswith(KEY_ENV_PREFIXES) and k not in _SERVER_ENV:
            h.update(f"{k}={os.environ[k]}\0".encode())
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


def _std_fds() -> list[int]:
    """Descriptors 0, 1, 2 (a closed one replaced by /dev/null)."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            fds.append(os.open(os.devnull, os.O_RDWR))
    return fds


def _stream_info(stream) -> list | None:
    return [stream.encoding, stream.errors] if stream is not None else None


def run_remote(conn: socket.socket, argv: list[str]) -> int:
    """Run ``argv`` in the server at ``conn``; the command's exit status.
    Raises ServerUnavailable when the server broke off before the command
    started (the caller then runs it here)."""
    request = {"op": "run", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
               "umask": _umask(), "streams": [_stream_info(sys.stdin), _stream_info(sys.stdout),
                                             _stream_info(sys.stderr)]}
    try:
        send_request(conn, request, _std_fds())
        conn.settimeout(None)
        reader = conn.makefile("rb")
        first = reader.readline()
    except OSError as e:
        raise ServerUnavailable(str(e)) from None
    if not first:
        raise ServerUnavailable("the server closed the connection")
    pid = json.loads(first)["pid"]

    def forward(signum, frame):
        with contextlib.suppress(OSError):
            os.kill(pid, signum)
    for sig in FORWARDED:
        signal.signal(sig, forward)
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
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return 128 + signum


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
    conn = connect(path)
    if conn is not None:
        try:
            with conn:
                sys.exit(run_remote(conn, argv))
        except ServerUnavailable:
            pass
    try:
        code = _in_process(argv)
    finally:
        if conn is None:
            with contextlib.suppress(OSError):
                start_server(path)
    sys.exit(code)
