"""The run folder's writer lock: one writer at a time per run folder.

``RunLock(folder)`` takes an exclusive ``fcntl.flock`` on ``folder/.nbsim.lock``
and writes its holder (process id, host, command, start time) into it. A
second writer (``--overwrite``, ``--resume``, a sweep) is refused with a
message naming the holder. The operating system drops a flock when its
process dies, however it dies (SIGKILL included), so a lock file left by a
dead process is simply taken over by the next writer.

flock is reliable on local filesystems; on network filesystems it depends
on the server (NFS v4 supports it), so run one writer per folder there.
"""
from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import socket
import sys
from pathlib import Path

from nbsim.errors import RunError
from nbsim.run.files import LOCK_FILE


def describe_holder(holder: dict) -> str:
    """'process PID [on HOST] (COMMAND, since START)' for a lock holder's record."""
    if not holder:
        return "another process"
    text = f"process {holder.get('pid', '?')}"
    if holder.get("host") and holder.get("host") != socket.gethostname():
        text += f" on {holder['host']}"
    if holder.get("command"):
        text += f" ({holder['command']}"
        text += f", since {holder['started']})" if holder.get("started") else ")"
    return text


def _read_holder(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def lock_holder(folder: str | Path) -> dict | None:
    """The holder of ``folder``'s writer lock ({"pid", "host", "command",
    "started"}) while a live process holds it, else None (no lock, or a lock
    left by a dead process)."""
    path = Path(folder) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def shown_status(status: str | None, folder: str | Path) -> str | None:
    """A run's status as reports show it: the manifest's ``status``, except
    that a run still marked "running" whose lock no live process holds (its
    writer was killed, or its machine went down) shows as "interrupted;
    --resume finishes it"."""
    if status == "running" and lock_holder(folder) is None:
        return "interrupted; --resume finishes it"
    return status


class RunLock:
    """Exclusive writer lock of a run folder (a context manager).

    ``acquire()`` raises RunError naming the holding process if a live
    process holds the lock; ``release()`` drops it (the lock file stays,
    holding the last holder's details). The folder must exist. ``file``:
    the lock file's name (another name locks the folder for another kind of
    writer, e.g. a tune study's)."""

    def __init__(self, folder: str | Path, command: str = "nbsim simulate",
                 file: str = LOCK_FILE):
        self.path = Path(folder) / file
        self.command = command
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock or raise RunError naming its holder."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise RunError(f"{self.path.parent}: cannot create the lock file {LOCK_FILE} "
                           f"({e.strerror or e})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = _read_holder(self.path)
            raise RunError(f"{self.path.parent} is being written by "
                           f"{describe_holder(holder)}; wait for it to finish or stop it, "
                           f"then try again") from None
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                  "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                  "argv": sys.argv[:8]}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)
        except OSError:
            pass       # a full disk: the lock holds, only the holder's details are missing
        self._fd = fd
        return self

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
