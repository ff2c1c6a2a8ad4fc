"""Checks of the arguments of the public functions, shared so that every
function refuses a wrong type with the same kind of message (and never with a
TypeError from deep inside): a string where a sequence is expected is one
item, never split into characters."""
from __future__ import annotations

import operator
from pathlib import Path

from nbsim.errors import ConfigError, NbsimError


def text_items(value, what: str, example: str, error: type[NbsimError] = NbsimError
               ) -> tuple[str, ...]:
    """``value`` as a tuple of text items: None -> (), one string -> (that
    string,), a list or tuple of strings -> a tuple. Anything else raises
    ``error`` naming ``what`` and an ``example`` of what is allowed."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise error(f"{what}: expected text or a list of text items such as {example}, "
                f"got {value!r}")


def config_name(config, what: str = "config") -> str | Path:
    """``config`` when it is text or a path (a shipped name or a TOML file);
    ConfigError otherwise."""
    if isinstance(config, (str, Path)):
        return config
    raise ConfigError(f"{what}: expected a shipped config name such as 'ningbo-3baida' or a "
                      f"path to a TOML file, got {config!r}")


def whole_number(value, what: str, lo: int | None = None, hi: int | None = None,
                 error: type[NbsimError] = NbsimError) -> int:
    """``value`` as an int in lo..hi (no range check when they are None);
    ``error`` for another type (bool and float included) or a value out of
    range."""
    try:
        if isinstance(value, bool):
            raise TypeError
        value = operator.index(value)        # int and numpy integers, not float or text
    except TypeError:
        rng = f" {lo}..{hi}" if lo is not None and hi is not None else ""
        raise error(f"{what} must be a whole number{rng}, got {value!r}") from None
    if lo is not None and hi is not None and not lo <= value <= hi:
        raise error(f"{what} must be {lo}..{hi}, got {value}")
    return int(value)


def stderr_is_terminal() -> bool:
    """True when standard error is open and a terminal (progress bars and
    clocks are shown then). A process started with standard error closed
    has ``sys.stderr`` None: False."""
    import sys
    return sys.stderr is not None and sys.stderr.isatty()


def json_kind(value) -> str:
    """What a parsed JSON value is, in JSON's words: 'an object', 'an
    array', 'a string', 'true or false', 'null' or 'a number'."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "true or false",
             type(None): "null"}
    return kinds.get(type(value), "a number")


def json_object_file(path: str | Path, what: str, expected: str,
                     error: type[NbsimError] = NbsimError) -> dict:
    """The JSON object in the file ``path`` (UTF-8, a byte-order mark
    allowed). ``what`` names the file in messages (e.g. 'state file'),
    ``expected`` says what it should hold. Raises ``error`` with one line
    when the file cannot be read, is empty, is not JSON or holds something
    other than an object."""
    import json
    name = f"{what} {str(path)!r}"
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise error(f"{name}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    if not text.strip():
        raise error(f"{name}: the file is empty; expected {expected}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{name}: bad JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
    if not isinstance(data, dict):
        raise error(f"{name}: expected {expected}, got {json_kind(data)}")
    return data


def writable_file(path: str | Path, what: str, *, make_folders: bool = False,
                  error: type[NbsimError] = NbsimError) -> Path:
    """``path`` checked as a file this process can write, before any work is
    done (so a long computation never ends in a failed write). ``what`` names
    the option in messages (e.g. '--out'). The folder must exist, unless
    ``make_folders`` (then missing folders are created, as ``simulate`` does).
    The check opens the file for writing: ``os.access`` says yes to root
    even where nothing can be written (/proc). An existing file is opened to
    append nothing; a new one is created and removed. Raises ``error`` when
    ``path`` is a folder, its folder is a file or missing, or it cannot be
    written."""
    p = Path(path)
    name = f"{what} {str(p)!r}"
    if p.is_dir():
        raise error(f"{name}: is a folder; give a file name in it")
    folder = p.parent
    if folder.exists() and not folder.is_dir():
        raise error(f"{name}: {str(folder)!r} is a file, not a folder")
    if not folder.is_dir():
        if not make_folders:
            raise error(f"{name}: the folder {str(folder)!r} does not exist")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise error(f"{name}: cannot create the folder {str(folder)!r} "
                        f"({e.strerror or e})") from None
    existed = p.exists()
    try:
        with open(p, "ab" if existed else "xb"):
            pass
    except OSError as e:
        raise error(f"{name}: cannot write there ({e.strerror or e}); give a file in a "
                    f"folder you can write to") from None
    if not existed:
        p.unlink()
    return p
