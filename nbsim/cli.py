"""The ``nbsim`` command line (click). Each command parses its options and
calls one library function; every ``NbsimError`` becomes a one-line message
and exit status 2, never a traceback. ``run`` runs a command in this process
for the client (``nbsim.client``) and the warm server (``nbsim.server``);
the ``nbsim server`` commands talk to the servers through
``nbsim.protocol``, so this module imports neither of the two."""
from __future__ import annotations

import sys

import click

from nbsim.args import stderr_is_terminal
from nbsim.errors import NbsimError


class _Group(click.Group):
    """The nbsim command group: every NbsimError a command raises, and every
    OSError but a broken pipe, becomes one "Error: ..." line and exit status
    2, never a traceback."""

    def invoke(self, ctx):
        """Run the command, turning NbsimError into click's usage-style error."""
        try:
            return super().invoke(ctx)
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
    from nbsim.kernels.policies.table import DEFAULT_POLICY, NAMES
    return ", ".join(f"{n} (default)" if n == DEFAULT_POLICY else n for n in NAMES)


def policy_options(f):
    """--policy SPEC (all seats) / --policies A,B,C,D (seat by seat from the
    dealer). A SPEC is a policy name with optional parameters,
    NAME[:key=value...] (nbsim.policies; `nbsim policies` lists them)."""
    f = click.option("--policies", default=None, metavar="A,B,C,D",
                     help="Policy per seat from the dealer (E,S,W,N), e.g. "
                          "defend,value,value,value or defend:caution=0.8,value,value,value.")(f)
    return click.option("--policy", default=None, metavar="NAME[:key=value...]",
                        help=f"Bot policy for every seat: {_policy_names()}; parameters as "
                             f"in defend:caution=0.8 (see `nbsim policies`).")(f)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
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

    The header line gives the config's source file and content hash; --set
    overrides are applied and validated first (docs/rules.md §9). With --set
    the shipped description, which may no longer hold, is replaced by one
    naming the overrides.
    """
    import json

    import tomli_w

    from nbsim.rules import load_rules

    rs = load_rules(config, overrides)
    rules = rs.to_dict()
    if rs.overrides:
        rules["description"] = (f"{rs.name} as shipped, changed by --set "
                                f"{', '.join(rs.overrides)} (the shipped description does not "
                                f"describe these rules)")
    if as_json:
        click.echo(json.dumps({"source": rs.source, "hash": rs.hash,
                               "overrides": list(rs.overrides), "rules": rules},
                              ensure_ascii=False, indent=2))
        return
    click.echo(f"# {rs.name} from {rs.source} (hash {rs.hash})")
    for ov in rs.overrides:
        click.echo(f"# --set {ov}")
    click.echo(tomli_w.dumps(rules), nl=False)


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
              help="Deals per Parquet shard (default 100,000; 20,000 with --events; "
                   "2,000 matches with --format matches). Does not change any row.")
@click.option("--workers", type=int, default=None,
              help="Worker threads (with --cluster local: worker processes); default: "
                   "every core. Does not change any row.")
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

    Deal i of a seed always has the same wall (RULES.md section 2), whatever
    --shard-size, --workers and --cluster. Writes shard-*.parquet and
    manifest.json; Ctrl-C, a full disk or a killed process keep the finished
    shards, and --resume completes the run. Read the result with
    `nbsim report OUT`.
    """
    import signal

    from nbsim.errors import RunInterrupted
    from nbsim.runs import simulate

    pols = None
    if mode == "game":
        from nbsim.policies import parse_policies
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
    from nbsim.report import write_report

    rep = write_report(run_dir, out)
    click.echo(rep.text)
    click.echo(f"\nwrote {', '.join(str(p) for p in rep.files)}")


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
    from nbsim.comparison import compare

    comp = compare(run_dirs, out)
    click.echo(comp.text)
    if comp.files:
        click.echo(f"\nwrote {', '.join(str(p) for p in comp.files)}")


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
@policy_options
@set_option
def sweep_cmd(config, vary, mode, deals, seed, out, workers, progress, policy, policies,
              overrides):
    """Play one run of CONFIG per value of --vary with the same SEED and
    compare them against the value (docs/rules.md §9 lists the options).

    Prints and writes (into OUT) the win rate, wall-exhausted rate, mean tai
    (Ninghai: points) of wins, winner's gain and turns per deal for each
    value with 95% intervals, plus the differences from the first value,
    paired deal by deal. Running it again on the same OUT skips the runs that
    are finished. Example: nbsim sweep ningbo-3baida --vary win.min_tai=3,4,5,6
    --deals 20000 --seed 1 --out runs/min_tai
    """
    from nbsim.sweeps import sweep

    pols = None
    if mode == "game":
        from nbsim.policies import parse_policies
        pols = parse_policies(policy, policies)
    elif policy or policies:
        raise NbsimError("--policy/--policies need --mode game")
    res = sweep(config, list(vary), deals=deals, seed=seed, out=out, mode=mode, policies=pols,
                overrides=overrides, workers=workers, progress=progress)
    click.echo(res.text)
    click.echo(f"\nwrote {', '.join(str(p) for p in res.files)}")


