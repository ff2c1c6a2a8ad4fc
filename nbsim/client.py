"""The ``nbsim`` command's entry point: run the command in this process,
or in a warm server the user started.

By default every command runs in this process (``nbsim.cli.run``). A warm
server (``nbsim.server``) is opt-in: once ``nbsim server start`` has started
one, or with ``NBSIM_SERVER=1``, the command is handed to it (the
libraries' start-up is then paid once, by the server; docs/layout.md). The
server forks a copy of itself that runs the command with this process's
arguments, terminal (its standard input, output and error are passed over
a Unix socket) and process settings (``process_settings``: working
directory, environment, umask, nice value, CPU affinity, resource limits,
ignored signals). The command, its output, its exit status and its
handling of signals are those of the same command run in this process.

This module imports the standard library and ``nbsim.protocol`` only (a few
milliseconds). ``nbsim.protocol`` (standard library and ``nbsim.errors``)
holds what the client shares with the server and the ``nbsim server``
commands: the sockets' folder and names, the wire format, ``server_mode``
and the starting of a server. ``nbsim.cli`` is imported only to run a
command here; neither ``nbsim.cli`` nor ``nbsim.server`` imports this
module.

1. ``NBSIM_SERVER`` (``protocol.server_mode``): unset (the default), the
   command runs in the server of this setup if one is running, else here,
   and no server is started; ``1`` (on, yes, true) starts that server first
   when none answers (waiting up to ``START_WAIT_S`` seconds) and runs the
   command in it; ``0`` (off, no, false) always runs it here. Any other
   value stops the call with one message naming these (exit status 2).
2. ``nbsim server ...``, a missing or unsafe sockets' folder, a failed
   connection, a server that does not start the command within
   ``FIRST_REPLY_S`` seconds or refuses it, and a working directory that no
   longer exists all run the command here.
3. A server serves one setup: any nbsim source file, installed package or
   setting of ``protocol.KEY_ENV_PREFIXES`` names its socket, so a changed
   setup finds no server (and ``NBSIM_SERVER=1`` starts a new one; the old
   one idles out after ``NBSIM_SERVER_IDLE`` seconds, default 900).
4. Signals sent to this process (``RELAYED``: Ctrl-C, SIGTERM, SIGHUP,
   SIGQUIT, ...) are sent on to the command's process, except those this
   process ignores, which the command ignores too; Ctrl-Z stops both. If
   this process is killed, the command's process ends too, as if both were
   one. A SIGSTOP (which no process can catch) stops this process only.

Sockets live in ``$NBSIM_SERVER_DIR``, else ``$XDG_RUNTIME_DIR/nbsim``, else
``<tmp>/nbsim-<uid>``: a folder only its owner may open, checked before use
(``nbsim.protocol.server_dir``).
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys

from nbsim.errors import NbsimError
from nbsim.protocol import (
    FIRST_REPLY_S,
    RELAYED,
    ServerUnavailable,
    connect,
    send_request,
    server_mode,
    socket_path,
    start,
)

START_WAIT_S = 60.0      # NBSIM_SERVER=1: how long a call waits for the server it starts


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
                  "(nbsim server stop, or NBSIM_SERVER=0, runs commands without the server)",
                  file=sys.stderr)
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


KERNEL_CALL_THREAD = "nbsim-kernel-call"   # threads of nbsim.run.frames.Pace's kernel calls


def run_here(argv: list[str]) -> int:
    """Run the command in this process (``nbsim.cli.run``, imported only
    now); its exit status. A command stopped by a signal may leave a kernel
    call running in a daemon thread (``nbsim.run.frames.Pace``; its result
    is not used): the process then ends at once, with its output flushed,
    rather than after the seconds of the interpreter's clean-up."""
    import threading

    from nbsim.cli import run
    code = run(argv)
    if any(t.name == KERNEL_CALL_THREAD and t.is_alive() for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    return code


def _server_connection(mode: str) -> socket.socket | None:
    """A connection to the server of this setup, or None (the command then
    runs here): in mode ``"running"`` only to one already running; in mode
    ``"on"`` one is started first when none answers (``protocol.start``)."""
    try:
        path = socket_path(create=mode == "on")
    except ServerUnavailable:
        return None
    conn = connect(path)
    if conn is None and mode == "on":
        try:
            started = start(START_WAIT_S, path)
        except (OSError, ServerUnavailable):
            return None
        if started is not None:
            conn = connect(path)
    return conn


def main() -> None:
    """Console entry point (``nbsim``): run the command here, or in the warm
    server when one is running or ``NBSIM_SERVER=1`` asks for one (module
    doc). Exits with the command's status."""
    argv = sys.argv[1:]
    try:
        mode = server_mode()
    except NbsimError as e:                    # an NBSIM_SERVER of no known meaning
        print(f"Error: {e}", file=sys.stderr)
        sys.exit(2)
    if mode == "off" or argv[:1] == ["server"]:
        sys.exit(run_here(argv))
    closed = closed_std_fds()                  # before any socket takes descriptor 0-2
    conn = _server_connection(mode)
    if conn is not None:
        try:
            with conn:
                sys.exit(run_remote(conn, argv, closed))
        except ServerUnavailable:
            pass
    for fd in closed:                          # as this process started
        os.close(fd)
    sys.exit(run_here(argv))
