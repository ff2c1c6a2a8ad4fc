"""The ``nbsim`` commands about one hand at the table: ``nbsim score`` (a
winning hand, or a file of scoring cases) and ``nbsim advise`` (the
discards or claims of one position). Each parses its options and calls the
library (``nbsim.rules.scorer``, ``nbsim.rules.cases``, ``nbsim.play.advice.advise``);
``nbsim.cli`` registers them."""
from __future__ import annotations

import sys

import click

from nbsim.cli.options import echo_result, set_option
from nbsim.play.worlds import ADVICE_OPPONENTS


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


def _with_config(lines, config):
    """The lines of ``lines`` (a text stream), each JSON object given
    ``"config": config`` when it names none and ``config`` is given; other
    lines unchanged (the scorer reports them)."""
    import json
    for line in lines:
        if config is not None and line.strip():
            try:
                case = json.loads(line)
            except json.JSONDecodeError:
                case = None
            if isinstance(case, dict) and "config" not in case:
                line = json.dumps({"config": config, **case}, ensure_ascii=False)
        yield line


def _advice_lines(lines, answer):
    """``answer(state)`` for the JSON object of every non-blank line of
    ``lines`` (a text stream), echoed as one JSON line each as soon as it is
    made: ``{"line": n, ...}``, or ``{"line": n, "error": message}`` for a
    line that is not a JSON object or is refused (the next lines are still
    answered). Returns the number of refused lines."""
    import json

    from nbsim.errors import NbsimError
    failed = 0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            state = json.loads(line)
            if not isinstance(state, dict):
                raise ValueError(f"expected a JSON object (a table state), got "
                                 f"{type(state).__name__}")
            out = {"line": n, **answer(state)}
        except json.JSONDecodeError as e:
            out, failed = {"line": n, "error": f"bad JSON: {e.msg} (column {e.colno})"}, failed + 1
        except (NbsimError, ValueError) as e:
            out, failed = {"line": n, "error": str(e)}, failed + 1
        click.echo(json.dumps(out, ensure_ascii=False))
    return failed


@click.command("score")
@click.argument("config", metavar="CONFIG", required=False)
@click.option("--cases", "cases_file", type=click.Path(dir_okay=False), default=None,
              help="Score every line of a JSONL cases file (format: docs/guide/players.md).")
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
@click.option("--state", "state_stream", type=click.Choice(["-"]), default=None,
              help="'-': score one hand per line of standard input (a JSON object with the "
                   "keys of a --cases line; \"config\" defaults to CONFIG) and print one "
                   "JSON line each, as it is read; many hands in one process.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def score_cmd(ctx, config, cases_file, check, hand, win_tile, self_draw, on_discard, robbing_kong,
              seat, round_wind, indicator, flowers, melds, context, discarder, fed,
              fed_by_winner, kong_from, state_stream, overrides, as_json):
    """Score a winning hand of CONFIG, or every line of --cases FILE.

    Single hand: prints the tai items (Ningbo) or fan, fu and points
    (Ninghai), the total, the legal-win decision with its reason and the
    payments (docs/rules.md §5-§8 and §10).

    --cases FILE: one JSON result per input line, in order; a malformed line
    prints {"id": ..., "error": "..."} and the rest are still scored. With
    --check each result is compared with the line's "expect" and a summary
    "N passed, M failed" goes to stderr. --state -: the same for the lines
    of standard input, each answered as soon as it is read ("config"
    defaults to CONFIG), so that one process scores many hands.

    Exit status: 0 ok, 1 a --check mismatch, 2 bad input (with --cases or
    --state - and no --check: some line could not be scored).
    """
    import json

    from nbsim.rules.cases import check_cases, read_case_lines
    from nbsim.rules.ruleset import load_rules
    from nbsim.rules.scorer import format_result, score_hand
    from nbsim.warmup import ensure_compiled

    if cases_file is not None and state_stream is not None:
        raise click.UsageError("--cases FILE and --state - exclude each other: give one")
    if cases_file is not None or state_stream is not None:
        # each line gives its own hand and settings: a hand option here would be
        # silently ignored, so it is refused
        single = [p for p in ctx.command.params
                  if p.name not in ("cases_file", "check", "as_json", "state_stream")
                  and not (state_stream is not None and p.name == "config")]
        given = [("CONFIG" if p.name == "config" else p.opts[0]) for p in single
                 if ctx.get_parameter_source(p.name) != click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{'--cases' if cases_file else '--state -'} scores lines "
                                   f"that give each hand and its settings: give no "
                                   f"{', '.join(given)} with it")

        def show(case):
            click.echo(case.json_line())
            if case.mismatch_line():
                click.echo(case.mismatch_line(), err=True)

        lines = (read_case_lines(cases_file) if cases_file is not None
                 else _with_config(sys.stdin, config))
        ensure_compiled("score")      # says so before a first compile
        tally = check_cases(lines, check=check, on_case=show)
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
    ensure_compiled("score")          # says so before a first compile
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


