"""Self-contained HTML pages of reports, comparisons and sweeps (Jinja2).

One template (``nbsim/templates/page.html.j2``, package data) lays out a
page: a title, a list of facts (config, overrides, policies, seed, deals),
warnings, sections (a table of estimates with their intervals, a note, the
plots) and the configs as run. Plots are embedded as ``data:image/png``
URIs, so the page works offline and can be mailed as one file; nothing is
loaded from the network. Autoescaping is on: config text and labels are
shown as written, never interpreted as HTML.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from nbsim.stats import fmt

_ENV = None


def _env():
    global _ENV
    if _ENV is None:
        from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
        _ENV = Environment(loader=PackageLoader("nbsim", "templates"),
                           autoescape=select_autoescape(["html", "j2"]),
                           undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return _ENV


def data_uri(png: Path) -> str:
    """A PNG file as a ``data:image/png;base64,...`` URI."""
    return "data:image/png;base64," + base64.b64encode(Path(png).read_bytes()).decode("ascii")


def table_view(df: pl.DataFrame) -> dict:
    """{columns, rows}: a DataFrame's cells as text (``nbsim.stats.fmt``),
    each with a flag for right alignment (numbers)."""
    numeric = [dt.is_numeric() for dt in df.dtypes]
    rows = [[(fmt(v), num and v is not None) for v, num in zip(row, numeric, strict=False)]
            for row in df.iter_rows()]
    return {"columns": list(df.columns), "rows": rows}


@dataclass
class Section:
    """One section of a page: a title, an optional table, a note, plots."""
    id: str
    title: str
    table: dict | None = None
    note: str = ""
    images: list[dict] = field(default_factory=list)


def section(id_: str, title: str, df: pl.DataFrame | None = None, note: str = "",
            pngs=(), caption: str = "") -> Section:
    """A Section from a DataFrame and PNG files (embedded as data URIs)."""
    return Section(id=id_, title=title, table=None if df is None else table_view(df),
                   note=note, images=[{"uri": data_uri(p), "alt": Path(p).stem,
                                       "caption": caption} for p in pngs])


def config_view(manifest: dict, label: str) -> dict:
    """The config block of a page for one run: name, hash, source, overrides,
    policies, seed, mode, deals, and the config text and resolved rules."""
    import tomli_w

    cfg = manifest.get("config") or {}
    rules = manifest.get("rules")
    try:
        rules_text = tomli_w.dumps(rules) if isinstance(rules, dict) else ""
    except (TypeError, ValueError):
        rules_text = ""
    facts = [("config", cfg.get("name")), ("hash", cfg.get("hash")),
             ("overrides", ", ".join(manifest.get("overrides") or []) or "none"),
             ("policies", ", ".join(manifest.get("policies") or []) or "-"),
             ("seed", manifest.get("seed")), ("mode", manifest.get("mode")),
             ("deals", f"{manifest.get('deals_done') or 0:,} of {manifest.get('deals') or 0:,} "
                       f"{manifest.get('units', 'deals')} ({manifest.get('status')})"),
             ("nbsim", manifest.get("nbsim_version"))]
    return {"label": label, "facts": facts, "source": cfg.get("source") or "",
            "text": cfg.get("text") or "", "rules": rules_text}


def render_page(title: str, *, subtitle: str = "", facts=(), warnings=(), sections=(),
                configs=()) -> str:
    """The page as HTML text."""
    from nbsim.version import __version__
    return _env().get_template("page.html.j2").render(
        title=title, subtitle=subtitle, facts=list(facts), warnings=list(warnings),
        sections=list(sections), configs=list(configs), version=__version__)
