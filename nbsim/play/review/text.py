"""A review shown: the terminal text (``format_review``, no wider than
``stats.TEXT_WIDTH`` columns), JSON (``review_json``, read back by
``review_from_json``) and an offline HTML page (``write_review_html``: the
hand and the discards at each decision, the loss plotted along the deal,
the costliest decisions with the table; ``nbsim.analysis.html``).
Losses are points per deal for the seat."""
from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from nbsim.errors import RunError
from nbsim.play.advice.notation import SEATS
from nbsim.play.review.rate import Rating, rating_from_json, rating_json
from nbsim.play.review.record import parse_record, record_json
from nbsim.play.review.review import Review
from nbsim.stats import fill, text_table

__all__ = ["format_review", "review_json", "review_from_json", "write_review_html",
           "decisions_frame"]

SEAT_WORDS = {"E": "East", "S": "South", "W": "West", "N": "North"}


def _review(rv: Any) -> Review:
    if not isinstance(rv, Review):
        raise RunError(f"expected a Review (nbsim.review), got {type(rv).__name__}")
    return rv


def _at(r: Rating) -> str:
    st = r.state
    if r.kind == "claim":
        return f"{st['offered']} from {st['from']}"
    return f"drew {st['drawn']}" if "drawn" in st else "own turn"


def _interval(r: Rating) -> str:
    if r.made == r.best:
        return "the best"
    return f"{r.low:+.2f} .. {r.high:+.2f}" if r.deals else "exact"


def decisions_frame(rv: Review, table: bool = False) -> pl.DataFrame:
    """One row per rated decision: number, step (the record's play action),
    at (the tile drawn, or the discard offered and by whom), hand, move
    made, best, loss with its 95% interval (points per deal), flagged;
    ``table``: also the melds and each seat's discards then."""
    rows = []
    for r in _review(rv).ratings:
        row: dict[str, Any] = {"#": r.number, "step": r.step, "at": _at(r),
                               "hand": r.state["hand"], "made": r.made.label,
                               "best": r.best.label, "loss": f"{r.loss:.2f}",
                               "95% interval": _interval(r), "flag": "!" if r.flagged else ""}
        if table:
            melds = r.state.get("melds") or {}
            row["melds"] = "; ".join(f"{s} {' '.join(m)}" for s, m in melds.items())
            for s in SEATS:
                row[f"discards {s}"] = (r.state.get("discards") or {}).get(s, "")
        rows.append(row)
    if not rows:
        return pl.DataFrame(schema={"#": pl.Int64, "step": pl.Int64, "at": pl.String,
                                    "hand": pl.String, "made": pl.String, "best": pl.String,
                                    "loss": pl.String, "95% interval": pl.String,
                                    "flag": pl.String})
    return pl.DataFrame(rows)


def _summary(rv: Review) -> list[str]:
    rec = rv.record
    seat = SEATS[rec.seat]
    n = len(rv.ratings)
    same = sum(r.made == r.best for r in rv.ratings)
    loss, lo, hi = rv.total_loss
    lines = [f"review of {seat} ({SEAT_WORDS[seat]}) in {rv.variant}"
             + (f": {rec.source}" if rec.source else ""),
             f"{n} decisions rated ({rv.found} in the record; a decision with one legal move "
             f"or no tile left to draw is not rated); the best move played at {same} of {n}"
             + (f" ({same / n:.0%})" if n else "")]
    if n:
        lines.append(f"expected loss {loss:.2f} points per deal (95% interval {lo:.2f} .. "
                     f"{hi:.2f}); {len(rv.flagged)} decisions flagged (!: interval above 0)")
    prec = (f"at most {rv.samples} sampled deals per move" if rv.samples else "")
    if rv.budget:
        prec += (", " if prec else "") + f"{rv.budget:g} s per decision"
    lines.append(f"precision: {prec}, seed {rv.seed}, the rest of the deal played by "
                 f"{rv.base} (opponents model {rv.opponents}); {rv.seconds:.1f} s")
    if rec.pay is not None:
        lines.append("payments at the end: " + ", ".join(
            f"{s} {p:+d}" for s, p in zip(SEATS, rec.pay, strict=True)))
    if rv.unread:
        lines.append(f"not rated: {len(rv.unread)} decisions whose table the advice cannot "
                     f"read; the first: {rv.unread[0]}")
    if rv.interrupted:
        lines.append(f"interrupted: {n} decisions rated before Ctrl-C")
    return lines


