"""nbsim: simulation and statistics for Ningbo mahjong (宁波麻将) and its neighbours.

The public API: every name a user needs, importable from ``nbsim``
(``__all__``; the reference is generated from their docstrings). Rules:
docs/rules.md.

Rules and one hand:
    load_rules(config, overrides=()) -> RuleSet
    score_hand(config, hand, win_tile, ...) -> ScoreResult   (one winning situation)
Runs and their analysis:
    simulate(config, deals=..., seed=..., out=..., mode="deal"|"game", ...) -> RunResult
    scan_run(run_dir) -> polars.LazyFrame                (the rows of a run folder)
    summarize(run_dir) -> Report                          (tables of a run folder)
    compare(run_dirs, out=None) -> Comparison
    sweep(config, vary, deals=..., seed=..., out=...) -> SweepResult
    tune(config, targets, search, ...) -> TuneResult      (rule search)
Play:
    replay(config, seed, deal, policies=("value",) * 4) -> DealRecord  (one played deal)
    duel(config, a, b, deals, seed, seating="2v2", first=0, workers=None) -> DuelResult
    pool_duels(results) -> DuelResult                     (duels on disjoint deals as one)
    ladder(configs, policies, deals, seed, out) / band(configs, styles, deals, seed, out)
At the table:
    Position, position_from_options(...)                   (one seat's view of a table)
    advise(config, position, samples=None, seed=0, base="defend", budget=None) -> Advice
    format_advice(advice) -> str, advice_json(advice) -> dict, plot_advice(advice, path)
    evaluate(config, position, samples=400, seed=0, first=None, budget=None) -> Evaluation
    review(source, seat=..., deal=..., samples=None, seed=0) -> Review  (a played deal rated)
    format_review(review) -> str, review_json(review) -> dict

Everything is imported on first use (numpy and pydantic with load_rules;
polars, scipy and the kernels with the others), so ``import nbsim`` costs
a few milliseconds.
"""
from nbsim.errors import ConfigError, HandError, NbsimError, RunError, TileError
from nbsim.version import __version__

__all__ = ["load_rules", "RuleSet", "score_hand", "ScoreResult", "simulate", "scan_run",
           "summarize", "compare", "sweep", "tune", "replay", "duel", "pool_duels", "ladder",
           "band", "advise", "evaluate", "review", "Position", "position_from_options",
           "format_advice", "advice_json", "plot_advice", "format_review", "review_json",
           "NbsimError", "ConfigError", "TileError", "HandError", "RunError", "__version__"]

_LAZY = {"load_rules": ("nbsim.rules.ruleset", "load_rules"),
         "RuleSet": ("nbsim.rules.ruleset", "RuleSet"),
         "score_hand": ("nbsim.rules.scorer", "score_hand"),
         "ScoreResult": ("nbsim.rules.scorer", "ScoreResult"),
         "simulate": ("nbsim.run.simulate", "simulate"),
         "scan_run": ("nbsim.run.files", "scan_run"),
         "summarize": ("nbsim.analysis.report.report", "summarize"),
         "compare": ("nbsim.analysis.compare.compare", "compare"),
         "sweep": ("nbsim.analysis.sweeps", "sweep"),
         "tune": ("nbsim.analysis.tune.tune", "tune"),
         "replay": ("nbsim.play.replays", "replay"),
         "duel": ("nbsim.play.duel", "duel"),
         "pool_duels": ("nbsim.play.pools", "pool"),
         "ladder": ("nbsim.play.ladder", "ladder"),
         "band": ("nbsim.play.band", "band"),
         "advise": ("nbsim.play.advice.advise", "advise"),
         "evaluate": ("nbsim.play.evaluation", "evaluate"),
         "review": ("nbsim.play.review.review", "review"),
         "format_review": ("nbsim.play.review.text", "format_review"),
         "review_json": ("nbsim.play.review.text", "review_json"),
         "Position": ("nbsim.play.position", "Position"),
         "position_from_options": ("nbsim.play.advice.state", "position_from_options"),
         "format_advice": ("nbsim.play.advice.text", "format_advice"),
         "advice_json": ("nbsim.play.advice.text", "advice_json"),
         "plot_advice": ("nbsim.play.advice.text", "plot_advice")}


def __getattr__(name):
    """Lazy public functions (PEP 562): nbsim.simulate, nbsim.summarize, ..."""
    if name in _LAZY:
        import importlib
        mod, attr = _LAZY[name]
        value = getattr(importlib.import_module(mod), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nbsim' has no attribute {name!r}")
