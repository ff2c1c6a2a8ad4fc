"""The ``nbsim`` command line (click): the command group ``cli`` with the
run commands (rules, simulate, report, compare, sweep, replay, duel, pool-duels,
ladder, band, policies) and the registration of the commands defined
elsewhere (``nbsim.cli_hand``: score, advise; ``nbsim.cli_server``: server
start|stop|status). Each command parses its options and calls one library
function; every ``NbsimError`` becomes a one-line message and exit status
2, never a traceback (``nbsim.cli_options.CommandGroup``). ``run`` runs a
command in this process for the client (``nbsim.client``) and the warm
server (``nbsim.server``); this module imports neither of the two."""
from __future__ import annotations

import sys

import click

from nbsim.args import stderr_is_terminal
from nbsim.cli_hand import advise_cmd, score_cmd
from nbsim.cli_options import (
    CommandGroup,
    config_argument,
    os_error_text,
    policy_options,
    set_option,
)
from nbsim.cli_server import server_group
from nbsim.errors import NbsimError

__all__ = ["cli", "main", "run", "config_argument", "set_option", "policy_options",
           "os_error_text"]


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nbsim")
def cli():
    """nbsim: simulation and statistics for Ningbo mahjong and its neighbours.

    CONFIG is a path to a variant TOML file or the name of a shipped config
    (ningbo-3baida, ningbo-3baida-tianyi, ningbo-7baida, ningbo-tongchengyou,
    ninghai). Rules: docs/rules.md; configs: configs/*.toml.
    """


@cli.command("rules")
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


@cli.command("simulate")
@config_argument
@click.option("--mode", type=click.Choice(["deal", "game"]), default="deal", show_default=True,
              help="deal: deal, flower replacement and the heavenly-hand check only; "
                   "game: play the deals out with bots.")
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
        from nbsim.play.policy_specs import parse_policies
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


@cli.command("report")
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
    from nbsim.analysis.report import write_report
    from nbsim.analysis.stats import fill

    rep = write_report(run_dir, out)
    click.echo(rep.text)
    click.echo(fill(f"\nwrote {', '.join(str(p) for p in rep.files)}", indent="  "))


@cli.command("compare")
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
    from nbsim.analysis.comparison import compare
    from nbsim.analysis.stats import fill

    comp = compare(run_dirs, out)
    click.echo(comp.text)
    if comp.files:
        click.echo(fill(f"\nwrote {', '.join(str(p) for p in comp.files)}", indent="  "))


@cli.command("sweep")
@config_argument
@click.option("--vary", "vary", multiple=True, required=True, metavar="KEY=V1,V2,...",
              help="Option to sweep and its values, e.g. --vary win.min_tai=3,4,5,6 "
                   "(repeatable: every combination, a grid). Values are TOML values.")
@click.option("--mode", type=click.Choice(["deal", "game"]), default="game", show_default=True,
              help="Simulation mode of every run.")
@click.option("--deals", type=int, required=True, help="Deals per run (>= 1).")
@click.option("--seed", type=int, required=True,
              help="Run seed, 0 .. 2**64 - 1: the same for every run (shared walls).")
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), required=True,
              help="Sweep folder: one run folder per value, sweep.md/.json/.html/.png.")
@click.option("--workers", type=int, default=1, show_default=True, help="Worker threads.")
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
    from nbsim.analysis.stats import fill
    from nbsim.analysis.sweeps import sweep

    pols = None
    if mode == "game":
        from nbsim.play.policy_specs import parse_policies
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


@cli.command("replay")
@config_argument
@click.option("--seed", type=int, required=True, help="Run seed of the deal.")
@click.option("--deal", type=int, required=True,
              help="Deal index within the run, 0 .. 2**62 - 1.")
@policy_options
@set_option
@click.option("--json", "as_json", is_flag=True,
              help="Machine-readable: the simulated row and every event.")
def replay_cmd(config, seed, deal, policy, policies, overrides, as_json):
    """Replay deal DEAL of SEED as a player would read it.

    Prints the dice, indicator and wilds, the hands after the flower
    replacement, every draw, discard, claim, kong and flower, the end, the
    tai items (or Ninghai fan/fu/points) and the payments, in tile notation.
    The deal is played exactly as `nbsim simulate --mode game` plays it, so
    its row equals the simulated row (docs/rules.md §2-§8).
    """
    from nbsim.play.policy_specs import parse_policies
    from nbsim.play.replays import format_json, format_text, replay
    from nbsim.rules.ruleset import load_rules

    rs = load_rules(config, overrides)
    rec = replay(rs, seed, deal, parse_policies(policy, policies))
    click.echo(format_json(rec) if as_json else format_text(rs, rec))


@cli.command("duel")
@config_argument
@click.option("--a", "pol_a", default="defend", show_default=True, metavar="SPEC",
              help="Policy A: a name with optional parameters, e.g. defend:caution=0.8.")
