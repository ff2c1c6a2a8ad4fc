"""Exception types of nbsim. Every user-facing error is a ``NbsimError`` whose
message names what is wrong and what is allowed; the CLI prints it on one line
and exits with status 2, never with a traceback."""


class NbsimError(ValueError):
    """Base class of every error nbsim reports to a user."""


class TileError(NbsimError):
    """Bad tile notation: unknown suit letter, bad rank, a fifth copy, ..."""


class ConfigError(NbsimError):
    """Bad variant config: unknown key, wrong type, out-of-range value, bad path."""


class HandError(NbsimError):
    """An impossible or invalid hand or situation for the scorer."""


class RunError(NbsimError):
    """Bad simulate/report request: output folder, mode, deal count, seed, run folder."""


class RunInterrupted(RunError):
    """A simulation stopped by Ctrl-C; the finished shards and the manifest are kept."""
