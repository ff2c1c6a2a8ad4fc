"""What every result column means: its unit and meaning, beside the dtypes
of ``nbsim.run.schema``.

``schema`` says which columns a run has and their polars dtypes; this
module says what each one holds, for the column reference of the docs site
(docs/gen/columns.py) and for anyone reading the shards. Columns that
repeat per seat, item or points scheme are one entry with a placeholder:
``<seat>`` (``e s w n``: seat winds, the dealer East), ``<item>`` (a tai,
fan or fu item id of the variant, docs/rules.md §6, §8) and ``<scheme>``
(a Ninghai points scheme, §8). ``describe(name)`` finds the entry of a
concrete column name.

Units: ``tai`` (Ningbo scoring, §6), ``fan`` and ``fu`` (Ninghai, §8),
``points`` (what players pay each other, §7, §8), ``tiles``, ``count``;
an empty unit is a label, a flag or a tile text in notation (§1).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from nbsim.errors import NbsimError
from nbsim.kernels import codes as C
from nbsim.run.schema import SEAT_SUFFIXES


class Column(NamedTuple):
    """One column (or one family of columns, named with a placeholder)."""
    name: str
    unit: str
    meaning: str


# deal mode: one row per deal (docs/rules.md §2, §3); also the first columns
# of a game-mode row
DEAL: tuple[Column, ...] = (
    Column("deal", "", "deal index within the run (0 .. deals - 1); in a match run, the "
                       "deal's index within its match"),
    Column("seed", "", "the run seed"),
    Column("dice", "pips", "every die thrown, in throw order (2 or 4 dice)"),
    Column("indicator", "", "the turned-up indicator tile in notation; null without wilds"),
    Column("wild_kinds", "", "the wild kinds in notation (empty without wilds)"),
    Column("dealer_complete", "", "the dealer's 14 tiles are complete after the flower "
                                  "replacement (heavenly hand, 天胡)"),
    Column("hand_<seat>", "", "the seat's hand after the flower replacement, in notation "
                              "(wild flowers stay in it), e.g. 123m456p789s11z2f"),
    Column("flowers_<seat>", "", "flowers the seat set aside in the deal, e.g. 15f; empty "
                                 "if none"),
    Column("wilds_<seat>", "tiles", "wild tiles in the seat's dealt hand"),
)

# game mode: after the deal columns (docs/rules.md §4-§8)
GAME: tuple[Column, ...] = (
    Column("round_wind", "", "the round wind: E S W N"),
    Column("outcome", "", "how the deal ended: self_drawn, discard, robbing_kong or "
                          "wall_exhausted"),
    Column("winner", "", "the winner's seat; null when the wall is exhausted"),
    Column("discarder", "", "the seat whose discard won (robbing_kong: the robbed seat); "
                            "null for a self-drawn win or an exhausted wall"),
    Column("win_tile", "", "the winning tile in notation; null when the wall is exhausted"),
    Column("context", "", "what else held at the win: after_kong, last_tile, heavenly, "
                          "earthly"),
    Column("tai", "tai", "total tai of the win (tai variants); null when the wall is "
                         "exhausted"),
    Column("tai_<item>", "tai", "tai the item scored in the win (0 when it did not apply)"),
    Column("has_<item>", "", "the item applies to the win, also when the variant values it "
                             "at 0 tai; false when the wall is exhausted"),
    Column("fan", "fan", "the win's fan, capped at scoring.points.fan_cap (fan/fu variants)"),
    Column("fu", "fu", "the winner's fu (fan/fu variants)"),
    Column("fan_<item>", "fan", "fan of the item before the cap (0 when it did not apply)"),
    Column("fu_<item>", "fu", "fu of the item (the items add up to fu)"),
    Column("points_<scheme>", "points", "what the win is worth under the points scheme"),
    Column("liable", "", "the seat liable for three melds fed to the winner (三摊); null "
                         "when none"),
    Column("fu_<seat>", "fu", "the seat's own fu, which the points schemes count"),
    Column("pay_<seat>", "points", "the seat's net payment in the deal (the four add up "
                                   "to 0)"),
    Column("wilds_win", "tiles", "wild tiles in the winning hand; null when the wall is "
                                 "exhausted"),
    Column("turns", "count", "discards made in the deal"),
    Column("tiles_left", "tiles", "tiles still drawable when the deal ended"),
    Column("kongs", "count", "kongs declared by all players"),
    Column("melds_<seat>", "", "the seat's declared melds at the end, e.g. pung:777z"),
    Column("flowers_end_<seat>", "", "flowers the seat set aside by the end of the deal "
                                     "(dealt and drawn in play), e.g. 157f; empty if none"),
    Column("policy_<seat>", "", "the policy that played the seat, with its parameters"),
)

# --format matches: the match of each deal row and who sits where
MATCH: tuple[Column, ...] = (
    Column("match", "", "match index within the run (0 .. matches - 1)"),
    Column("player_<seat>", "", "the player (0 .. 3) sitting in the seat in this deal"),
)

# --events: events-*.parquet, one row per action (docs/rules.md §2-§5)
EVENTS: tuple[Column, ...] = (
    Column("deal", "", "deal index within the run"),
    Column("step", "", "the action's order within its deal (0, 1, ...)"),
    Column("seat", "", "the seat that acts; null for the dice and the indicator"),
    Column("action", "", "one of " + ", ".join(C.ACTION_NAMES)),
    Column("tile", "", "the tile of the action in notation (a die's value for dice)"),
    Column("meld", "", "the meld made (chow, pung, kong), or win_by for win and pass_win"),
    Column("from_seat", "", "the seat whose discard was claimed, or the discarder or "
                            "robbed seat of a win"),
    Column("pos", "", "wall position of a dealt or drawn tile (-1 when none)"),
)

_PLACEHOLDERS = {
    "<seat>": SEAT_SUFFIXES,
    "<item>": tuple(dict.fromkeys(C.TAI_ITEMS + C.FAN_ITEMS + C.FU_ITEMS)),
    "<scheme>": C.SCHEME_NAMES,
}


def _pattern(name: str) -> re.Pattern:
    """The regular expression of a column name with placeholders."""
    out = re.escape(name)
    for ph, values in _PLACEHOLDERS.items():
        out = out.replace(re.escape(ph), "(" + "|".join(map(re.escape, values)) + ")")
    return re.compile(out + "$")


def describe(name: str, table: str = "deals") -> Column:
    """The entry of a concrete column ``name`` of ``table`` ("deals": the
    shard rows of any mode or format; "events": events-*.parquet).

    Raises NbsimError naming the column when no entry describes it."""
    if table not in ("deals", "events"):
        raise NbsimError(f"table {table!r}: allowed: deals, events")
    entries = EVENTS if table == "events" else DEAL + GAME + MATCH
    for c in entries:
        if c.name == name:
            return c
    for c in entries:
        if "<" in c.name and _pattern(c.name).match(name):
            return c
    raise NbsimError(f"column {name!r} of {table}: no description in nbsim.run.columns")