@click.option("--b", "pol_b", default="value", show_default=True, metavar="SPEC",
              help="Policy B (same form as --a).")
@click.option("--deals", type=int, required=True, help="Duplicate deals (>= 2).")
@click.option("--seed", type=int, required=True, help="Run seed, 0 .. 2**64 - 1.")
@click.option("--seating", type=click.Choice(["2v2", "1v3"]), default="2v2", show_default=True,
              help="2v2: seats A,B,A,B and B,A,B,A; 1v3: one A seat among B players, "
                   "each seat in turn, against the all-B play.")
@click.option("--among", metavar="SPEC", default=None,
              help="With --seating 1v3: the three other seats play SPEC, and one A seat "
                   "is compared with one B seat among them (default: the others play B).")
@click.option("--first", type=int, default=0, show_default=True,
              help="Index of the first deal: deals FIRST .. FIRST+DEALS-1 of the seed are "
                   "played, so a long duel can run in parts (`nbsim pool-duels`).")
@click.option("--workers", type=int, default=None,
              help="Threads playing at once (default: every core); the result does not "
                   "depend on it.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@set_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def duel_cmd(config, pol_a, pol_b, deals, seed, seating, among, first, workers, progress,
             overrides, as_json):
    """Duplicate play of policy A against policy B on the same walls.

    2v2 (default): every deal is played twice, seats A,B,A,B then B,A,B,A
    (from the dealer). 1v3: every deal is played with all seats B and then
    with A in each seat in turn; the statistic is the gain of one seat
    switching from B to A (with --among C: one A seat against one B seat,
    the others C). Prints the mean payment per deal and seat of A
    minus B (points) with a 95% t interval and a p-value, and win rates;
    --json also gives each policy in full (every parameter), as played.
    Policies: `nbsim policies`; the seatings: docs/lookahead.md.
    """
    import dataclasses
    import json
    import sys

    from tqdm import tqdm

    from nbsim.play.duel import duel
    from nbsim.rules.ruleset import load_rules

    rs = load_rules(config, overrides)
    show = stderr_is_terminal() if progress is None else progress
    with tqdm(total=deals, unit="deal", unit_scale=True, disable=not show, file=sys.stderr,
              desc=f"{pol_a} vs {pol_b}") as bar:
        res = duel(rs, pol_a, pol_b, deals, seed, progress=bar.update, seating=seating,
                   among=among, first=first, workers=workers)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(res), indent=2))
    else:
        click.echo(res.text())


@cli.command("pool-duels")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True, help="Print the pooled result as JSON.")
def pool_duels_cmd(files, as_json):
    """One duel from the parts of a duel played separately.

    FILE...: the JSON results of `nbsim duel --json` on disjoint deals
    (different --first ranges of one seed, or different seeds), all of the
    same config and rules (--set overrides included: each result records
    its rules hash), --a, --b, --seating and --among. Prints what one duel
    of all those deals prints: the mean payment per deal and seat of A
    minus B (points) with its 95% t interval and p-value, and the win
    shares; the pool is exact (docs/lookahead.md, "Two seatings of a
    duel"). A pool of one block of deals can be pooled again.
    """
    import dataclasses
    import json

    from nbsim.args import json_object_file
    from nbsim.errors import RunError
    from nbsim.play.duel_pool import pool, read_result

    results = []
    for name in files:
        data = json_object_file(name, "duel result", "the JSON object `nbsim duel --json` "
                                "prints", RunError)
        results.append(read_result(data, f"duel result {name!r}"))
    res = pool(results, [repr(f) for f in files])
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(res), indent=2))
    else:
        click.echo(res.text())


@cli.command("ladder")
@click.argument("configs", nargs=-1, metavar="[CONFIG ...]")
@click.option("--policies", "pols", default="defend,value,greedy,random", show_default=True,
              metavar="A,B,...", help="Policy specs to duel pairwise (comma-separated).")
@click.option("--deals", type=int, default=20_000, show_default=True,
              help="Duplicate deals per duel (>= 2).")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Run seed, 0 .. 2**64 - 1.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Also write the ladder as markdown to this file.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
def ladder_cmd(configs, pols, deals, seed, out, progress):
    """Duel every pair of POLICIES on each CONFIG (default: every shipped
    variant) and print the ladder: per variant and pair, A - B in points per
    deal and seat with its 95% interval (nbsim duel; `make ladder`)."""
    from pathlib import Path

    from tqdm import tqdm

    from nbsim.play.ladder import ladder
    from nbsim.rules.ruleset import shipped_configs

    configs = list(configs) or shipped_configs()
    if out:
        from nbsim.args import writable_file
        writable_file(out, "--out", make_folders=True)   # before the duels, not after
    n_pol = len([p for p in pols.split(",") if p.strip()])
    total = len(configs) * n_pol * (n_pol - 1) // 2 * deals
    show = stderr_is_terminal() if progress is None else progress
    with tqdm(total=total, unit="deal", unit_scale=True, disable=not show, file=sys.stderr,
              desc="ladder") as bar:
        lad = ladder(configs, pols, deals, seed, progress=bar.update)
    text = lad.markdown()
    click.echo(text)
    if out:
        try:
            Path(out).write_text(text + "\n", encoding="utf-8")
        except OSError as e:
            raise NbsimError(f"--out {out!r}: cannot write ({e.strerror or e})") from None