@click.command("advise")
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
                   "less Ninghai's reserve; fewer: tiles left the wall unlisted, so no "
                   "heavenly or earthly hand).")
@click.option("--flowers", multiple=True, metavar="[SEAT:]TILES",
              help="Flowers set aside (repeatable, once per seat), e.g. S:2f6f.")
@click.option("--drawn", default=None, help="The tile just drawn (one of --hand).")
@click.option("--passed", multiple=True, metavar="[SEAT:]TILES",
              help="Kinds a seat let go by since its own last discard (repeatable, once per "
                   "seat), e.g. W:2z4s: the others' discards it did not win on, safe against "
                   "it for now.")
@click.option("--replacement", is_flag=True, default=None,
              help="The drawn tile replaced a kong or a flower (a self-drawn win on it is "
                   "out with a replacement, 杠上开花; when the seat's last meld is an exposed "
                   "kong of another seat's last discard, that seat fed it and pays for it); "
                   "needs --drawn.")
@click.option("--offered", default=None,
              help="A discard offered to the seat: advise pass, pung, kong or chow instead of "
                   "a discard (the tile is not written in --discards).")
@click.option("--from", "offered_from", default=None,
              help="Seat that discarded --offered (default: the seat before --seat).")
@click.option("--state", "state_file", type=click.Path(dir_okay=False, allow_dash=True),
              default=None,
              help="The table state as a JSON file (docs/guide/players.md); the other "
                   "options override its keys. '-': one table state per line of standard "
                   "input, each answered by one JSON line as it is read (the other options "
                   "apply to every line); many positions in one process.")
@click.option("--samples", type=int, default=None,
              help="The most sampled deals a candidate is played on, 0 or 2 .. 100,000 (0: no "
                   "simulation, ranked by shanten toward a legal win and tile acceptance). "
                   "Given alone, the race runs to it with no clock, so the seed alone decides "
                   "the answer. [default: 3200 within --budget]")
@click.option("--budget", type=float, default=None,
              help="Seconds of computing the race over the candidates may take (the CPU time "
                   "of the simulation, read between rounds: a busy machine takes longer but "
                   "plays as many deals; 0: no clock). [default: 2 unless --samples is "
                   "given]")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sampled deals: the same seed gives the same advice.")
@click.option("--base", default="defend", show_default=True,
              help="Policy that plays the rest of the deal for every seat: greedy, value or "
                   "defend.")
@click.option("--opponents", type=int, default=ADVICE_OPPONENTS, show_default=True,
              help="How the sampled deals give the other players their hidden tiles: 0 at "
                   "random; 1 refined once per discard they made; 2 also toward a value "
                   "player's target; 3 also a flush in the suit their discards point to, "
                   "whose forecasts agree with real deals (docs/lookahead.md, 'Calibration of the "
                   "worlds'). A flush target keeps the honours; each tile's deal-in chance against "
                   "played deals: docs/results/calibration.md.")
