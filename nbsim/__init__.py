"""nbsim: simulation and statistics for Ningbo mahjong (宁波麻将) and its neighbours.

Public API (see the README and RULES.md):
    load_rules(config, overrides=()) -> RuleSet
    score_hand(config, hand, win_tile, ...) -> ScoreResult   (one winning situation)
    summarize(run_dir) -> nbsim.report.Report      (tables of a run folder)
    compare(run_dirs, out=None) -> nbsim.compare.Comparison

``summarize`` and ``compare`` are imported on first use (they pull in polars
and scipy), so ``import nbsim`` and ``nbsim rules`` stay fast.
"""
from nbsim.errors import ConfigError, HandError, NbsimError, TileError
from nbsim.rules import RuleSet, load_rules

__version__ = "0.1.0"

__all__ = ["load_rules", "score_hand", "ScoreResult", "summarize", "compare", "RuleSet", "NbsimError", "ConfigError",
           "TileError", "HandError", "__version__"]

_LAZY = {"score_hand": ("nbsim.scoring", "score_hand"),
         "ScoreResult": ("nbsim.scoring", "ScoreResult"),
         "summarize": ("nbsim.report", "summarize"), "compare": ("nbsim.compare", "compare")}


def __getattr__(name):
    """Lazy public functions (PEP 562): nbsim.summarize, nbsim.compare."""
    if name in _LAZY:
        import importlib
        mod, attr = _LAZY[name]
        value = getattr(importlib.import_module(mod), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nbsim' has no attribute {name!r}")
