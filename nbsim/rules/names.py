"""Chinese names of the scoring items and terms, next to their ids, so that
every view a player reads (``score``, ``replay``, ``report``, ``compare``)
shows ``清一色 full_flush`` rather than the id alone.

One table per item family, keyed by the ids of ``nbsim.kernels.codes``
(``TAI_ITEMS``, ``FAN_ITEMS``, ``FU_ITEMS``, ``SCHEME_NAMES``); the names are
those of docs/rules.md §6 (tai), §8 (fan, fu, points schemes) and §3 (wilds).
The item names come from the item registry (``nbsim/kernels/items.py``).
A test checks that every id of ``codes`` has a name here.
"""
from __future__ import annotations

from nbsim.kernels.items import FAN_ITEM_TABLE, FU_ITEM_TABLE, TAI_ITEM_TABLE

# docs/rules.md §6 and §8: the names of the tai, fan and fu items are rows of
# the item registry (nbsim/kernels/items.py), in the order of codes.TAI_ITEMS,
# FAN_ITEMS and FU_ITEMS
TAI_NAMES: dict[str, str] = {r.id: r.name for r in TAI_ITEM_TABLE}
FAN_NAMES: dict[str, str] = {r.id: r.name for r in FAN_ITEM_TABLE}
FU_NAMES: dict[str, str] = {r.id: r.name for r in FU_ITEM_TABLE}

# docs/rules.md §8: Ninghai points schemes
SCHEME_NAMES: dict[str, str] = {
    "yao_ban_san": "幺半三",
    "yao_ban_liu": "幺半六",
    "yao_er_liu": "幺二六",
    "tui_dao_ba": "推倒八",
}

# how deals end (docs/rules.md §4-5)
OUTCOME_NAMES: dict[str, str] = {
    "self_drawn": "自摸",
    "discard": "放冲",
    "robbing_kong": "抢杠",
    "wall_exhausted": "荒庄",
}

WILD = "百搭"          # a wild tile (also called 财神)


def _label(table: dict[str, str], item: str) -> str:
    name = table.get(item)
    return f"{name} {item}" if name else item


def tai_label(item: str) -> str:
    """'清一色 full_flush': the Chinese name and the id of a tai item (the id
    alone when it has no name)."""
    return _label(TAI_NAMES, item)


def fan_label(item: str) -> str:
    """'对对胡 all_pungs': Chinese name and id of a Ninghai fan item."""
    return _label(FAN_NAMES, item)


def fu_label(item: str) -> str:
    """'幺九暗刻 concealed_pung_terminal': Chinese name and id of a fu item."""
    return _label(FU_NAMES, item)


def scheme_label(scheme: str) -> str:
    """'幺半三 yao_ban_san': Chinese name and id of a points scheme."""
    return _label(SCHEME_NAMES, scheme)


def outcome_label(outcome: str) -> str:
    """'荒庄 wall_exhausted': Chinese name and id of a deal outcome."""
    return _label(OUTCOME_NAMES, outcome)
