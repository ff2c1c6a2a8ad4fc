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


@cli.command("simulate")
@config_argument
@click.option("--mode", type=click.Choice(["deal", "game"]), default="deal", show_default=True,
              help="deal: deal, flower replacement and the heavenly-hand check only; "
                   "game: play the deals out (not implemented yet).")
@click.option("--deals", type=int, required=True, help="Number of deals (>= 1).")
@click.option("--seed", type=int, required=True, help="Run seed, 0 .. 2**64 - 1.")
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), required=True,
              help="Run folder for the Parquet shards and manifest.json.")
@click.option("--shard-size", type=int, default=None,
              help="Deals per Parquet shard (default 100,000). Does not change any row.")
@click.option("--workers", type=int, default=1, show_default=True,
              help="Worker threads. Does not change any row.")
@click.option("--overwrite", is_flag=True, help="Replace an existing run in --out.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@set_option
@click.pass_context
def simulate_cmd(ctx, config, mode, deals, seed, out, shard_size, workers, overwrite, progress,
                 overrides):
    """Simulate DEALS deals of CONFIG with SEED into the run folder OUT.

    Deal i of a seed always has the same wall (RULES.md section 2), whatever
    --shard-size and --workers. Writes shard-*.parquet and manifest.json;
    Ctrl-C keeps the finished shards. Read the result with `nbsim report OUT`.
    """
    from nbsim.errors import RunInterrupted
    from nbsim.simulate import DEFAULT_SHARD_SIZE, simulate

    try:
        res = simulate(config, mode=mode, deals=deals, seed=seed, out=out,
                       shard_size=shard_size or DEFAULT_SHARD_SIZE, workers=workers,
                       overwrite=overwrite, overrides=overrides, progress=progress)
    except RunInterrupted as e:
        click.echo(f"Error: {e}", err=True)
        ctx.exit(130)
    rate = res.deals_done / res.elapsed if res.elapsed > 0 else float("nan")
    click.echo(f"{res.deals_done:,} deals in {res.elapsed:.2f} s ({rate:,.0f} deals/s), "
               f"{len(res.shards)} shards -> {res.out}")


@cli.command("report")
@click.argument("run_dir", metavar="DIR", type=click.Path(file_okay=True, dir_okay=True))
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), default=None,
              help="Folder for report.md, summary.json and the plots (default: DIR).")
def report_cmd(run_dir, out):
    """Report of the run in DIR: heavenly-hand probability with a 95% Wilson
    interval, wilds held and flowers set aside per seat.

    Writes report.md, summary.json and PNG plots into DIR (or --out) and
    prints the main table.
    """
    from nbsim.report import write_report

    rep = write_report(run_dir, out)
    click.echo(rep.text)
    click.echo(f"\nwrote {', '.join(str(p) for p in rep.files)}")


def main(argv=None):
    """Console entry point (``nbsim``)."""
    return cli.main(args=argv, prog_name="nbsim")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
