"""The item registry: every Ningbo tai item, and the Ninghai fan and fu items,
one row each.

This is the one list of scoring items. ``codes`` takes the item ids and
their order from it (``TAI_ITEMS``, ``FAN_ITEMS``, ``FU_ITEMS``; a config's
``scoring.tai.<id>``, ``scoring.fan.<id>`` and ``scoring.fu.<id>`` keys),
``scoring.hand_items`` builds the dispatch of the hand-level tai items from it,
``nbsim.rules.names`` takes the Chinese names from it, and docs/items.md explains
how to add a row. It is plain Python (no numba), so the wrappers and the
command line can read it without loading the kernels.

Columns of a row (``Item``):

* ``id``: the item's id (docs/rules.md, the config keys); its index in its
  table is its item number (``codes.T_*``, ``F_*``, ``FU_*``);
* ``const``: the name of that number in ``codes``;
* ``level``: where the item is read. ``"hand"``: from the hand as a whole
  (flowers, how and when the hand was won, wilds held), once per winning
  situation; ``"reading"``: from one reading of the hand (its groups and its
  winning slot), for every reading the search finds; the counted reading's
  items are the result (docs/rules.md §10.3, §10.4);
* ``name``: the Chinese name (docs/rules.md tables);
* ``section``: the section of docs/rules.md that defines it;
* ``reading``: the kernel that decides whether (and how many times) the
  item applies. For a hand-level tai item it is the name of a function of
  ``nbsim/kernels/scoring/hand_items.py`` with the signature ``f(rules, h) -> int``
  (``h``: ``scoring.hand_items.HandFacts``; the result: how many times the item
  applies, 0 when it does not); ``scoring.hand_items.tai_hand_items`` calls every
  such function in table order. For the other items it names the kernel
  (``module.function``) where the item is decided.

Adding a hand-level tai item is one row here (at the end of
``TAI_ITEM_TABLE``, so the numbers of the others stay) and its reading
function in ``scoring/hand_items.py`` (docs/items.md).
"""
from __future__ import annotations

from typing import NamedTuple

HAND = "hand"
READING = "reading"


class Item(NamedTuple):
    """One scoring item (see the module doc for the columns)."""
    id: str
    const: str
    level: str
    name: str
    section: str
    reading: str


_WAIT = "scoring.readings.choice.wait_item"
_SHAPE = "scoring.readings.choice.consider (the reading's shape)"
_PUNGS = "scoring.readings.choice.consider (the reading's pungs)"

# docs/rules.md §6, in table order (the order of codes.TAI_ITEMS and RES_ITEMS)
TAI_ITEM_TABLE: tuple[Item, ...] = (
    Item("self_drawn", "T_SELF_DRAWN", HAND, "自摸", "§6", "self_drawn"),
    Item("chicken_hand", "T_CHICKEN_HAND", READING, "排胡", "§6", _WAIT),
    Item("all_chows", "T_ALL_CHOWS", READING, "平胡", "§6", _WAIT),
    Item("edge_wait", "T_EDGE_WAIT", READING, "边张", "§6, §10.1", _WAIT),
    Item("closed_wait", "T_CLOSED_WAIT", READING, "夹张", "§6, §10.1", _WAIT),
    Item("single_wait", "T_SINGLE_WAIT", READING, "单吊", "§6, §10.1", _WAIT),
    Item("dual_pung_wait", "T_DUAL_PUNG_WAIT", READING, "对倒", "§6, §10.1", _WAIT),
    Item("big_single_wait", "T_BIG_SINGLE_WAIT", READING, "大吊", "§6", _WAIT),
    Item("all_pungs", "T_ALL_PUNGS", READING, "碰碰胡", "§6", _PUNGS),
    Item("out_with_replacement", "T_OUT_WITH_REPLACEMENT", HAND, "杠上开花", "§6",
         "out_with_replacement"),
    Item("no_wilds", "T_NO_WILDS", HAND, "硬胡", "§6", "no_wilds"),
    Item("three_wilds", "T_THREE_WILDS", HAND, "三财神", "§6", "three_wilds"),
    Item("robbing_the_kong", "T_ROBBING_THE_KONG", HAND, "抢杠", "§6", "robbing_the_kong"),
    Item("last_tile_draw", "T_LAST_TILE_DRAW", HAND, "海底捞月", "§6", "last_tile_draw"),
    Item("heavenly_hand", "T_HEAVENLY_HAND", HAND, "天胡", "§6", "heavenly_hand"),
    Item("earthly_hand", "T_EARTHLY_HAND", HAND, "地胡", "§6", "earthly_hand"),
    Item("full_flush", "T_FULL_FLUSH", READING, "清一色", "§6", _SHAPE),
    Item("half_flush", "T_HALF_FLUSH", READING, "混一色", "§6", _SHAPE),
    Item("all_honors", "T_ALL_HONORS", READING, "字一色", "§6", _SHAPE),
    Item("seat_flower", "T_SEAT_FLOWER", HAND, "正花", "§6", "seat_flower"),
    Item("flower_set", "T_FLOWER_SET", HAND, "四花", "§6", "flower_set"),
    Item("all_flowers", "T_ALL_FLOWERS", HAND, "八花", "§6", "all_flowers"),
    Item("dragon_pung", "T_DRAGON_PUNG", READING, "箭刻", "§6", _PUNGS),
    Item("seat_wind_pung", "T_SEAT_WIND_PUNG", READING, "门风刻", "§6", _PUNGS),
    Item("prevalent_wind_pung", "T_PREVALENT_WIND_PUNG", READING, "圈风刻", "§6", _PUNGS),
    Item("wild_single_wait", "T_WILD_SINGLE_WAIT", HAND, "抛搭", "§6, §10.1",
         "wild_single_wait"),
    Item("wild_drawn", "T_WILD_DRAWN", HAND, "摸搭", "§6", "wild_drawn"),
)

