"""The ``nbsim`` command line (click): the command group ``cli`` and its
entry point ``main`` (the ``nbsim`` console script and ``python -m nbsim``).

The commands live beside it, one module per family: ``runs`` (rules,
simulate, report, compare, sweep), ``play`` (replay, duel, pool-duels,
ladder, band, policies), ``hand`` (score, advise), ``tune`` (tune). Each
parses its options and calls one library function; every ``NbsimError``
becomes a one-line message and exit status 2, never a traceback
(``nbsim.cli.options.CommandGroup``)."""
from __future__ import annotations

import contextlib
import os
import sys
import threading

import click

from nbsim.cli import hand, play, runs
from nbsim.cli import review as review_commands
from nbsim.cli import tune as tune_commands
from nbsim.cli.options import CommandGroup

__all__ = ["cli", "main", "run"]


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nbsim")
def cli():
    """nbsim: simulation and statistics for Ningbo mahjong and its neighbours.

    CONFIG is a path to a variant TOML file or the name of a shipped config
    (ningbo-3baida, ningbo-3baida-tianyi, ningbo-7baida, ningbo-tongchengyou,
    ninghai). Rules: docs/rules.md; configs: configs/*.toml.
    """


for _command in (runs.rules_cmd, runs.simulate_cmd, runs.report_cmd, runs.compare_cmd,
                 runs.sweep_cmd, play.replay_cmd, play.duel_cmd, play.pool_duels_cmd,
                 play.ladder_cmd, play.band_cmd, play.policies_cmd, hand.score_cmd,
                 hand.advise_cmd, review_commands.review_cmd, tune_commands.tune_cmd):
    cli.add_command(_command)


def run(argv: list[str]) -> int:
    """Run the command ``argv`` (a list of str) in this process; its exit
    status (0 success, 2 a refused input, 130 interrupted), as ``main``
    would exit with it."""
    try:
        cli.main(args=argv, prog_name="nbsim")
    except SystemExit as e:
        return _exit_code(e.code)
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console entry point (``nbsim``, ``python -m nbsim``): run the command
    and exit with its status. A command stopped by a signal may leave a
    kernel call running in a daemon thread (``nbsim.run.frames.Pace``; its
    result is not used): the process then ends at once, with its output
    flushed, rather than after the seconds of the interpreter's clean-up."""
    code = run(sys.argv[1:] if argv is None else argv)
    frames = sys.modules.get("nbsim.run.frames")      # imported by the commands that play
    thread = getattr(frames, "KERNEL_CALL_THREAD", None)
    if thread and any(t.name == thread and t.is_alive() for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    sys.exit(code)


def _exit_code(code) -> int:
    """sys.exit's argument as a status (a message is printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
