"""Chinese names of the scoring items and terms, next to their ids, so that
every view a player reads (``score``, ``replay``, ``report``, ``compare``)
shows ``清一色 full_flush`` rather than the id alone.

One table per item family, keyed by the ids of ``nbsim.kernels.codes``
(``TAI_ITEMS``, ``FAN_ITEMS``, ``FU_ITEMS``, ``SCHEME_NAMES``); the names are
those of docs/rules.md §6 (tai), §8 (fan, fu, points schemes) and §3 (wilds).
A test checks that every id of ``codes`` has a name here.
"""
from __future__ import annotations

# docs/rules.md §6, in the order of codes.TAI_ITEMS
TAI_NAMES: dict[str, str] = {
    "self_drawn": "自摸",
    "chicken_hand": "排胡",
    "all_chows": "平胡",
    "edge_wait": "边张",
    "closed_wait": "夹张",
    "single_wait": "单吊",
    "dual_pung_wait": "对倒",
    "big_single_wait": "大吊",
    "all_pungs": "碰碰胡",
    "out_with_replacement": "杠上开花",
    "no_wilds": "硬胡",
    "three_wilds": "三财神",
    "robbing_the_kong": "抢杠",
    "last_tile_draw": "海底捞月",
    "heavenly_hand": "天胡",
    "earthly_hand": "地胡",
    "full_flush": "清一色",
    "half_flush": "混一色",
    "all_honors": "字一色",
    "seat_flower": "正花",
    "flower_set": "四花",
    "all_flowers": "八花",
    "dragon_pung": "箭刻",
    "seat_wind_pung": "门风刻",
    "prevalent_wind_pung": "圈风刻",
    "wild_single_wait": "抛搭",
    "wild_drawn": "摸搭",
}

# docs/rules.md §8, in the order of codes.FAN_ITEMS
FAN_NAMES: dict[str, str] = {
    "seat_flower": "正花",
    "flower_set": "四花",
    "dragon_pung": "箭刻",
    "full_flush": "清一色",
    "all_honors": "字一色",
    "half_flush": "混一色",
    "all_pungs": "对对胡",
}

# docs/rules.md §8, in the order of codes.FU_ITEMS ("terminal" = terminal or honor, 幺九)
FU_NAMES: dict[str, str] = {
    "exposed_pung_terminal": "幺九碰出",
    "exposed_pung_simple": "碰出",
    "concealed_pung_terminal": "幺九暗刻",
    "concealed_pung_simple": "暗刻",
    "exposed_kong_terminal": "幺九明杠",
    "exposed_kong_simple": "明杠",
    "concealed_kong_terminal": "幺九暗杠",
    "concealed_kong_simple": "暗杠",
    "flower": "花",
    "self_drawn": "自摸",
    "closed_wait": "夹中",
}

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
