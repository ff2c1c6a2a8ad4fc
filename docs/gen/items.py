"""reference/items.md: every scoring item, from the item registry (the
Ningbo tai items, the Ninghai fan and fu items): id, Chinese name, where it
is read, the section of docs/rules.md that defines it and its value in each
shipped config."""
from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import generated_from, section_links, table  # noqa: E402

from nbsim.kernels import items as REG  # noqa: E402
from nbsim.rules import ruleset as RS  # noqa: E402

LEVELS = {REG.HAND: "the whole hand", REG.READING: "each reading"}


def item_table(kind: str, items, shipped: dict) -> str:
    """One row per item of ``items`` (a registry table) with its value in
    every shipped config of the scoring system that has ``kind`` items."""
    configs = {n: getattr(rs.config.scoring, kind) for n, rs in shipped.items()
               if (rs.config.scoring.system == "tai") == (kind == "tai")}
    rows = [[f"`{it.id}`", it.name, LEVELS[it.level], section_links(it.section),
             *(str(c.get(it.id, "-")) for c in configs.values())] for it in items]
    return table(["id", "name", "read from", "rule", *configs], rows)


def page() -> str:
    shipped = {name: RS.load_rules(name) for name in RS.shipped_configs()}
    text = "# Tai, fan and fu items\n\n" + generated_from(
        "the item registry (`TAI_ITEM_TABLE`, `FAN_ITEM_TABLE`, `FU_ITEM_TABLE`) and the "
        "shipped configs")
    text += (
        "Each item is a key of the config's `[scoring.tai]`, `[scoring.fan]` or "
        "`[scoring.fu]` table, and its value is what the item is worth in that variant; "
        "`-`: the variant does not have the item. *Read from* says whether the item is "
        "decided by the hand as a whole (flowers, how and when it was won) or by each "
        "reading of its tiles into groups, the counted reading's items being the result "
        "(§10.3). Results hold one `tai_<id>` and one `has_<id>` column per tai item "
        "([Parquet columns](columns.md)). How to add an item: "
        "[Add a tai item](../items.md).\n\n"
        "## tai items\n\nNingbo tai (§6), the tai a winner adds up:\n\n")
    text = section_links(text)
    text += item_table("tai", REG.TAI_ITEM_TABLE, shipped)
    text += section_links("## fan items\n\nNinghai fan (§8), capped at "
                          "`scoring.points.fan_cap`:\n\n")
    text += item_table("fan", REG.FAN_ITEM_TABLE, shipped)
    text += section_links("## fu items\n\nNinghai fu (§8), added up with the other "
                          "players' own fu for the points schemes:\n\n")
    text += item_table("fu", REG.FU_ITEM_TABLE, shipped)
    return text


with mkdocs_gen_files.open("reference/items.md", "w") as fh:
    fh.write(page())
