"""The run commands of ``nbsim``: ``rules``, ``simulate``, ``report``,
``compare`` and ``sweep``. Each parses its options and calls one library
function (``nbsim.run``, ``nbsim.analysis``); ``nbsim.cli`` registers them."""
from __future__ import annotations

import click

from nbsim.cli.options import config_argument, policy_options, set_option
from nbsim.errors import NbsimError


@click.command("rules")
@config_argument
@set_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of TOML.")
def rules_cmd(config, overrides, as_json):
    """Print the resolved rules of CONFIG (every option, defaults filled in).

    The header line gives the config's source file and content hash; for a
    config that extends another (docs/variants.md), the files it is built on
    and each option it changes from its base follow. --set overrides are
    applied and validated first (docs/rules.md §9). With --set
    the shipped description, which may no longer hold, is replaced by one
    naming the overrides.
    """
    import json

    from nbsim.rules.ruleset import load_rules, rules_text

    rs = load_rules(config, overrides)
    rules = rs.to_dict()
    if rs.overrides:
        rules["description"] = (f"{rs.name} as shipped, changed by --set "
                                f"{', '.join(rs.overrides)} (the shipped description does not "
                                f"describe these rules)")
    if as_json:
        click.echo(json.dumps({"source": rs.source, "hash": rs.hash,
                               "extends": list(rs.extends),
                               "overrides": list(rs.overrides), "rules": rules},
                              ensure_ascii=False, indent=2))
        return
    click.echo(rules_text(rs, rules), nl=False)


@click.command("simulate")
@config_argument
@click.option("--mode", type=click.Choice(["deal", "game"]), default="deal", show_default=True,
              help="deal: deal, flower replacement and the heavenly-hand check only, "
                   "the default here because a deal's own statistics need no play; game: "
                   "play the deals out with bots, the mode of sweep and tune, whose "
                   "statistics are those of played deals.")
@click.option("--deals", type=int, required=True,
              help="Number of deals (>= 1); with --format matches, number of matches.")
@click.option("--seed", type=int, required=True, help="Run seed, 0 .. 2**64 - 1.")
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), required=True,
              help="Run folder for the Parquet shards and manifest.json.")
@click.option("--shard-size", type=int, default=None,
              help="Deals per Parquet shard, 1 .. 10,000,000 (default 100,000; 20,000 with "
                   "--events; 2,000 matches with --format matches). Does not change any row.")
@click.option("--workers", type=int, default=None,
              help="Worker threads, 1 .. 256 (with --cluster local: worker processes); "
                   "default: every core. Does not change any row.")
@click.option("--overwrite", is_flag=True, help="Replace an existing run in --out.")
@click.option("--resume", is_flag=True,
              help="Complete the interrupted run in --out (only its missing shards), or "
                   "extend a finished one to a larger --deals. The other options must match "
                   "its manifest.")
@click.option("--cluster", default=None, metavar="local|tcp://HOST:PORT",
              help="Run the shards on a Dask cluster: 'local' starts one on this machine "
                   "(loopback only), or give a scheduler's address. Needs "
                   "pip install 'nbsim[cluster]'.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@policy_options
@click.option("--events", is_flag=True,
              help="Game mode: also write every deal's event log (events-*.parquet).")
@click.option("--format", "fmt", type=click.Choice(["deals", "matches"]), default="deals",
              show_default=True,
              help="Game mode: independent deals (dealer East, random round wind), or whole "
                   "matches (four round winds, dealer rotation; --deals counts matches).")
@set_option
@click.pass_context
def simulate_cmd(ctx, config, mode, deals, seed, out, shard_size, workers, overwrite, resume,
                 cluster, progress, policy, policies, events, fmt, overrides):
    """Simulate DEALS deals of CONFIG with SEED into the run folder OUT.

    Deal i of a seed always has the same wall (docs/rules.md §2), whatever
    --shard-size, --workers and --cluster. Writes shard-*.parquet and
    manifest.json; Ctrl-C, a full disk or a killed process keep the finished
    shards, and --resume completes the run. Read the result with
    `nbsim report OUT`.
    """
    import signal

    from nbsim.errors import RunInterrupted
    from nbsim.run.simulate import simulate

    pols = None
    if mode == "game":
        from nbsim.policy_specs import parse_policies
        pols = parse_policies(policy, policies)
    elif policy or policies:
        raise NbsimError("--policy/--policies need --mode game")

    def _terminate(signum, frame):          # `kill PID` stops like Ctrl-C: manifest kept
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        res = simulate(config, mode=mode, deals=deals, seed=seed, out=out,
                       shard_size=shard_size, workers=workers, overwrite=overwrite,
                       resume=resume, cluster=cluster, overrides=overrides, progress=progress,
                       policies=pols, events=events, fmt=fmt)
    except RunInterrupted as e:
        click.echo(f"Error: {e}", err=True)
        ctx.exit(130)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if fmt == "matches":
        rows = sum(s.get("rows", 0) for s in res.shards)
        rate = res.new_rows / res.elapsed if res.elapsed > 0 else float("nan")
        new = f", {res.new_deals:,} new" if res.new_deals != res.deals_done else ""
        click.echo(f"{res.deals_done:,} matches ({rows:,} deals{new}) in {res.elapsed:.2f} s "
                   f"({rate:,.0f} deals/s), {_shards(res)} -> {res.out}")
        return
    rate = res.new_deals / res.elapsed if res.elapsed > 0 else float("nan")
    new = f" ({res.new_deals:,} new)" if res.new_deals != res.deals_done else ""
    click.echo(f"{res.deals_done:,} deals{new} in {res.elapsed:.2f} s ({rate:,.0f} deals/s), "
               f"{_shards(res)} -> {res.out}")


@click.command("report")
@click.argument("run_dir", metavar="DIR", type=click.Path(file_okay=True, dir_okay=True))
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), default=None,
              help="Folder for report.md, report.html, summary.json and the plots "
                   "(default: DIR).")