_FAN_HAND = "scoring.score.fan_fu_hand_items"
_FAN_READING = "scoring.readings.choice.consider, scoring.readings.descriptor.fill_fan_fu"

# docs/rules.md §8, in table order (codes.FAN_ITEMS, RES_FAN_ITEMS)
FAN_ITEM_TABLE: tuple[Item, ...] = (
    Item("seat_flower", "F_SEAT_FLOWER", HAND, "正花", "§8", _FAN_HAND),
    Item("flower_set", "F_FLOWER_SET", HAND, "四花", "§8", _FAN_HAND),
    Item("dragon_pung", "F_DRAGON_PUNG", READING, "箭刻", "§8", _FAN_READING),
    Item("full_flush", "F_FULL_FLUSH", READING, "清一色", "§8", _FAN_READING),
    Item("all_honors", "F_ALL_HONORS", READING, "字一色", "§8", _FAN_READING),
    Item("half_flush", "F_HALF_FLUSH", READING, "混一色", "§8", _FAN_READING),
    Item("all_pungs", "F_ALL_PUNGS", READING, "对对胡", "§8", _FAN_READING),
)

_SET_FU = ("scoring.score.declared_melds (declared), "
           "scoring.readings.descriptor.fu_set_inc (concealed)")

# docs/rules.md §8, in table order (codes.FU_ITEMS, RES_FU_ITEMS); "terminal"
# means a terminal or an honor (幺九). The eight set items come first, in the
# order scoring.payments.pung_fu_item numbers them.
FU_ITEM_TABLE: tuple[Item, ...] = (
    Item("exposed_pung_terminal", "FU_EXPOSED_PUNG_TERMINAL", READING, "幺九碰出", "§8",
         _SET_FU),
    Item("exposed_pung_simple", "FU_EXPOSED_PUNG_SIMPLE", READING, "碰出", "§8", _SET_FU),
    Item("concealed_pung_terminal", "FU_CONCEALED_PUNG_TERMINAL", READING, "幺九暗刻", "§8",
         _SET_FU),
    Item("concealed_pung_simple", "FU_CONCEALED_PUNG_SIMPLE", READING, "暗刻", "§8", _SET_FU),
    Item("exposed_kong_terminal", "FU_EXPOSED_KONG_TERMINAL", READING, "幺九明杠", "§8",
         _SET_FU),
    Item("exposed_kong_simple", "FU_EXPOSED_KONG_SIMPLE", READING, "明杠", "§8", _SET_FU),
    Item("concealed_kong_terminal", "FU_CONCEALED_KONG_TERMINAL", READING, "幺九暗杠", "§8",
         _SET_FU),
    Item("concealed_kong_simple", "FU_CONCEALED_KONG_SIMPLE", READING, "暗杠", "§8", _SET_FU),
    Item("flower", "FU_FLOWER", HAND, "花", "§8", _FAN_HAND),
    Item("self_drawn", "FU_SELF_DRAWN", HAND, "自摸", "§8", _FAN_HAND),
    Item("closed_wait", "FU_CLOSED_WAIT", READING, "夹中", "§8",
         "scoring.readings.choice.consider"),
)

HAND_TAI_ITEMS: tuple[Item, ...] = tuple(r for r in TAI_ITEM_TABLE if r.level == HAND)