def _seat_counts_option(values, what):
    out = {}
    for v in values:
        if "=" not in v:
            raise click.BadParameter(f"{v!r}: expected SEAT=N, e.g. W=3", param_hint=what)
        k, n = v.split("=", 1)
        k = k.strip().upper()
        if k in out:
            raise click.BadParameter(f"seat {k} given twice", param_hint=what)
        try:
            out[k] = int(n)
        except ValueError:
            raise click.BadParameter(f"{v!r}: N must be a whole number", param_hint=what) from None
    return out or None


def _shards(res) -> str:
    n = len(res.shards)
    return f"{n} shard" if n == 1 else f"{n} shards"


@cli.command("score")
@click.argument("config", metavar="CONFIG", required=False)
@click.option("--cases", "cases_file", type=click.Path(dir_okay=False), default=None,
              help="Score every line of a JSONL cases file (format: README, 'Scoring cases').")
@click.option("--check", is_flag=True,
              help="With --cases: compare each result with the line's 'expect'; exit 1 on any "
                   "mismatch.")
@click.option("--hand", default=None, help="Concealed tiles before the winning tile, e.g. "
                                           "234m567p345s67s55m (wilds as their own tile).")
@click.option("--win-tile", default=None, help="The winning tile, e.g. 8s.")
@click.option("--self-draw", "self_draw", is_flag=True, help="Self-drawn win.")
@click.option("--discard", "on_discard", is_flag=True, help="Win on a discard (the default).")
@click.option("--robbing-kong", "robbing_kong", is_flag=True, help="Robbing a kong.")
@click.option("--seat", default="E", show_default=True, help="Winner's seat wind: E S W N.")
@click.option("--round", "round_wind", default="E", show_default=True,
              help="Round wind: E S W N.")
@click.option("--indicator", default=None, help="The flipped indicator tile (wild variants).")
@click.option("--flowers", default="", help="Flowers set aside, e.g. 2f6f.")
@click.option("--meld", "melds", multiple=True,
              help="Declared meld (repeatable): chow:345s, pung:777z, kong:7777z, ckong:9999s.")
@click.option("--context", "context", multiple=True,
              type=click.Choice(["after_kong", "last_tile", "heavenly", "earthly"]),
              help="Context of the win (repeatable).")
@click.option("--discarder", default=None, help="Seat that discarded the winning tile "
                                                "(robbing: the robbed seat).")
@click.option("--fed", multiple=True, metavar="SEAT=N",
              help="Melds the winner claimed from SEAT's discards (repeatable), e.g. W=3.")
@click.option("--fed-by-winner", multiple=True, metavar="SEAT=N",
              help="Melds SEAT claimed from the winner's discards (repeatable).")
@click.option("--kong-from", default=None,
              help="With after_kong: seat whose discard the winner konged.")
