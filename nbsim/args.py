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
