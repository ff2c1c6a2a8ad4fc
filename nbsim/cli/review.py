"""``nbsim review``: every decision of one seat in a played deal rated
against the best move (the library: ``nbsim.play.review``; docs/guide/players.md)."""
from __future__ import annotations

import sys

import click

from nbsim.cli.options import INTERRUPTED, echo_result, policy_options
from nbsim.play.worlds import ADVICE_OPPONENTS

__all__ = ["review_cmd"]


@click.command("review")
@click.argument("source", metavar="SOURCE")
@click.option("--deal", type=int, default=None,
              help="The deal to review: its index in the run folder, or the deal nbsim "
                   "replay plays with --run-seed.")
@click.option("--seat", default=None,
              help="The seat reviewed: E S W N, or 0..3 (E, 0: the dealer).")
@click.option("--run-seed", "run_seed", type=int, default=None,
              help="With a variant as SOURCE: the seed of the deal nbsim replay plays "
                   "(nbsim replay's --seed).")
@policy_options
@click.option("--samples", type=int, default=None,
              help="The most sampled deals a move of a decision is played on, 2 .. 100,000 "
                   "(the race over the moves stops earlier when one is clearly best). "
                   "[default: 200 when --budget is not given]")
@click.option("--budget", type=float, default=None,
              help="Seconds of computing per decision (the CPU time of the simulation, read "
                   "between the race's rounds; 0: no clock).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sampled deals: the same seed and --samples give the same "
                   "review.")
@click.option("--base", default="defend", show_default=True,
              help="Policy that plays the rest of the deal in the sampled deals: greedy, "
                   "value or defend.")
@click.option("--opponents", type=int, default=ADVICE_OPPONENTS, show_default=True,
              help="How the sampled deals give the other players their hidden tiles (as "
                   "nbsim advise --opponents).")
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON.")
@click.option("--html", "html", type=click.Path(dir_okay=False), default=None,
              help="Also write the review as one offline HTML page: the hand and discards at "
                   "each decision, the loss plotted along the deal.")
@click.option("--progress/--no-progress", default=None,
              help="A progress bar on stderr [default: when stderr is a terminal].")
def review_cmd(source, deal, seat, run_seed, policy, policies, samples, budget, seed, base,
               opponents, as_json, html, progress):
    """Rate every decision of one seat in a played deal against the best move.

    SOURCE is a run folder made with nbsim simulate --mode game --events
    (with --deal and --seat), a variant (with --run-seed, --deal, --seat
    and the policies: the deal nbsim replay plays), or a record of a deal
    as the seat saw it, a .json file (docs/guide/players.md gives the format).

    Each decision (a discard, a kong, a claim or a pass, a win or a pass)
    is rated from what the seat could see then: the legal moves are played
    to the end of the deal on the same sampled deals (the hidden tiles
    sampled, as nbsim advise does), a legal win scored. For each: the move
    made, the best move, the expected loss of the move made in points per
    deal with its 95% interval, flagged (!) when the interval lies above
    0. The summary gives the decisions, how often the best was played, the
    expected loss of the deal and the costliest decisions with the table.
    Ctrl-C prints what was rated and exits with status 130.

    Example: nbsim review runs/a --deal 3 --seat S --html review.html
    """
    from nbsim.args import writable_file
    from nbsim.errors import RunError
    from nbsim.play.review.review import review
    from nbsim.play.review.text import format_review, review_json, write_review_html
    from nbsim.policy_specs import parse_policies

    if html:
        writable_file(html, "--html", error=RunError)    # a bad path fails before the work
    pols = parse_policies(policy, policies) if policy or policies else None
    rv = review(source, seat=seat, deal=deal, replay_seed=run_seed, policies=pols,
                samples=samples, budget=budget, seed=seed, base=base, opponents=opponents,
                progress=progress)
    written = write_review_html(rv, html) if html else None
    echo_result(as_json, lambda: review_json(rv), lambda: format_review(rv), written, indent=1)
    if rv.interrupted:
        click.echo("interrupted: the review above holds the decisions rated before Ctrl-C",
                   err=True)
        sys.exit(INTERRUPTED)