def report_cmd(run_dir, out):
    """Report of the run in DIR. Deal runs: heavenly-hand probability with a
    95% Wilson interval, wilds held and flowers set aside per seat. Game runs:
    outcomes, tai (Ninghai: fan, fu, points) of wins, tai items with their
    Chinese names (0-tai items too; Ninghai: fan and fu items), payments by
    seat and policy, win rates by seat, game length, flowers at the end of
    the deal, match totals (docs/rules.md §4-§8).

    Writes report.md, report.html (self-contained: tables, plots, config,
    overrides, policies, seed), summary.json and PNG plots into DIR (or
    --out) and prints the main table.
    """
    from nbsim.analysis.report.report import write_report
    from nbsim.stats import fill

    rep = write_report(run_dir, out)
    click.echo(rep.text)
    click.echo(fill(f"\nwrote {', '.join(str(p) for p in rep.files)}", indent="  "))


@click.command("compare")
@click.argument("run_dirs", metavar="RUN1 RUN2 [RUN3 ...]", nargs=-1, required=True,
                type=click.Path(file_okay=True, dir_okay=True))
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), default=None,
              help="Folder for compare.md, compare.json, compare.html, compare.png and "
                   "compare_diff.png (default: print only).")
def compare_cmd(run_dirs, out):
    """Compare the statistics of two or more runs of one mode.

    Each run is labelled by its config, --set overrides and policies, e.g.
    "ningbo-3baida (win.min_tai=5) [value]". Prints the headline table (win
    rate, wall exhausted, self-drawn share, mean tai or Ninghai points of
    wins, deal-in per seat, dealer advantage), the per-seat rows and the other
    statistics with 95% intervals, then every run minus run 1 with a 95%
    interval marked "paired" (same seed: same walls, compared deal by deal)
    or "independent" (Newcombe / Welch) and a two-sided p-value. Warns when
    the runs score differently or a run is compared with itself.
    Example: nbsim compare runs/3baida runs/min5 --out runs/cmp
    """
    from nbsim.analysis.compare.compare import compare
    from nbsim.stats import fill

    comp = compare(run_dirs, out)
    click.echo(comp.text)
    if comp.files:
        click.echo(fill(f"\nwrote {', '.join(str(p) for p in comp.files)}", indent="  "))


@click.command("sweep")
@config_argument
@click.option("--vary", "vary", multiple=True, required=True, metavar="KEY=V1,V2,...",
              help="Option to sweep and its values, e.g. --vary win.min_tai=3,4,5,6 "
                   "(repeatable: every combination, a grid). Values are TOML values.")
@click.option("--mode", type=click.Choice(["deal", "game"]), default="game", show_default=True,
              help="Simulation mode of every run: game, as tune, because a rule's effect on "
                   "wins and payments shows only in played deals (simulate's default, deal, "
                   "answers the deal's own questions).")
@click.option("--deals", type=int, required=True, help="Deals per run (>= 1).")
@click.option("--seed", type=int, required=True,
              help="Run seed, 0 .. 2**64 - 1: the same for every run (shared walls).")
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), required=True,
              help="Sweep folder: one run folder per value, sweep.md/.json/.html/.png.")
@click.option("--workers", type=int, default=None,
              help="Worker threads of each run, 1 .. 256 (default: every core, as simulate "
                   "and tune). Does not change any row.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bars on stderr (default: when stderr is a terminal).")
@click.option("--overwrite", is_flag=True,
              help="Replace a value's run in OUT that another request made (other seed, "
                   "deals, policies, --set); without it such a run is refused.")
@policy_options
@set_option
def sweep_cmd(config, vary, mode, deals, seed, out, workers, progress, overwrite, policy,
              policies, overrides):
    """Play one run of CONFIG per value of --vary with the same SEED and
    compare them against the value (docs/rules.md §9 lists the options).

    Prints and writes (into OUT) the win rate, wall-exhausted rate, mean tai
    (Ninghai: points) of wins, winner's gain and turns per deal for each
    value with 95% intervals, plus the differences from the first value,
    paired deal by deal. Running it again on the same OUT skips the runs that
    are finished; a run of another request there is refused (--overwrite
    replaces it). Example: nbsim sweep ningbo-3baida --vary win.min_tai=3,4,5,6
    --deals 20000 --seed 1 --out runs/min_tai
    """
    from nbsim.analysis.sweeps import sweep
    from nbsim.stats import fill

    pols = None
    if mode == "game":
        from nbsim.policy_specs import parse_policies
        pols = parse_policies(policy, policies)
    elif policy or policies:
        raise NbsimError("--policy/--policies need --mode game")
    res = sweep(config, list(vary), deals=deals, seed=seed, out=out, mode=mode, policies=pols,
                overrides=overrides, workers=workers, progress=progress, overwrite=overwrite)
    click.echo(res.text)
    click.echo(fill(f"\nwrote {', '.join(str(p) for p in res.files)}", indent="  "))


def _shards(res) -> str:
    n = len(res.shards)
    return f"{n} shard" if n == 1 else f"{n} shards"