@set_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def score_cmd(ctx, config, cases_file, check, hand, win_tile, self_draw, on_discard, robbing_kong,
              seat, round_wind, indicator, flowers, melds, context, discarder, fed,
              fed_by_winner, kong_from, overrides, as_json):
    """Score a winning hand of CONFIG, or every line of --cases FILE.

    Single hand: prints the tai items (Ningbo) or fan, fu and points
    (Ninghai), the total, the legal-win decision with its reason and the
    payments (RULES.md sections 5-8 and 10).

    --cases FILE: one JSON result per input line, in order; a malformed line
    prints {"id": ..., "error": "..."} and the rest are still scored. With
    --check each result is compared with the line's "expect" and a summary
    "N passed, M failed" goes to stderr.

    Exit status: 0 ok, 1 a --check mismatch, 2 bad input (in --cases mode
    without --check: some line could not be scored).
    """
    import json

    from nbsim.rules import load_rules
    from nbsim.scoring import check_cases, format_result, read_case_lines, score_hand

    if cases_file is not None:
        if config is not None or hand is not None:
            raise click.UsageError("--cases scores a file: give no CONFIG or --hand with it")

        def show(case):
            click.echo(case.json_line())
            if case.mismatch_line():
                click.echo(case.mismatch_line(), err=True)

        tally = check_cases(read_case_lines(cases_file), check=check, on_case=show)
        click.echo(tally.summary(), err=True)
        ctx.exit(tally.exit_code())
    if check:
        raise click.UsageError("--check needs --cases FILE")
    given = [name for name, on in (("self_draw", self_draw), ("discard", on_discard),
                                   ("robbing_kong", robbing_kong)) if on]
    if len(given) > 1:
        raise click.UsageError("--self-draw, --discard and --robbing-kong exclude each other; "
                               "give at most one (default: --discard)")
    win_by = given[0] if given else "discard"
    if config is None or hand is None or win_tile is None:
        raise click.UsageError("a single hand needs CONFIG, --hand and --win-tile "
                               "(or use --cases FILE)")
    res = score_hand(config, hand, win_tile, melds=melds, win_by=win_by, seat=seat,
                     round_wind=round_wind, indicator=indicator, flowers=flowers,
                     context=context, discarder=discarder,
                     fed=_seat_counts_option(fed, "--fed"),
                     fed_by_winner=_seat_counts_option(fed_by_winner, "--fed-by-winner"),
                     kong_from=kong_from, overrides=overrides)
    if as_json:
        click.echo(json.dumps(res.to_dict(), ensure_ascii=False, indent=2))
    else:
        click.echo(format_result(res, load_rules(config, overrides), win_by=win_by,
                                 indicator=indicator, context=context))


@cli.command("replay")
@config_argument
@click.option("--seed", type=int, required=True, help="Run seed of the deal.")
@click.option("--deal", type=int, required=True, help="Deal index within the run (>= 0).")
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
    its row equals the simulated row (RULES.md sections 2-8).
    """
    from nbsim.policies import parse_policies
    from nbsim.replays import format_json, format_text, replay
    from nbsim.rules import load_rules

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
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@set_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def duel_cmd(config, pol_a, pol_b, deals, seed, progress, overrides, as_json):
    """Duplicate play of policy A against policy B on the same walls.

    Every deal is played twice: seats A,B,A,B then B,A,B,A (from the
    dealer). Prints the mean payment per deal and seat of A minus B (points)
    with a 95% t interval and a p-value, and each policy's win rate.
    Policies: `nbsim policies`.
    """
    import dataclasses
    import json
    import sys

    from tqdm import tqdm

    from nbsim.duplicate import duel
    from nbsim.rules import load_rules

    rs = load_rules(config, overrides)
    show = stderr_is_terminal() if progress is None else progress
    with tqdm(total=deals, unit="deal", unit_scale=True, disable=not show, file=sys.stderr,
              desc=f"{pol_a} vs {pol_b}") as bar:
        res = duel(rs, pol_a, pol_b, deals, seed, progress=bar.update)
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
@click.option("--seed", type=int, default=1, show_default=True, help="Run seed.")
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

    from nbsim.ladder import ladder
    from nbsim.rules import shipped_configs

    configs = list(configs) or shipped_configs()
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
              help="Game deals per style and variant.")
@click.option("--duel-deals", type=int, default=20_000, show_default=True,
              help="Duplicate deals of each style's duel against value (0: no duels).")
@click.option("--seed", type=int, default=1, show_default=True, help="Run seed.")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True,
              help="Folder for the runs and band.md (finished runs are reused).")
@click.option("--workers", type=int, default=None,
              help="Worker threads of each run (default: every core).")
def band_cmd(configs, styles, deals, duel_deals, seed, out, workers):
    """The play-style band: each CONFIG (default: every shipped variant) played
    once per style, its headline statistics side by side with 95% intervals
    and each style's duel against value; writes OUT/band.md."""
    from nbsim.band import BAND_MD, band
    from nbsim.rules import shipped_configs

    res = band(list(configs) or shipped_configs(), deals=deals, seed=seed, out=out,
               styles=styles, duel_deals=duel_deals, workers=workers)
    for vb in res:
        click.echo(vb.markdown())
    click.echo(f"wrote {out}/{BAND_MD}")


