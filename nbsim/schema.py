"""Result columns and their dtypes, defined once (the Parquet schema of a run).

Deal mode (``nbsim simulate --mode deal``), one row per deal, seats named by
seat wind with the dealer as East (suffixes ``_e _s _w _n``; RULES.md section
2):

==================  ==============  ==================================================
column              dtype           meaning
==================  ==============  ==================================================
deal                Int64           deal index within the run (0 .. deals - 1)
seed                UInt64          the run seed
dice                List(UInt8)     every die thrown, in throw order (2 or 4)
indicator           String          the flipped indicator in notation; null without wilds
wild_kinds          List(String)    the wild kinds in notation ([] without wilds)
dealer_complete     Boolean         dealer's 14 tiles complete after the flower
                                    replacement (heavenly hand, 天胡)
hand_e .. hand_n    String          hand after the flower replacement (wild flowers
                                    stay in it), e.g. ``123m456p789s11z2f``
flowers_e ..        String          flowers set aside, e.g. ``15f``; empty if none
wilds_e .. wilds_n  UInt8           wild tiles in the hand
==================  ==============  ==================================================

``column_order(mode)`` and ``schema(mode)`` give the order and the polars
dtypes; ``schema_json(mode)`` is what a run's manifest records.
"""
from __future__ import annotations

import polars as pl

SEAT_SUFFIXES = ("e", "s", "w", "n")
MODES = ("deal", "game")
IMPLEMENTED_MODES = ("deal",)

_DEAL_COLUMNS: list[tuple[str, pl.DataType]] = [
    ("deal", pl.Int64),
    ("seed", pl.UInt64),
    ("dice", pl.List(pl.UInt8)),
    ("indicator", pl.String),
    ("wild_kinds", pl.List(pl.String)),
    ("dealer_complete", pl.Boolean),
]
_DEAL_COLUMNS += [(f"hand_{s}", pl.String) for s in SEAT_SUFFIXES]
_DEAL_COLUMNS += [(f"flowers_{s}", pl.String) for s in SEAT_SUFFIXES]
_DEAL_COLUMNS += [(f"wilds_{s}", pl.UInt8) for s in SEAT_SUFFIXES]

_SCHEMAS = {"deal": _DEAL_COLUMNS}


def schema(mode: str = "deal") -> pl.Schema:
    """polars Schema (column -> dtype, in order) of a run in ``mode``."""
    return pl.Schema(_SCHEMAS[mode])


def column_order(mode: str = "deal") -> list[str]:
    """Column names of ``mode`` in order."""
    return [name for name, _ in _SCHEMAS[mode]]


def schema_json(mode: str = "deal") -> dict[str, str]:
    """{column: dtype as text} for the manifest."""
    return {name: str(dtype) for name, dtype in _SCHEMAS[mode]}


def seat_columns(prefix: str) -> list[str]:
    """The four per-seat columns of ``prefix`` (``'hand'`` -> hand_e .. hand_n)."""
    return [f"{prefix}_{s}" for s in SEAT_SUFFIXES]
