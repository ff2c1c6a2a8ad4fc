"""nbsim: simulation and statistics for Ningbo mahjong (宁波麻将) and its neighbours.

Public API (see the README and RULES.md):
    load_rules(config, overrides=()) -> RuleSet
"""
from nbsim.errors import ConfigError, HandError, NbsimError, TileError
from nbsim.rules import RuleSet, load_rules

__version__ = "0.1.0"

__all__ = ["load_rules", "RuleSet", "NbsimError", "ConfigError", "TileError", "HandError",
           "__version__"]
