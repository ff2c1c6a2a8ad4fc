"""What the ``nbsim`` commands share (click): the command group class that
turns every ``NbsimError`` and ``OSError`` into one message and exit status
2 (``CommandGroup``), and the options several commands take
(``config_argument``, ``set_option``, ``policy_options``). ``nbsim.cli``
defines the group and registers every command; the command modules
(``nbsim.cli.runs``, ``play``, ``hand``, ``tune``) import this module, never
``nbsim.cli`` itself."""
from __future__ import annotations

import click

from nbsim.errors import NbsimError, RunInterrupted

INTERRUPTED = 130    # the exit status of a command stopped by Ctrl-C or SIGTERM


class CommandGroup(click.Group):
    """The nbsim command group: every NbsimError a command raises, and every
    OSError but a broken pipe, becomes one "Error: ..." line and exit status
    2, never a traceback; a command stopped by Ctrl-C (or a run stopped by
    SIGTERM, ``RunInterrupted``) ends with one line and status 130."""

    def invoke(self, ctx):
        """Run the command, turning NbsimError into click's usage-style error."""
        try:
            return super().invoke(ctx)
        except RunInterrupted as e:     # Ctrl-C or SIGTERM stopped a run: 128 + SIGINT
            err = click.ClickException(str(e))
            err.exit_code = INTERRUPTED
            raise err from None
        except KeyboardInterrupt:
            err = click.ClickException("interrupted")
            err.exit_code = INTERRUPTED
            raise err from None
        except NbsimError as e:
            err = click.ClickException(str(e))
            err.exit_code = 2
            raise err from None
        except BrokenPipeError:
            raise                       # a closed pipe ends the command like any tool's
        except OSError as e:            # a path too long, stdout on a full device, ...
            err = click.ClickException(os_error_text(e))
            err.exit_code = 2
            raise err from None


def os_error_text(e: OSError) -> str:
    """One line for an operating-system error: its reason and the path it
    names (shortened to 80 characters)."""
    name = str(e.filename) if e.filename is not None else ""
    if len(name) > 80:
        name = name[:38] + "..." + name[-39:]
    reason = e.strerror or str(e)
    return f"{reason}: {name!r}" if name else reason


def echo_result(as_json: bool, data, text, written=None, indent: int = 2) -> None:
    """Print a command's answer: ``data()`` (a JSON-ready dict) as JSON with
    --json, else ``text()`` (a str); then "wrote PATH" for a file it wrote
    (``written``, or None), on stderr with --json so stdout stays JSON."""
    import json
    click.echo(json.dumps(data(), ensure_ascii=False, indent=indent) if as_json else text())
    if written is not None:
        click.echo(f"wrote {written}", err=as_json)


def config_argument(f):
    """CONFIG argument shared by the commands: a path or a shipped config name."""
    return click.argument("config", metavar="CONFIG")(f)


def set_option(f):
    """Repeatable ``--set TABLE.KEY=VALUE`` override, validated like the file."""
    return click.option(
        "--set", "overrides", multiple=True, metavar="TABLE.KEY=VALUE",
        help="Override one config option for this run, e.g. --set win.min_tai=5 "
             "(repeatable; validated like the file).")(f)


def _policy_names() -> str:
    from nbsim.kernels.policies.catalog import DEFAULT_POLICY, NAMES
    return ", ".join(f"{n} (default)" if n == DEFAULT_POLICY else n for n in NAMES)


def policy_options(f):
    """--policy SPEC (all seats) / --policies A,B,C,D (seat by seat from the
    dealer). A SPEC is a policy name with optional parameters,
    NAME[:key=value...] (nbsim.policy_specs; `nbsim policies` lists them)."""
    f = click.option("--policies", default=None, metavar="A,B,C,D",
                     help="Policy per seat from the dealer (E,S,W,N), e.g. "
                          "defend,value,value,value or defend:caution=0.8,value,value,value.")(f)
    return click.option("--policy", default=None, metavar="NAME[:key=value...]",
                        help=f"Bot policy for every seat: {_policy_names()}; parameters as "
                             f"in defend:caution=0.8 (see `nbsim policies`).")(f)