def table_lines(r: Rating) -> list[str]:
    """The table at a decision, one line per piece: the hand (and the tile
    drawn or offered), melds, each seat's discards, flowers."""
    st = r.state
    out = [f"hand {st['hand']}" + (f", drew {st['drawn']}" if "drawn" in st else "")
           + (f", offered {st['offered']} by {st['from']}" if "offered" in st else "")
           + (f"; indicator {st['indicator']}" if "indicator" in st else "")]
    for s in SEATS:
        parts = []
        m = (st.get("melds") or {}).get(s)
        if m:
            parts.append("melds " + " ".join(m))
        d = (st.get("discards") or {}).get(s)
        parts.append(f"discards {d or '-'}")
        f = (st.get("flowers") or {}).get(s)
        if f:
            parts.append(f"flowers {f}")
        out.append(f"{s}: " + "; ".join(parts))
    return out


def format_review(rv: Review) -> str:
    """The review as text no wider than ``stats.TEXT_WIDTH`` columns: the
    summary (decisions, agreement with the best, the expected loss of the
    deal with its 95% interval, the precision), one row per decision and
    the costliest decisions with the table at that moment. Raises RunError
    for anything but a Review."""
    rv = _review(rv)
    lines = _summary(rv)
    if rv.ratings:
        lines += ["", text_table(decisions_frame(rv), keep=1)]
    costly = rv.costliest()
    if costly:
        lines += ["", "the costliest decisions:"]
        for r in costly:
            lines.append(f"#{r.number} (play action {r.step}): {r.made.label}, best "
                         f"{r.best.label}: loss {r.loss:.2f} points per deal"
                         + (f" (95% {r.low:.2f} .. {r.high:.2f})" if r.deals else "")
                         + (" !" if r.flagged else ""))
            lines += ["    " + x for x in table_lines(r)]
            if r.reason:
                lines.append("    " + r.reason)
    return fill("\n".join(lines), indent="    ")


def review_json(rv: Review) -> dict[str, Any]:
    """The review as a JSON object: the record (docs/guide/players.md's format),
    the settings, the summary and every rating (``rate.rating_json``);
    ``review_from_json`` reads it back."""
    rv = _review(rv)
    loss, lo, hi = rv.total_loss
    num = (lambda x: None if not math.isfinite(x) else x)    # noqa: E731
    return {"variant": rv.variant, "seat": SEATS[rv.record.seat],
            "record": record_json(rv.record), "found": rv.found, "rated": len(rv.ratings),
            "agreement": num(rv.agreement), "loss": loss, "loss_low": lo, "loss_high": hi,
            "flagged": [r.number for r in rv.flagged],
            "costliest": [r.number for r in rv.costliest()],
            "samples": rv.samples, "budget": rv.budget, "seed": rv.seed, "base": rv.base,
            "opponents": rv.opponents, "seconds": rv.seconds, "interrupted": rv.interrupted,
            "unread": list(rv.unread),
            "rules": rv.record.rules,
            "decisions": [rating_json(r) for r in rv.ratings]}


def review_from_json(data: dict[str, Any]) -> Review:
    """The Review of a ``review_json`` object (RunError when it is not
    one)."""
    try:
        rec = parse_record(data["record"])
        if data.get("rules") is not None:
            from dataclasses import replace
            rec = replace(rec, rules=data["rules"])
        return Review(rec, data["variant"], tuple(rating_from_json(d) for d in data["decisions"]),
                      int(data["found"]), data["samples"], data["budget"], int(data["seed"]),
                      data["base"], int(data["opponents"]), float(data["seconds"]),
                      bool(data["interrupted"]), tuple(data.get("unread") or ()))
    except (KeyError, TypeError, ValueError) as e:
        raise RunError(f"not a review's JSON (nbsim review --json): {e}") from None


