"""How to find, start and talk to a warm server: what the client
(``nbsim.client``), the server (``nbsim.server``) and the ``nbsim server
start|stop|status`` commands (``nbsim.cli_server``) share.

This module imports the standard library only (and ``nbsim.errors``), and
no other module of the three, so none of them imports another through it:

* the sockets' folder and names: ``$NBSIM_SERVER_DIR``, else
  ``$XDG_RUNTIME_DIR/nbsim``, else ``<tmp>/nbsim-<uid>``, a folder only its
  owner may open, checked before use (``server_dir``); one socket per
  interpreter, code and settings (``fingerprint``, ``socket_path``);
* the wire format: a request is JSON, preceded by its length (``HEADER``)
  sent with the caller's file descriptors (``send_request``,
  ``read_request``); every answer is one JSON line;
* whether the ``nbsim`` command uses a server at all (``server_mode``:
  ``NBSIM_SERVER``; by default only one that is running already);
* the control requests 'status' and 'stop' (``ask``) and what the
  ``nbsim server`` commands do with them (``servers``, ``stop_all``,
  ``start``), and starting a server in the background (``start_server``);
* the signals a client passes on to its command (``RELAYED``) and how long
  it waits for a server to start a command (``FIRST_REPLY_S``).
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import struct
import sys
import tempfile
import time

from nbsim.errors import ConfigError, NbsimError

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
MAX_REQUEST = 16 << 20           # bytes; a longer request is refused


class ServerUnavailable(NbsimError):
    """No usable server (none listening, or it broke off before the command started)."""


_OFF = ("0", "off", "no", "false")
_ON = ("1", "on", "yes", "true")


def server_mode() -> str:
    """How the ``nbsim`` command uses a warm server, from ``NBSIM_SERVER``
    (any case, spaces ignored):

    * ``"off"`` (0, off, no, false): every command runs in its own process;
    * ``"on"`` (1, on, yes, true): the command runs in the server of this
      setup, which is started first (as ``nbsim server start`` does) when
      none answers;
    * ``"running"`` (unset or empty; the default): the command runs in the
      server of this setup if one is running (started by ``nbsim server
      start`` or an ``"on"`` call), else in its own process; no server is
      ever started.

    Raises ConfigError for any other value, naming the allowed ones."""
    raw = os.environ.get("NBSIM_SERVER", "")
    value = raw.strip().lower()
    if value in _OFF:
        return "off"
    if value in _ON:
        return "on"
    if value:
        raise ConfigError(f"NBSIM_SERVER={raw!r}: expected 1 (or on, yes, true: use the warm "
                          f"server, starting it when none runs), 0 (or off, no, false: never "
                          f"use one) or nothing (unset or empty, the default: use one only if "
                          f"it is running)")
    return "running"


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


def socket_path(create: bool = True) -> str:
    """The socket of the server for this interpreter, code and settings.
    ``create``: create the sockets' folder when missing (else a missing
    folder raises ServerUnavailable, as ``server_dir`` does for an unsafe
    one)."""
    return os.path.join(server_dir(create), f"server-{fingerprint()}.sock")


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


def read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    """The server's side of ``send_request``: one request and the file
    descriptors sent with it (at most 3). Raises ValueError on a short,
    cut or too long request (OSError from the socket)."""
    head, fds, _, _ = socket.recv_fds(conn, HEADER.size, 3)
    if len(head) != HEADER.size:
        for fd in fds:
            os.close(fd)
        raise ValueError("short request header")
    (n,) = HEADER.unpack(head)
    if n > MAX_REQUEST:
        raise ValueError("request too long")
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ValueError("request cut short")
        buf += chunk
    return json.loads(buf), list(fds)


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


def servers(folder: str | None = None, skip: str = "") -> list[dict]:
    """Every server in ``folder`` (default ``server_dir()``) that answers
    (``status`` of each), but the one at socket ``skip`` (a server asking
    about the others must not ask itself), the one the ``nbsim`` command
    would use now marked ``"current": True``."""
    import glob
    current = socket_path()
    found = []
    for path in sorted(glob.glob(os.path.join(folder or server_dir(), "server-*.sock"))):
        if path == skip:
            continue
        st = ask(path, "status")
        if st is not None:
            st["current"] = path == current
            found.append(st)
    return found


def stop_all() -> list[int]:
    """Ask every server of this user to stop (each finishes its running
    commands first); the pids asked."""
    return [st["pid"] for st in servers() if ask(st["socket"], "stop") is not None]


def start(wait_s: float = 60.0, path: str | None = None) -> dict | None:
    """Start the server at socket ``path`` (default: the one the ``nbsim``
    command of this setup uses, ``socket_path``), unless it runs, and wait
    up to ``wait_s`` seconds for it to answer; its status, or None if it did
    not answer in time (its log, ``<socket>.log``, says why). Raises
    ServerUnavailable for an unusable sockets' folder, OSError when the log
    cannot be opened."""
    path = path or socket_path()
    st = ask(path, "status")
    if st is not None:
        return st
    start_server(path)
    t0 = time.monotonic()
    while time.monotonic() - t0 < wait_s:
        time.sleep(0.1)
        st = ask(path, "status")
        if st is not None:
            return st
    return None
