"""``nbsim tune``: the click command (registered in ``nbsim.cli``); the work
is ``nbsim.analysis.tune.tune.tune`` (``nbsim.tune``). Options given on the
command line replace the same keys of a ``--file`` request."""
from __future__ import annotations

import click

from nbsim.errors import NbsimError

# option name -> key of the request file (nbsim.analysis.tune.spec.SPEC_KEYS)
_FILE_KEYS = {"config": "config", "targets": "target", "vary": "vary", "policy": "policy",
              "overrides": "set", "trials": "trials", "deals": "deals", "seed": "seed",
              "steps": "steps", "confirm_deals": "confirm_deals",
              "confirm_seed": "confirm_seed", "confirm_top": "confirm_top",
              "styles": "styles", "style_deals": "style_deals"}


def _is_relative_path(config: str) -> bool:
    """A config given as a relative TOML path (not a shipped name)."""
    from pathlib import Path
    return (config.endswith(".toml") or "/" in config) and not Path(config).is_absolute()


@click.command("tune")
@click.argument("config", metavar="CONFIG", required=False)
@click.option("--target", "targets", multiple=True, metavar="STAT=LOW..HIGH",
              help="A statistic of `nbsim compare` and its range, e.g. win_rate=0.90..0.95 or "
                   "mean_score=5.. (repeatable; rates as fractions 0..1).")
@click.option("--vary", "vary", multiple=True, metavar="KEY=LOW..HIGH[:STEP]|KEY=V1,V2,...",
              help="A rule option to search: a whole-number range (win.min_tai=3..8, "
                   "payments.cap=50..500:50) or values (claims.allow_chow=true,false) "
                   "(repeatable).")
@click.option("--file", "spec_file", type=click.Path(dir_okay=False), default=None,
              help="The request as a TOML file: config (a relative path is relative to "
                   "the file's folder), target, vary, policy, set, trials, deals, seed, steps, "
                   "confirm_deals, confirm_seed, confirm_top, styles, style_deals; options "
                   "given here replace its keys.")
@click.option("--trials", type=int, default=None, help="Finished trials the study should "
                                                       "have, 1 .. 100,000 (default 20).")
@click.option("--deals", type=int, default=None, help="Deals per trial (default 20,000).")
@click.option("--seed", type=int, default=None,
              help="Seed of every trial (default 1): the same walls in every trial.")
@click.option("--policy", default=None, metavar="NAME[:key=value...]",
              help="Play style of every seat (default defend; `nbsim policies`).")
@click.option("--steps", type=int, default=None,
              help="Looks per trial, 1 .. 100 (default 4): a trial whose interval is clearly "
                   "outside a target after a look is pruned.")
@click.option("--confirm-deals", "confirm_deals", type=int, default=None,
              help="Deals of the confirmation runs (default 4 x --deals).")
@click.option("--confirm-seed", "confirm_seed", type=int, default=None,
              help="Seed of the confirmation runs (default --seed + 1: fresh deals).")
@click.option("--confirm-top", "confirm_top", type=int, default=None,
              help="Best settings confirmed (default 3).")
@click.option("--styles", "styles", default=None, metavar="SPEC[@DEALS],...|none",
              help="Play styles the recommended settings are checked under, every seat "
                   "the style, on the confirmation's seed (default "
                   "value,defend,defend:caution=0.9, the band's; none: the search's style "
                   "only). A search style needs its deals: lookahead@600 (about one deal "
                   "per second per core). Robust: meets every target under every style.")
@click.option("--style-deals", "style_deals", type=int, default=None,
              help="Deals of each style's check without @DEALS (default --confirm-deals).")
@click.option("--out", "out", type=click.Path(file_okay=True, dir_okay=True), required=True,
              help="Study folder: study.db, runs/, confirm/, tune.md/.json/.html/.png/.toml.")
@click.option("--workers", type=int, default=None,
              help="Trials played at once (default: every core); with --cluster local, "
                   "worker processes.")
@click.option("--cluster", default=None, metavar="local|tcp://HOST:PORT",
              help="Play each trial's shards on a Dask cluster (trials one at a time), as "
                   "nbsim simulate --cluster.")
@click.option("--resume", is_flag=True,
              help="Continue the study in --out (its interrupted trials are played again, "
                   "their run folders completed); the request must match the study.")
@click.option("--overwrite", is_flag=True, help="Start the study in --out again.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar of finished trials on stderr (default: when stderr is a "
                   "terminal).")
@click.option("--set", "overrides", multiple=True, metavar="TABLE.KEY=VALUE",
              help="Override one option in every trial (repeatable; validated like the file).")
@click.pass_context
def tune_cmd(ctx, config, targets, vary, spec_file, trials, deals, seed, policy, steps,
             confirm_deals, confirm_seed, confirm_top, styles, style_deals, out, workers,
             cluster, resume, overwrite, progress, overrides):
    """Search rule options of CONFIG for settings whose statistics meet the
    --target ranges (docs/tune.md; options: docs/rules.md §9).

    Every trial is a run folder of --deals deals with the same --seed, so
    trials differ by the rules alone; a trial is pruned once its interval
    is clearly outside a target. Prints each trial's statistics with 95%
    intervals and its verdict (meets: the interval inside the range; may
    meet: overlapping it), then the best settings played again on a fresh
    seed with more deals against the variant's own, the recommended settings
    under each play style of --styles with the styles they hold for (robust:
    every one), and the recommendation (or, with the closest trial, that no
    setting tried meets the targets: infeasible only when every setting of
    the ranges was tried). Writes
    tune.md, tune.json, tune.html, tune.png and tune.toml (a config of the
    recommended settings for `nbsim simulate`) into OUT; the Optuna study is
    OUT/study.db. Example: nbsim tune ningbo-3baida --target
    win_rate=0.90..0.93 --vary win.min_tai=3..8 --trials 6 --deals 20000
    --out runs/tune
    """
    import signal

    from nbsim.analysis.tune.spec import read_spec_file
    from nbsim.analysis.tune.tune import tune
    from nbsim.errors import RunInterrupted

    given = {"config": config, "targets": targets or None, "vary": vary or None,
             "policy": policy, "overrides": overrides or None, "trials": trials,
             "deals": deals, "seed": seed, "steps": steps, "confirm_deals": confirm_deals,
             "confirm_seed": confirm_seed, "confirm_top": confirm_top, "styles": styles,
             "style_deals": style_deals}
    if spec_file:
        data = read_spec_file(spec_file)
        for opt, key in _FILE_KEYS.items():
            if given[opt] is None and key in data:
                given[opt] = data[key]
        cfg = data.get("config")
        if given["config"] is cfg and isinstance(cfg, str) and _is_relative_path(cfg):
            from pathlib import Path
            given["config"] = str(Path(spec_file).parent / cfg)   # the file's folder
    if not given["config"]:
        raise NbsimError("give CONFIG (a shipped config name or a TOML path), or config in "
                         "--file")
    defaults = {"trials": 20, "deals": 20_000, "seed": 1, "steps": 4, "confirm_top": 3}
    args = {k: (defaults[k] if v is None and k in defaults else v) for k, v in given.items()}
    def _terminate(signum, frame):          # `kill PID` stops like Ctrl-C: the study kept
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        res = tune(args.pop("config"), args.pop("targets"), args.pop("vary"), out=out,
                   workers=workers, cluster=cluster, resume=resume, overwrite=overwrite,
                   progress=progress, **args)
    except RunInterrupted as e:
        click.echo(f"Error: {e}", err=True)
        ctx.exit(130)
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(res.text)
    click.echo(f"\nwrote {', '.join(str(p) for p in res.files)}")