@set_option
@click.option("--json", "as_json", is_flag=True, help="Print the advice as JSON.")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
              help="Also write a bar chart of each candidate's expected payment with its "
                   "95% interval (the format by the extension: .png, .svg, .pdf, ...).")
def advise_cmd(config, hand, melds, discards, seat, round_wind, indicator, wall_left, flowers,
               drawn, passed, replacement, offered, offered_from, state_file, samples, budget,
               seed, base, opponents, overrides, as_json, plot):
    """Advise a discard, or a claim of an offered discard, at a table of VARIANT.

    For each candidate (every discard of a 3k+2-tile hand, a concealed or
    added kong it holds, and the self-drawn win of a complete hand; or pass,
    pung, kong, chow of --offered, and the win on it when it completes the
    hand; a legal win first, scored as nbsim score scores it) prints the
    shanten and tile acceptance (unseen tiles that lower it) toward the open
    hand, the flushes and all pungs (docs/rules.md §10.2; 0 is ready for a
    legal win, 0* ready with no legal win, e.g. under the minimum tai), the
    tiles that complete a legal win (waits; (s) only self-drawn, (d) only
    on a discard), and from sampled deals played out by --base: P(win),
    the expected payment in points per deal for the seat with its 95%
    interval, the paired difference to the best, the chance of dealing in
    to each opponent (probabilities per deal), and for a hand left ready
    the exact chance of completing it by its own draws (nobody else wins,
    claims or kongs; flowers replaced without a turn; Ninghai's reserve never
    drawn; docs/lookahead.md).

    The candidates race: all of them on a first round of 50 common
    sampled deals, then on new common deals (as many as all rounds before)
    only those whose paired 95% interval to the best still reaches 0, until
    one is left, they reach --samples deals or --budget seconds of computing
    are spent.
    The recommendation is the best, with one sentence on why it beats the
    runner-up (win chance, value when won, or losses such as dealing in);
    candidates whose difference interval holds 0 are within the noise. The
    same seed and --samples give the same answer; when the budget ends the
    race, --samples with the deals it played replays it.

    --state -: one table state (a JSON object) per line of standard input,
    each answered by one JSON line ({"line": N, ...} as --json gives, or
    {"line": N, "error": ...}) as soon as it is read, so that one process
    answers many positions; exit status 2 when some line was refused.

    A claim is ranked the same way: pass, pung, kong and each chow played
    out on the same sampled deals (after a claim the seat discards as
    --base would). A kong the seat may declare at a discard is raced with
    the discards (kong, replacement draw, then --base's play). Rules:
    docs/rules.md §1-§6.
    Example: nbsim advise ningbo-3baida --hand 123m456p789s1155z3p
    --indicator 9m --discards E:19m --melds W:pung:777z --samples 200
    """

    from nbsim.play.advice.advise import advise
    from nbsim.play.advice.state import position_from_state, read_state, table_state
    from nbsim.play.advice.text import advice_json, format_advice, plot_advice, plot_path
    from nbsim.rules.ruleset import load_rules

    if plot:
        if state_file == "-":
            raise click.UsageError("--plot draws one advice: give it without --state -")
        plot_path(plot)              # a bad path fails now, not after the simulation
    rs = load_rules(config, overrides)

    def answer(given):
        state = table_state(given, hand=hand, melds=melds, discards=discards, seat=seat,
                            round_wind=round_wind, indicator=indicator, wall_left=wall_left,
                            flowers=flowers, drawn=drawn, offered=offered,
                            offered_from=offered_from,
                            replacement=True if replacement else None, passed=passed)
        return advise(rs, position_from_state(rs, state), samples=samples, seed=seed,
                      base=base, opponents=opponents, budget=budget)

    if state_file == "-":
        failed = _advice_lines(sys.stdin,
                               lambda s: advice_json(answer(s)))
        sys.exit(2 if failed else 0)
    adv = answer(read_state(state_file) if state_file else None)
    written = plot_advice(adv, plot) if plot else None
    echo_result(as_json, lambda: advice_json(adv), lambda: format_advice(adv), written)