@cli.command("policies")
def policies_cmd():
    """List the bot policies and their parameters (defaults and ranges).

    A policy is given as NAME or NAME:key=value[:key=value...] to --policy,
    --policies (four, comma-separated, from the dealer), duel --a/--b and the
    Python API; the run manifest records every parameter."""
    from nbsim.policies import describe

    click.echo(describe())


@cli.command("advise")
@click.argument("config", metavar="VARIANT")
@click.option("--hand", default=None, metavar="TILES",
              help="Own concealed tiles, e.g. 123m456p789s1155z3p: 14 - 3 x melds to discard "
                   "(the drawn tile included), 13 - 3 x melds with --offered.")
@click.option("--melds", "melds", multiple=True, metavar="[SEAT:]TYPE:TILES[@FROM]",
              help="A declared meld (repeatable; comma-separated within a seat): chow:345s, "
                   "pung:777z, kong:7777z, ckong:9999s. SEAT E S W N (default: --seat); "
                   "@FROM the seat whose discard was claimed (default: the seat before); "
                   "another seat's concealed kong lies face down: N:ckong.")
@click.option("--discards", multiple=True, metavar="[SEAT:]TILES",
              help="A seat's discards in order (repeatable, once per seat), e.g. E:19m(5p)3s*: "
                   "(5p) was claimed by a meld, * follows a tile discarded as drawn.")
@click.option("--seat", default=None, help="The deciding seat: E S W N (E the dealer; "
                                           "default E).")
@click.option("--round", "round_wind", default=None, help="Round wind: E S W N (default E).")
@click.option("--indicator", default=None,
              help="The indicator tile (variants with wilds), e.g. 5m.")
@click.option("--wall-left", "wall_left", type=int, default=None,
              help="Tiles still to be drawn (default: all the table as given leaves unseen, "
                   "less Ninghai's reserve).")
@click.option("--flowers", multiple=True, metavar="[SEAT:]TILES",
              help="Flowers set aside (repeatable, once per seat), e.g. S:2f6f.")
@click.option("--drawn", default=None, help="The tile just drawn (one of --hand).")
@click.option("--offered", default=None,
              help="A discard offered to the seat: advise pass, pung, kong or chow instead of "
                   "a discard (the tile is not written in --discards).")
@click.option("--from", "offered_from", default=None,
              help="Seat that discarded --offered (default: the seat before --seat).")
@click.option("--state", "state_file", type=click.Path(dir_okay=False), default=None,
              help="The table state as a JSON file (README, 'Advice for players'); the "
                   "options given replace its keys.")
@click.option("--samples", type=int, default=400, show_default=True,
              help="Sampled deals per candidate, 0 .. 100,000 (0: no simulation, ranked by "
                   "shanten and tile acceptance).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sampled deals: the same seed gives the same advice.")
@click.option("--base", default="defend", show_default=True,
              help="Policy that plays the rest of the deal for every seat: greedy, value or "
                   "defend.")
@set_option
@click.option("--json", "as_json", is_flag=True, help="Print the advice as JSON.")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
              help="Also write a PNG bar chart of each candidate's expected payment with its "
                   "95% interval.")
