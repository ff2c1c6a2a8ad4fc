"""Helpers of the reference pages that docs/gen/*.py write at build time
(mkdocs-gen-files runs each script; mkdocs.yml lists them).

Every reference page is made from the code it describes, never copied by
hand: the scripts import nbsim and read its tables. This module holds what
they share: Markdown tables, TOML-like value texts, and links to the
sections of docs/rules.md.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from markdown.extensions.toc import slugify

DOCS = Path(__file__).resolve().parent.parent


def cell(text: object) -> str:
    """``text`` as one Markdown table cell: pipes escaped, lines joined."""
    return " ".join(str(text).split("\n")).replace("|", "\\|")


def table(header: list[str], rows: list[list[object]]) -> str:
    """A Markdown table (one line per row) followed by a blank line."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n\n"


def value_text(v: object) -> str:
    """A config value as it is written in TOML: ``true``, ``"3baida"``,
    ``["full_flush"]``, ``{E = ["1f", "5f"], ...}``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {value_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def rules_anchors() -> dict[str, str]:
    """Section number ("2", "10.3") -> the anchor of its heading in
    docs/rules.md, as the toc extension makes it."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"^#{2,3} (\d+(?:\.\d+)?)\.? (.+)$", text, re.M):
        out[m.group(1)] = slugify(f"{m.group(1)}{'.' if '.' not in m.group(1) else ''} "
                                  f"{m.group(2)}", "-")
    return out


def section_links(text: str, page: str = "../rules.md") -> str:
    """Every "§N" in ``text`` as a link to that section of docs/rules.md
    (relative to a page in docs/reference/). Raises KeyError for a section
    that does not exist, so a page cannot cite one."""
    anchors = rules_anchors()

    def link(m: re.Match) -> str:
        return f"[§{m.group(1)}]({page}#{anchors[m.group(1)]})"
    return re.sub(r"§(\d+(?:\.\d+)?)", link, text)


def generated_from(what: str) -> str:
    """The note that opens a generated page: where its content comes from."""
    return (f'!!! note "Generated"\n    This page is generated from {what} each time '
            f"the site is built (`make docs`); it cannot drift from the code.\n\n")
