"""nbsim: simulation and statistics for Ningbo mahjong (宁波麻将) and its neighbours.

Public API (see the README and docs/rules.md):
    load_rules(config, overrides=()) -> RuleSet
    score_hand(config, hand, win_tile, ...) -> ScoreResult   (one winning situation)
    simulate(config, deals=..., seed=..., out=..., mode="deal"|"game", ...) -> RunResult
    replay(config, seed, deal, policies=("value",) * 4) -> DealRecord  (one played deal)
    duel(config, a, b, deals, seed) -> DuelResult      (duplicate play of two policies)
    summarize(run_dir) -> nbsim.report.Report      (tables of a run folder)
    compare(run_dirs, out=None) -> nbsim.comparison.Comparison
    sweep(config, vary, deals=..., seed=..., out=...) -> nbsim.sweeps.SweepResult
    advise(config, position, samples=400, seed=0, base="defend") -> nbsim.advice.Advice
                                                   (discard and claim advice at a table)
    Position                                       (one seat's view of a table:
                                                    nbsim.advice.position_from_options)

Everything is imported on first use (numpy and pydantic with load_rules;
polars, scipy and the kernels with the others), so ``import nbsim`` costs
a few milliseconds: the ``nbsim`` command's client (``nbsim.client``)
imports nothing more before it hands the command to the warm server.
"""
from nbsim.errors import ConfigError, HandError, NbsimError, RunError, TileError

__version__ = "0.1.0"

__all__ = ["load_rules", "score_hand", "ScoreResult", "simulate", "summarize", "compare",
           "sweep", "replay", "duel", "advise", "Position", "RuleSet", "NbsimError",
           "ConfigError", "TileError", "HandError", "RunError", "__version__"]

_LAZY = {"load_rules": ("nbsim.rules", "load_rules"), "RuleSet": ("nbsim.rules", "RuleSet"),
         "score_hand": ("nbsim.scoring", "score_hand"),
         "ScoreResult": ("nbsim.scoring", "ScoreResult"),
         "simulate": ("nbsim.runs", "simulate"),
         "replay": ("nbsim.replays", "replay"), "duel": ("nbsim.duplicate", "duel"),
         "summarize": ("nbsim.report", "summarize"), "compare": ("nbsim.comparison", "compare"),
         "sweep": ("nbsim.sweeps", "sweep"), "advise": ("nbsim.advice", "advise"),
         "Position": ("nbsim.position", "Position")}


def __getattr__(name):
    """Lazy public functions (PEP 562): nbsim.simulate, nbsim.summarize, ..."""
    if name in _LAZY:
        import importlib
        mod, attr = _LAZY[name]
        value = getattr(importlib.import_module(mod), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nbsim' has no attribute {name!r}")
