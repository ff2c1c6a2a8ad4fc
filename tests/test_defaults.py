"""The commands that play runs agree on their defaults: every core for
--workers (the library functions behind them too), and game mode wherever
the statistics compared are those of played deals (sweep, tune); simulate's
deal mode says why it differs in its help."""
from __future__ import annotations

import inspect

import click

from nbsim.analysis.sweeps import sweep
from nbsim.analysis.tune.tune import tune
from nbsim.cli import cli
from nbsim.play.band import band
from nbsim.run.simulate import simulate


def _option(command: str, name: str) -> click.Option:
    cmd = cli.commands[command]
    return next(p for p in cmd.params if isinstance(p, click.Option) and name in p.opts)


def test_workers_default_to_every_core():
    with_workers = sorted(name for name, cmd in cli.commands.items()
                          if any("--workers" in p.opts for p in cmd.params))
    assert {"simulate", "sweep", "tune"} <= set(with_workers)
    for name in with_workers:
        opt = _option(name, "--workers")
        assert opt.default is None, f"nbsim {name} --workers defaults to {opt.default}"
        assert "every core" in (opt.help or ""), name
    for fn in (simulate, sweep, tune, band):
        assert inspect.signature(fn).parameters["workers"].default is None, fn.__name__


def test_modes_agree_or_say_why():
    sim, swp = _option("simulate", "--mode"), _option("sweep", "--mode")
    assert swp.default == inspect.signature(sweep).parameters["mode"].default == "game"
    assert sim.default == inspect.signature(simulate).parameters["mode"].default
    assert "--mode" not in {o for p in cli.commands["tune"].params for o in p.opts}
    if sim.default != swp.default:                 # the difference is explained in both
        assert "sweep and tune" in " ".join(sim.help.split()), sim.help
        assert "as tune" in swp.help and "simulate's default" in swp.help, swp.help
