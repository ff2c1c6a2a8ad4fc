"""Result columns and their dtypes, defined once (the Parquet schema of a run).

Deal mode (``nbsim simulate --mode deal``), one row per deal, seats named by
seat wind with the dealer as East (suffixes ``_e _s _w _n``;
docs/rules.md §2):

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
IMPLEMENTED_MODES = ("deal", "game")

_DEAL_COLUMNS: list[tuple[str, pl.DataType | type[pl.DataType]]] = [
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


def game_columns(rules=None) -> list[tuple[str, pl.DataType | type[pl.DataType]]]:
    """Game-mode columns after the deal-mode ones (docs/rules.md §4-§8).

    ==================  ============  ==============================================
    round_wind          String        E S W N
    outcome             String        self_drawn, discard, robbing_kong, wall_exhausted
    winner, discarder   String        seat (dealer = E); null when none (discarder:
                                      the robbed player for robbing_kong)
    win_tile            String        winning tile (notation); null when the wall is
                                      exhausted (no winner)
    context             List(String)  after_kong, last_tile, heavenly, earthly
    tai                 Int16         total tai of the win (tai variants); null when
                                      the wall is exhausted
    tai_<item>          Int16         tai of each item of the variant (0 if it did not apply)
    has_<item>          Boolean       the item applies to the win, also when it is worth
                                      0 tai in the variant (``chicken_hand`` in
                                      ningbo-3baida); false when the wall is exhausted
                                      (one beside each tai_<item>)
    fan, fu             Int16         Ninghai fan (capped at fan_cap) and the winner's fu
                                      (fan/fu variants)
    fan_<item>          Int16         fan of each fan item of the variant's [scoring.fan]
                                      before the cap (0 if it did not apply)
    fu_<item>           Int16         fu of each fu item of [scoring.fu] (they add up to fu)
    points_<scheme>     Int32         Ninghai points under each scheme
    liable              String        Ninghai three-melds liable seat (null: none)
    fu_e .. fu_n        Int16         each player's own fu (Ninghai)
    pay_e .. pay_n      Int32         net points per seat (zero-sum)
    wilds_win           UInt8         wild tiles in the winning hand; null when the
                                      wall is exhausted
    turns               Int16         discards made
    tiles_left          Int16         tiles still drawable at the end
    kongs               Int8          kongs declared (all players)
    melds_e .. melds_n  List(String)  declared melds at the end, e.g. ``pung:777z``
    flowers_end_e ..    String        flowers each seat has set aside at the end of the
                                      deal (those after the deal and those drawn in
                                      play), e.g. ``157f``; empty if none
    policy_e ..         String        policy of the player in each seat
    ==================  ============  ==============================================

    Items are those of the counted reading (docs/rules.md §6, §8, §10.3, §10.4).
    """
    cols: list[tuple[str, pl.DataType | type[pl.DataType]]] = [
        ("round_wind", pl.String), ("outcome", pl.String), ("winner", pl.String),
        ("discarder", pl.String), ("win_tile", pl.String), ("context", pl.List(pl.String)),
    ]
    if rules is None or rules.config.scoring.system == "tai":
        items = rules.tai_items if rules is not None else []
        cols += [("tai", pl.Int16)]
        for i in items:
            cols += [(f"tai_{i}", pl.Int16), (f"has_{i}", pl.Boolean)]
    else:
        from nbsim.kernels.codes import SCHEME_NAMES
        cols += [("fan", pl.Int16), ("fu", pl.Int16)]
        cols += [(f"fan_{i}", pl.Int16) for i in rules.fan_items]
        cols += [(f"fu_{i}", pl.Int16) for i in rules.fu_items]
        cols += [(f"points_{s}", pl.Int32) for s in SCHEME_NAMES]
        cols += [("liable", pl.String)] + [(f"fu_{s}", pl.Int16) for s in SEAT_SUFFIXES]
    cols += [(f"pay_{s}", pl.Int32) for s in SEAT_SUFFIXES]
    cols += [("wilds_win", pl.UInt8), ("turns", pl.Int16), ("tiles_left", pl.Int16),
             ("kongs", pl.Int8)]
    cols += [(f"melds_{s}", pl.List(pl.String)) for s in SEAT_SUFFIXES]
    cols += [(f"flowers_end_{s}", pl.String) for s in SEAT_SUFFIXES]
    cols += [(f"policy_{s}", pl.String) for s in SEAT_SUFFIXES]
    return cols


def _columns(mode: str, rules=None) -> list[tuple[str, pl.DataType | type[pl.DataType]]]:
    if mode == "deal":
        return _DEAL_COLUMNS
    if mode == "game":
        return _DEAL_COLUMNS + game_columns(rules)
    if mode == "match":
        return ([("match", pl.Int64)] + _DEAL_COLUMNS + game_columns(rules)
                + [(f"player_{s}", pl.Int8) for s in SEAT_SUFFIXES])
    if mode == "events":
        return EVENT_COLUMNS
    raise KeyError(mode)


EVENT_COLUMNS: list[tuple[str, pl.DataType | type[pl.DataType]]] = [
    ("deal", pl.Int64), ("step", pl.Int32), ("seat", pl.String), ("action", pl.String),
    ("tile", pl.String), ("meld", pl.String), ("from_seat", pl.String), ("pos", pl.Int16),
]


def schema(mode: str = "deal", rules=None) -> pl.Schema:
    """polars Schema (column -> dtype, in order) of a run in ``mode`` ('deal',
    'game', 'match' or 'events'); game and match columns depend on the
    variant's scoring system and tai items (``rules``: a RuleSet)."""
    return pl.Schema(_columns(mode, rules))


def column_order(mode: str = "deal", rules=None) -> list[str]:
    """Column names of ``mode`` in order."""
    return [name for name, _ in _columns(mode, rules)]


def schema_json(mode: str = "deal", rules=None) -> dict[str, str]:
    """{column: dtype as text} for the manifest."""
    return {name: str(dtype) for name, dtype in _columns(mode, rules)}


def seat_columns(prefix: str) -> list[str]:
    """The four per-seat columns of ``prefix`` (``'hand'`` -> hand_e .. hand_n)."""
    return [f"{prefix}_{s}" for s in SEAT_SUFFIXES]
