"""The ``nbsim`` command line (click). Each command parses its options and
calls one library function; every ``NbsimError`` becomes a one-line message
and exit status 2, never a traceback."""
from __future__ import annotations

import sys

import click

from nbsim.errors import NbsimError


class _Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except NbsimError as e:
            err = click.ClickException(str(e))
            err.exit_code = 2
            raise err from None


def config_argument(f):
    """CONFIG argument shared by the commands: a path or a shipped config name."""
    return click.argument("config", metavar="CONFIG")(f)


def set_option(f):
    """Repeatable ``--set TABLE.KEY=VALUE`` override, validated like the file."""
    return click.option(
        "--set", "overrides", multiple=True, metavar="TABLE.KEY=VALUE",
        help="Override one config option for this run, e.g. --set win.min_tai=5 "
             "(repeatable; validated like the file).")(f)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nbsim")
def cli():
    """nbsim: simulation and statistics for Ningbo mahjong and its neighbours.

    CONFIG is a path to a variant TOML file or the name of a shipped config
    (ningbo-3baida, ningbo-3baida-tianyi, ningbo-7baida, ningbo-tongchengyou,
    ninghai). Rules: RULES.md; configs: configs/*.toml.
    """


@cli.command("rules")
@config_argument
@set_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of TOML.")
def rules_cmd(config, overrides, as_json):
    """Print the resolved rules of CONFIG (every option, defaults filled in).

    The header line gives the config's source file and content hash; --set
    overrides are applied and validated first (RULES.md section 9).
    """
    import json

    from nbsim.rules import load_rules

    rs = load_rules(config, overrides)
    if as_json:
        click.echo(json.dumps({"source": rs.source, "hash": rs.hash,
                               "overrides": list(rs.overrides), "rules": rs.to_dict()},
                              ensure_ascii=False, indent=2))
        return
    click.echo(f"# {rs.name} from {rs.source} (hash {rs.hash})")
    for ov in rs.overrides:
        click.echo(f"# --set {ov}")
    click.echo(rs.to_toml(), nl=False)


def main(argv=None):
    """Console entry point (``nbsim``)."""
    return cli.main(args=argv, prog_name="nbsim")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
