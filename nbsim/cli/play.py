"""The play commands of ``nbsim``: ``replay``, ``duel``, ``pool-duels``,
``ladder``, ``band`` and ``policies``. Each parses its options and calls one
library function (``nbsim.play``); ``nbsim.cli`` registers them."""
from __future__ import annotations

import sys

import click

from nbsim.args import stderr_is_terminal
from nbsim.cli.options import config_argument, policy_options, set_option
from nbsim.errors import NbsimError


@click.command("replay")
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
    from nbsim.play.replays import format_json, format_text, replay
    from nbsim.policy_specs import parse_policies
    from nbsim.rules.ruleset import load_rules

    rs = load_rules(config, overrides)
    rec = replay(rs, seed, deal, parse_policies(policy, policies))
    click.echo(format_json(rec) if as_json else format_text(rs, rec))


@click.command("duel")
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


@click.command("pool-duels")
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
    from nbsim.play.pools import pool, read_result

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


@click.command("ladder")
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


@click.command("band")
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
        click.echo(vb.text())
    click.echo(f"wrote {out}/{BAND_MD}")


@click.command("policies")
def policies_cmd():
    """List the bot policies and their parameters (defaults and ranges).

    A policy is given as NAME or NAME:key=value[:key=value...] to --policy,
    --policies (four, comma-separated, from the dealer), duel --a/--b and the
    Python API; the run manifest records every parameter."""
    from nbsim.policy_specs import describe

    click.echo(describe())