def _plot(rv: Review, path: Path) -> Path:
    from nbsim.analysis.plots import save_figure, subplots
    rs = rv.ratings
    fig, ax = subplots(figsize=(max(6.0, 0.32 * len(rs) + 2.5), 3.6), dpi=110)
    xs = [r.number for r in rs]
    ys = [r.loss for r in rs]
    err = [[r.loss - r.low for r in rs], [r.high - r.loss for r in rs]]
    colors = ["tab:red" if r.flagged else ("tab:green" if r.made == r.best else "tab:blue")
              for r in rs]
    ax.bar(xs, ys, color=colors, alpha=0.85)
    ax.errorbar(xs, ys, yerr=err, fmt="none", color="black", capsize=3, linewidth=0.8)
    ax.axhline(0.0, color="#444", linewidth=0.8)
    ax.set_xlabel("decision (in the order of the deal)")
    ax.set_ylabel("expected loss (points per deal)")
    ax.set_title("loss of each move made against the best, 95% intervals (red: flagged; "
                 "green: the best move)", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    return save_figure(fig, path, f"{rv.variant}, seat {SEATS[rv.record.seat]}; "
                                  f"nbsim review, seed {rv.seed}")


def _facts(rv: Review, lines: list[str]) -> list[tuple[str, str]]:
    """The page's facts: the seat, the record, the summary lines."""
    seat = SEATS[rv.record.seat]
    facts = [("seat", f"{seat} ({SEAT_WORDS[seat]})"), ("variant", rv.variant),
             ("record", rv.record.source or "written by hand")]
    names = {"expected": "expected loss", "precision:": "precision", "payments": "payments",
             "interrupted:": "interrupted", "no": "decisions", "not": "not rated"}
    out = []
    for line in lines[1:]:
        name = names.get(line.split(" ")[0], "decisions")
        for lead in ("expected loss ", "precision: ", "payments at the end: ", "not rated: ",
                     "interrupted: "):
            line = line.removeprefix(lead)
        out.append((name, line))
    return facts + out


def write_review_html(rv: Review, path: str | Path) -> Path:
    """The review as one offline HTML page at ``path``: the summary, one
    row per decision with the hand and every seat's discards then, the
    loss of each decision plotted along the deal (an embedded PNG) and the
    costliest decisions with the table. Returns the path; RunError for a
    path that cannot be written."""
    from nbsim.analysis.html import render_page, section
    from nbsim.args import writable_file
    rv = _review(rv)
    path = writable_file(Path(path), "--html", error=RunError)
    lines = _summary(rv)
    if not rv.ratings:
        lines.insert(2, "no decision rated")
    sections = []
    with tempfile.TemporaryDirectory() as tmp:
        pngs = [_plot(rv, Path(tmp) / "loss_along_the_deal.png")] if rv.ratings else []
        sections.append(section("loss", "The loss along the deal", pngs=pngs,
                                note="" if pngs else "No decision was rated.",
                                caption="each decision's expected loss with its 95% interval"))
        sections.append(section("decisions", "Every decision", decisions_frame(rv, table=True),
                                note="at: the tile the seat drew, or the discard offered to "
                                     "it; loss: points per deal, the move made against the "
                                     "best on the same sampled deals."))
        for r in rv.costliest():
            df = pl.DataFrame({"table": table_lines(r)})
            sections.append(section(f"d{r.number}", f"Decision {r.number}: {r.made.label}, "
                                    f"best {r.best.label} (loss {r.loss:.2f})", df,
                                    note=r.reason))
        html = render_page(f"Review of {SEATS[rv.record.seat]} in {rv.variant}",
                           subtitle=rv.record.source, facts=_facts(rv, lines),
                           warnings=["interrupted: the review holds the decisions rated "
                                     "before Ctrl-C"] if rv.interrupted else [],
                           sections=sections)
    try:
        path.write_text(html, encoding="utf-8")
    except OSError as e:
        raise RunError(f"--html {str(path)!r}: cannot write ({e.strerror or e})") from None
    return path
