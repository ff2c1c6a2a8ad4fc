"""reference/config.md: every key of a variant config, from the config
schema (the pydantic models of nbsim.rules.ruleset): its type and allowed
values, its default, what it means and the section of docs/rules.md it
implements (the field's description), and its value in each shipped
config."""
from __future__ import annotations

import sys
import typing
from pathlib import Path

import mkdocs_gen_files
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import generated_from, section_links, table, value_text  # noqa: E402

from nbsim.kernels import codes as C  # noqa: E402
from nbsim.rules import ruleset as RS  # noqa: E402


def type_text(annotation, metadata) -> str:
    """The allowed values of a field, in words: "whole number 0 .. 100",
    "true or false", one of the quoted texts, a list or table of them."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is bool:
        return "true or false"
    if annotation is int:
        lo = next((m.ge for m in metadata if hasattr(m, "ge")), None)
        hi = next((m.le for m in metadata if hasattr(m, "le")), None)
        return f"whole number {lo} .. {hi:,}" if lo is not None and hi is not None \
            else "whole number"
    if annotation is str:
        return "text"
    if origin is typing.Literal:
        return "one of " + ", ".join(value_text(a) for a in args)
    if origin is list:
        return f"list, each {type_text(args[0], [])}"
    if origin is dict:
        return f"table: key {type_text(args[0], [])}; value {type_text(args[1], [])}"
    raise TypeError(f"no text for the type {annotation!r}")


ITEMS = {"tai": C.TAI_ITEMS, "fan": C.FAN_ITEMS, "fu": C.FU_ITEMS}


def item_row(key: str, table: str, description: str) -> list[object]:
    """The row of an item table (``scoring.tai``, ...): one key per item."""
    return [f"`{key}.<item>`", f"whole number 0 .. {RS.ITEM_MAX[table]:,}", "absent",
            f"{section_links(description)}; {len(ITEMS[table])} items: "
            f"[{table} items](items.md#{table}-items)", "see the items page"]


def rows(model: type[BaseModel], prefix: str, shipped: dict) -> list[list[object]]:
    """One row per key of ``model`` (tables of it recursively, after its own
    keys); raises ValueError for a key without a description."""
    out, sub = [], []
    for name, f in model.model_fields.items():
        key = f"{prefix}{name}"
        ann = f.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            sub.append((ann, f"{key}."))
            continue
        if not f.description:
            raise ValueError(f"config key {key}: no description in nbsim/rules/ruleset.py "
                             f"(Field(description=...))")
        if prefix == "scoring." and name in RS.ITEM_MAX:
            out.append(item_row(key, name, f.description))
            continue
        default = "(required)" if f.is_required() else \
            f"`{value_text(f.get_default(call_default_factory=True))}`"
        values = []
        for rs in shipped.values():
            node = rs.to_dict()
            for part in key.split("."):
                node = node[part]
            values.append(value_text(node))
        if key in ("name", "description", "sources"):
            shown = "each its own"
        elif len(set(values)) == 1:
            shown = f"`{values[0]}` in all"
        else:                   # the most common value, then the configs that differ
            most = max(values, key=values.count)
            shown = f"`{most}` but " + ", ".join(
                f"{n.removeprefix('ningbo-')}: `{v}`"
                for n, v in zip(shipped, values, strict=True) if v != most)
        out.append([f"`{key}`", type_text(ann, f.metadata), default,
                    section_links(f.description), shown])
    for model_, p in sub:
        out += rows(model_, p, shipped)
    return out


def page() -> str:
    shipped = {name: RS.load_rules(name) for name in RS.shipped_configs()}
    head = ["key", "allowed values", "default", "meaning and rule", "shipped configs"]
    text = "# Config keys\n\n" + generated_from(
        "the config schema, the pydantic models of `nbsim.rules.ruleset` (types, ranges, "
        "defaults and descriptions) and the shipped configs")
    text += (
        "A variant is a TOML file of these keys (or a shipped name); every key not given "
        "takes its default, and `nbsim rules CONFIG` prints them all resolved. "
        "`--set table.key=value` changes one for one run, validated the same way: an "
        "unknown key, a wrong type or a value out of range is refused with one message "
        "naming the file, the key and what is allowed. A config may start from another "
        f"with `{RS.EXTENDS} = \"NAME-OR-PATH\"` ([your own variant](../variants.md)). "
        "Shipped configs: " + ", ".join(f"`{n}`" for n in shipped) + ".\n\n")
    text += table(head, rows(RS.RuleConfig, "", shipped))
    return text


with mkdocs_gen_files.open("reference/config.md", "w") as fh:
    fh.write(page())