def advise_cmd(config, hand, melds, discards, seat, round_wind, indicator, wall_left, flowers,
               drawn, offered, offered_from, state_file, samples, seed, base, overrides,
               as_json, plot):
    """Advise a discard, or a claim of an offered discard, at a table of VARIANT.

    For each candidate (every discard of a 3k+2-tile hand; or pass, pung,
    kong, chow of --offered) prints the shanten and tile acceptance (unseen
    tiles that lower it) toward the open hand, the flushes and all pungs
    (docs/rules.md §10.2), and from SAMPLES sampled deals played out by
    --base: P(win), the expected payment in points per deal for the seat
    with its 95% interval, the paired difference to the best, the chance of
    dealing in to each opponent (probabilities per deal), and for a hand
    left ready the exact chance of completing it by its own draws (no
    opponents). The recommendation is the best; candidates whose difference
    interval holds 0 are within the noise. A claim is ranked by shanten and
    acceptance: a pung or chow shows the simulation of its best discard after
    it, pass and kong are not simulated. Rules: docs/rules.md §1-§5.
    Example: nbsim advise ningbo-3baida --hand 123m456p789s1155z3p
    --indicator 9m --discards E:19m --melds W:pung:777z --samples 200
    """
    import json

    from nbsim.advice import (
        advice_json,
        advise,
        format_advice,
        plot_advice,
        position_from_state,
        read_state,
        table_state,
    )
    from nbsim.rules import load_rules

    rs = load_rules(config, overrides)
    state = table_state(read_state(state_file) if state_file else None, hand=hand, melds=melds,
                        discards=discards, seat=seat, round_wind=round_wind,
                        indicator=indicator, wall_left=wall_left, flowers=flowers, drawn=drawn,
                        offered=offered, offered_from=offered_from)
    adv = advise(rs, position_from_state(rs, state), samples=samples, seed=seed, base=base)
    written = plot_advice(adv, plot) if plot else None
    if as_json:
        click.echo(json.dumps(advice_json(adv), ensure_ascii=False, indent=2))
    else:
        click.echo(format_advice(adv))
    if written is not None:
        click.echo(f"wrote {written}", err=as_json)


@cli.group("server")
def server_group():
    """The warm server that makes every ``nbsim`` call start in tenths of a
    second instead of about 3 s (``nbsim.client``, ``nbsim.server``).

    The ``nbsim`` command starts one by itself after a call that found none,
    and hands it the later calls; it stops after NBSIM_SERVER_IDLE seconds
    without a command (default 900). NBSIM_SERVER=0 runs every command in
    its own process instead."""


@server_group.command("status")
def server_status_cmd():
    """List the running servers of this user: pid, commands served and
    running, kernels preloaded, seconds idle; '*' marks the one in use."""
    from nbsim.protocol import servers

    found = servers()
    if not found:
        click.echo("no nbsim server is running")
    for st in found:
        click.echo(f"{'*' if st['current'] else ' '} pid {st['pid']}: {st['requests']} commands, "
                   f"{st['running']} running, preloaded {', '.join(st['preloaded']) or 'none'}, "
                   f"idle {st['idle_s']:.0f} s of {st['idle_limit_s']:.0f} s "
                   f"({st['socket']})")


@server_group.command("start")
def server_start_cmd():
    """Start the server the ``nbsim`` command uses now (if none runs) and
    wait until it answers (at most 60 s)."""
    from nbsim.protocol import start

    st = start()
    if st is None:
        raise click.ClickException("the server did not answer within 60 s; its log is next "
                                   "to its socket (nbsim server status lists the folder)")
    click.echo(f"server pid {st['pid']} at {st['socket']}, preloaded "
               f"{', '.join(st['preloaded']) or 'no kernels'}")


@server_group.command("stop")
def server_stop_cmd():
    """Stop every nbsim server of this user (each lets its running commands
    finish first)."""
    from nbsim.protocol import stop_all

    pids = stop_all()
    click.echo(f"asked {len(pids)} server(s) to stop" + (f": pid {', '.join(map(str, pids))}"
                                                          if pids else ""))


cli.add_command(__import__("nbsim.tune_cli", fromlist=["tune_cmd"]).tune_cmd)   # issue 22


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
