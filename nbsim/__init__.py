"""nbsim: simulation and statistics for Ningbo mahjong (宁波麻将) and its neighbours.

Public API (see the README and docs/rules.md):
    load_rules(config, overrides=()) -> RuleSet
    score_hand(config, hand, win_tile, ...) -> ScoreResult   (one winning situation)
    simulate(config, deals=..., seed=..., out=..., mode="deal"|"game", ...) -> RunResult
    replay(config, seed, deal, policies=("value",) * 4) -> DealRecord  (one played deal)
    duel(config, a, b, deals, seed, seating="2v2", first=0, workers=None) -> DuelResult
                                                   (duplicate play of two policies)
    pool_duels(results) -> DuelResult              (duels on disjoint deals as one)
    summarize(run_dir) -> nbsim.analysis.report.Report      (tables of a run folder)
    compare(run_dirs, out=None) -> nbsim.analysis.comparison.Comparison
    sweep(config, vary, deals=..., seed=..., out=...) -> nbsim.analysis.sweeps.SweepResult
    advise(config, position, samples=None, seed=0, base="defend", budget=None)
                                  -> nbsim.play.advice.Advice
                                                   (discard and claim advice at a table: the
                                                    candidates raced on common sampled deals
                                                    within budget seconds; .reason says why
                                                    the best wins)
    evaluate(config, position, samples=400, seed=0, first=None, budget=None)
                                  -> nbsim.play.evaluation.Evaluation
                                                   (the lookahead's rows of every discard;
                                                    first: raced from a first round)
    Position                                       (one seat's view of a table:
                                                    nbsim.play.advice.position_from_options)

Everything is imported on first use (numpy and pydantic with load_rules;
polars, scipy and the kernels with the others), so ``import nbsim`` costs
a few milliseconds: the ``nbsim`` command's client (``nbsim.client``)
imports nothing more before it hands the command to the warm server.
"""
from nbsim.errors import ConfigError, HandError, NbsimError, RunError, TileError

__version__ = "0.5.0"

__all__ = ["load_rules", "score_hand", "ScoreResult", "simulate", "summarize", "compare",
           "sweep", "replay", "duel", "pool_duels", "advise", "evaluate", "Position", "RuleSet",
           "NbsimError", "ConfigError", "TileError", "HandError", "RunError", "__version__"]

_LAZY = {"load_rules": ("nbsim.rules.ruleset", "load_rules"),
         "RuleSet": ("nbsim.rules.ruleset", "RuleSet"),
         "score_hand": ("nbsim.rules.scorer", "score_hand"),
         "ScoreResult": ("nbsim.rules.scorer", "ScoreResult"),
         "simulate": ("nbsim.run.simulate", "simulate"),
         "replay": ("nbsim.play.replays", "replay"), "duel": ("nbsim.play.duel", "duel"),
         "pool_duels": ("nbsim.play.duel_pool", "pool"),
         "summarize": ("nbsim.analysis.report", "summarize"),
         "compare": ("nbsim.analysis.comparison", "compare"),
         "sweep": ("nbsim.analysis.sweeps", "sweep"), "advise": ("nbsim.play.advice", "advise"),
         "evaluate": ("nbsim.play.evaluation", "evaluate"),
         "Position": ("nbsim.play.position", "Position")}


def __getattr__(name):
    """Lazy public functions (PEP 562): nbsim.simulate, nbsim.summarize, ..."""
    if name in _LAZY:
        import importlib
        mod, attr = _LAZY[name]
        value = getattr(importlib.import_module(mod), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nbsim' has no attribute {name!r}")
