"""reference/columns.md: every Parquet column of a run, with its dtype (from
``nbsim.run.schema``, the schema the shards are written with), its unit and
its meaning (from ``nbsim.run.columns``), for each mode and format."""
from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import generated_from, section_links, table  # noqa: E402

from nbsim.rules import ruleset as RS  # noqa: E402
from nbsim.run import columns as COL  # noqa: E402
from nbsim.run import schema as S  # noqa: E402

FAMILY = {"<item>": "one per item the variant lists", "<seat>": "one per seat",
          "<scheme>": "one per points scheme"}


def rows(mode: str, rules=None, skip: frozenset[str] = frozenset(),
         table_name: str = "deals") -> list[list[object]]:
    """One row per column, or per family of columns, of ``mode``'s schema
    (the columns in ``skip`` left out), in schema order."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for name, dtype in S.schema(mode, rules).items():
        if name not in skip:
            entry = COL.describe(name, table_name)
            groups.setdefault(entry.name, []).append((name, str(dtype)))
    out = []
    for key, cols in groups.items():
        entry = COL.describe(cols[0][0], table_name)
        dtypes = sorted({d for _, d in cols})
        if len(dtypes) != 1:
            raise TypeError(f"columns {key}: more than one dtype {dtypes}")
        if len(cols) == 1 and "<" not in key:
            shown = f"`{key}`"
        else:
            how = next(v for ph, v in FAMILY.items() if ph in key)
            listed = ", ".join(f"`{n}`" for n, _ in cols)
            shown = f"`{key}` ({len(cols)}, {how}: {listed})"
        out.append([shown, f"`{dtypes[0]}`", entry.unit or "-", entry.meaning])
    return out


def page() -> str:
    head = ["column", "dtype", "unit", "meaning"]
    tai = RS.load_rules("ningbo-3baida")
    fan = RS.load_rules("ninghai")
    deal_cols = frozenset(S.column_order("deal"))
    text = "# Parquet columns\n\n" + generated_from(
        "the run schema (`nbsim.run.schema`: names and dtypes) and the column "
        "descriptions (`nbsim.run.columns`: units and meanings)")
    text += section_links(
        "A run folder holds Parquet shards (`shard-*.parquet`, one row per deal) and "
        "`manifest.json`, which records the schema; read them with polars "
        "(`pl.scan_parquet(\"runs/g/shard-*.parquet\")`, [Analysts](../guide/analysts.md)). "
        "Seats are named by seat wind with the dealer East, as suffixes `_e _s _w _n`; "
        "tiles are written in the notation of §1. Units: tai (§6), fan and fu (§8), "
        "points (what players pay each other, §7, §8).\n\n")
    text += f"## Deal mode\n\n`--mode deal`: {len(deal_cols)} columns.\n\n"
    text += table(head, rows("deal"))
    n_tai = len(S.column_order("game", tai))
    text += (f"## Game mode\n\n`--mode game`: the deal-mode columns, then these "
             f"({n_tai} columns in all for ningbo-3baida). The scoring columns depend on "
             "the variant's scoring system.\n\n### Tai variants (Ningbo)\n\n"
             "Item columns: one `tai_<item>` and one `has_<item>` per item of the "
             "variant's `[scoring.tai]` ([items](items.md#tai-items)); shown for "
             "ningbo-3baida.\n\n")
    text += table(head, rows("game", tai, deal_cols))
    text += ("### Fan and fu variants (Ninghai)\n\nThe columns from `fan` to `fu_<seat>` "
             "take the place of the tai columns; shown for ninghai "
             f"({len(S.column_order('game', fan))} columns in all).\n\n")
    game_tai = frozenset(S.column_order("game", tai))
    shared = game_tai & frozenset(S.column_order("game", fan))
    text += table(head, rows("game", fan, deal_cols | shared))
    text += ("## Matches\n\n`--format matches`: the game-mode columns of every deal, "
             "`deal` counting within its match, and these. The match totals "
             "(`matches-*.parquet`) hold `match`, `player`, `policy` and `total`: each "
             "player's points over the match.\n\n")
    text += table(head, rows("match", tai, game_tai))
    text += ("## Events\n\n`--events`: `events-*.parquet`, one row per action of every "
             "deal, in order (what `nbsim replay` prints).\n\n")
    text += table(head, rows("events", table_name="events"))
    return text


with mkdocs_gen_files.open("reference/columns.md", "w") as fh:
    fh.write(page())