@cli.command("band")
@click.argument("configs", nargs=-1, metavar="[CONFIG ...]")
@click.option("--styles", default="value,defend,defend:caution=0.9", show_default=True,
              metavar="A,B,...", help="Policy specs, each played in every seat.")
@click.option("--deals", type=int, default=100_000, show_default=True,
              help="Game deals per style and variant (>= 1).")
@click.option("--duel-deals", type=int, default=20_000, show_default=True,
              help="Duplicate deals of each style's duel against value (0: no duels; else "
                   ">= 2).")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Run seed, 0 .. 2**64 - 1.")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True,
              help="Folder for the runs and band.md (finished runs and duels are reused).")
@click.option("--workers", type=int, default=None,
              help="Worker threads of each run (default: every core).")
@click.option("--expert", default=None, metavar="SPEC",
              help="An expert reference style (e.g. lookahead), played on the first "
                   "--expert-deals walls and compared paired with --expert-base.")
@click.option("--expert-deals", type=int, default=5_000, show_default=True,
              help="Game deals of the expert reference (and of its base on the same walls).")
@click.option("--expert-base", default="defend", show_default=True, metavar="SPEC",
              help="The style of the band the expert is compared with.")
@click.option("--expert-on", "expert_on", default=None, metavar="A,B,...",
              help="The variants the expert plays (default: every CONFIG); the others show "
                   "the band without it.")
@click.option("--overwrite", is_flag=True,
              help="Replace runs and duels in OUT that another request made (other seed, "
                   "deals, styles); without it such a run is refused before any play.")
def band_cmd(configs, styles, deals, duel_deals, seed, out, workers, expert, expert_deals,
             expert_base, expert_on, overwrite):
    """The play-style band: each CONFIG (default: every shipped variant) played
    once per style, its headline statistics side by side with 95% intervals
    and each style's duel against value; with --expert, which statistics move
    from --expert-base to the expert (paired, same walls); writes OUT/band.md."""
    from nbsim.play.band import BAND_MD, band
    from nbsim.rules.ruleset import shipped_configs

    if expert is None:
        ctx = click.get_current_context()
        given = [f"--{n.replace('_', '-')}" for n in ("expert_deals", "expert_base", "expert_on")
                 if ctx.get_parameter_source(n) != click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{' and '.join(given)} "
                                   f"{'needs' if len(given) == 1 else 'need'} --expert SPEC "
                                   f"(the expert reference style, e.g. --expert lookahead)")
        expert_deals = expert_base = None       # the expert's settings: none without it
    res = band(list(configs) or shipped_configs(), deals=deals, seed=seed, out=out,
               styles=styles, duel_deals=duel_deals, workers=workers, expert=expert,
               expert_deals=expert_deals, expert_base=expert_base,
               expert_on=None if expert_on is None else
               [v.strip() for v in expert_on.split(",") if v.strip()], overwrite=overwrite)
    for vb in res:
        click.echo(vb.markdown())
    click.echo(f"wrote {out}/{BAND_MD}")


@cli.command("policies")
def policies_cmd():
    """List the bot policies and their parameters (defaults and ranges).

    A policy is given as NAME or NAME:key=value[:key=value...] to --policy,
    --policies (four, comma-separated, from the dealer), duel --a/--b and the
    Python API; the run manifest records every parameter."""
    from nbsim.play.policy_specs import describe

    click.echo(describe())


cli.add_command(score_cmd)
cli.add_command(advise_cmd)
cli.add_command(server_group)


cli.add_command(__import__("nbsim.tune_cli", fromlist=["tune_cmd"]).tune_cmd)


def main(argv=None):
    """The command line run in this process: ``python -m nbsim``'s entry
    point (the ``nbsim`` command's is ``nbsim.client.main``). Raises
    SystemExit with the command's status (``run`` returns it instead)."""
    return cli.main(args=argv, prog_name="nbsim")


def run(argv: list[str]) -> int:
    """Run the command ``argv`` in this process; its exit status, as
    ``main`` would exit with it. The client (``nbsim.client``) runs a
    command here this way, and so does the warm server's copy
    (``nbsim.server``) for its client."""
    try:
        main(argv)
    except SystemExit as e:
        return _exit_code(e.code)
    return 0


def _exit_code(code) -> int:
    """sys.exit's argument as a status (a message is printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
