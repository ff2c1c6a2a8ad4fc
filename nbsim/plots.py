"""PNG plots of the report tables (matplotlib). Each function
draws from ``nbsim.report.Table`` objects only, never from the raw shards.

Deal mode: heavenly_by_wilds.png, wilds_per_seat.png, flowers_per_seat.png.
Game mode (``GAME_PLOT_FILES``): outcomes.png, tai_distribution.png (Ninghai:
fan_distribution.png), tai_items.png (tai variants), payments.png; every
estimate is drawn with its 95% interval from the table."""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

SEATS = ("E", "S", "W", "N")
GAME_PLOT_FILES = ("outcomes.png", "tai_distribution.png", "fan_distribution.png",
                   "tai_items.png", "payments.png")


def _subplots(nrows: int = 1, ncols: int = 1, **kw):
    """A Figure and its axes without pyplot: no global backend is switched
    (a notebook that calls nbsim keeps its inline plots), thread-safe, and
    savefig renders with Agg."""
    fig = Figure(figsize=kw.pop("figsize", None), dpi=kw.pop("dpi", None))
    return fig, fig.subplots(nrows, ncols, **kw)


def _seat_bars(table, label: str, xlabel: str, path: Path) -> Path:
    """Grouped bars: fraction of deals by value, one bar per seat."""
    df = table.df
    xs = df[label].to_list()
    fig, ax = _subplots(figsize=(7, 4), dpi=110)
    width = 0.8 / len(SEATS)
    for i, seat in enumerate(SEATS):
        ax.bar([x + (i - 1.5) * width for x in xs], df[seat].to_list(), width, label=seat)
    ax.set_xticks(xs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of deals")
    ax.set_title(table.title)
    ax.legend(title="seat")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    return path


def plot_wilds_per_seat(table, out: Path) -> Path:
    """wilds_per_seat.png from the ``wilds_per_seat`` table."""
    return _seat_bars(table, "wilds", "wilds held after the deal", out / "wilds_per_seat.png")


def plot_flowers_per_seat(table, out: Path) -> Path:
    """flowers_per_seat.png from the ``flowers_per_seat`` table."""
    return _seat_bars(table, "flowers", "flowers set aside", out / "flowers_per_seat.png")


def plot_heavenly_by_wilds(table, overall, out: Path) -> Path:
    """heavenly_by_wilds.png: P(dealer complete | dealer wilds) with 95% Wilson
    intervals (log scale), and the overall probability as a line."""
    df = table.df
    fig, ax = _subplots(figsize=(7, 4), dpi=110)
    for w, p, lo, hi, k in zip(df["dealer_wilds"], df["p"], df["ci_low"], df["ci_high"],
                               df["complete"]):
        if k == 0:       # nothing to show on a log scale: mark the upper bound
            ax.plot([w], [hi], marker="v", color="tab:gray")
            continue
        ax.errorbar([w], [p], yerr=[[p - lo], [hi - p]], fmt="o", color="tab:blue", capsize=4)
    o = overall.df.row(0, named=True)
    if o["complete"] > 0:
        ax.axhline(o["p"], color="tab:red", lw=1, ls="--", label=f"all deals: {o['p']:.3e}")
        ax.legend()
    ax.set_yscale("log")
    ax.set_xticks(df["dealer_wilds"].to_list())
    ax.set_xlabel("wilds held by the dealer")
    ax.set_ylabel("P(heavenly hand)")
    ax.set_title(table.title + " (95% Wilson CI; ▼ = upper bound, none seen)", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(out / "heavenly_by_wilds.png")
    return out / "heavenly_by_wilds.png"


def _yerr(df, est: str = "p", lo: str = "ci_low", hi: str = "ci_high"):
    """Asymmetric error bars [est - lo, hi - est] (0 where an end is missing)."""
    e, lows, h = df[est].to_list(), df[lo].to_list(), df[hi].to_list()
    return [[max(0.0, a - b) if b is not None else 0.0 for a, b in zip(e, lows)],
            [max(0.0, b - a) if b is not None else 0.0 for a, b in zip(e, h)]]


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path)
    return path


def plot_outcomes(table, out: Path) -> Path:
    """outcomes.png: P(outcome) over deals with 95% Wilson intervals, from the
    ``outcomes`` table (the self-drawn share of wins is given in the title)."""
    import polars as pl
    df = table.df.filter(pl.col("of") == "deals")
    share = table.df.filter(pl.col("of") == "wins").row(0, named=True)
    fig, ax = _subplots(figsize=(7, 4), dpi=110)
    xs = list(range(df.height))
    ax.bar(xs, df["p"].to_list(), color="tab:blue", alpha=0.8)
    ax.errorbar(xs, df["p"].to_list(), yerr=_yerr(df), fmt="none", color="black", capsize=4)
    for x, p in zip(xs, df["p"].to_list()):
        ax.annotate(f"{p:.3f}", (x, p), textcoords="offset points", xytext=(0, 4),
                    ha="center", fontsize=8)
    ax.set_xticks(xs)
    ax.set_xticklabels(df["event"].to_list(), rotation=15, fontsize=8)
    ax.set_ylabel("fraction of deals")
    ax.set_ylim(0, min(1.05, max(df["ci_high"].to_list() + [0.05]) * 1.15))
    ax.set_title(f"{table.title} (95% Wilson CI); self-drawn share of wins "
                 f"{share['p']:.3f}", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out / "outcomes.png")


def plot_distribution(table, out: Path) -> Path:
    """tai_distribution.png (fan_distribution.png): P(value = k | win) as bars
    and P(value >= k | win) as a line, both with 95% Wilson intervals."""
    df = table.df
    col = df.columns[0]
    fig, ax = _subplots(figsize=(7, 4), dpi=110)
    xs = df[col].to_list()
    ax.bar(xs, df["p"].to_list(), color="tab:blue", alpha=0.8, label=f"P({col} = k)")
    ax.errorbar(xs, df["p"].to_list(), yerr=_yerr(df), fmt="none", color="black", capsize=3)
    ax.errorbar(xs, df["p_at_least"].to_list(),
                yerr=_yerr(df, "p_at_least", "ge_ci_low", "ge_ci_high"), fmt="o-",
                color="tab:red", capsize=3, ms=3, lw=1, label=f"P({col} >= k)")
    ax.set_xticks(xs)
    ax.set_xlabel(f"{col} (k)")
    ax.set_ylabel("probability given a win")
    ax.set_ylim(0, 1.05)
    ax.set_title(table.title + " (95% Wilson CI)", fontsize=9)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out / f"{table.name}.png")


def plot_tai_items(table, out: Path) -> Path:
    """tai_items.png: P(item applies | win) with 95% Wilson intervals, most
    frequent at the top (items worth 0 tai have no frequency and are left out)."""
    df = table.df.drop_nulls("p").filter(~table.df.drop_nulls("p")["p"].is_nan())
    fig, ax = _subplots(figsize=(7, 0.6 + 0.28 * max(df.height, 1)), dpi=110)
    ys = list(range(df.height))[::-1]
    ax.barh(ys, df["p"].to_list(), color="tab:green", alpha=0.8)
    ax.errorbar(df["p"].to_list(), ys, xerr=_yerr(df), fmt="none", color="black", capsize=2)
    ax.set_yticks(ys)
    ax.set_yticklabels(df["item"].to_list(), fontsize=8)
    ax.set_xlabel("P(item applies | win)")
    ax.set_xlim(0, 1.0)
    ax.set_title(table.title + " (95% Wilson CI)", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, out / "tai_items.png")


def plot_payments(per_seat, by_policy, out: Path) -> Path:
    """payments.png: mean net points per deal by seat (E = dealer) and, when
    the run mixes policies, per seat-deal by policy; 95% t intervals."""
    panels = [(per_seat.df, "seat", "mean", "by seat (E = dealer)")]
    if by_policy is not None and by_policy.df.height > 1:
        panels.append((by_policy.df, "policy", "mean_pay", "by policy (per seat)"))
    fig, axes = _subplots(1, len(panels), figsize=(4.5 * len(panels), 4), dpi=110,
                             squeeze=False)
    for ax, (df, label, est, title) in zip(axes[0], panels):
        xs = list(range(df.height))
        vals = df[est].to_list()
        ax.bar(xs, vals, color=["tab:red" if v < 0 else "tab:blue" for v in vals], alpha=0.8)
        ax.errorbar(xs, vals, yerr=_yerr(df, est), fmt="none", color="black", capsize=4)
        ax.axhline(0, color="gray", lw=0.8)
        ax.set_xticks(xs)
        ax.set_xticklabels(df[label].to_list())
        ax.set_ylabel("mean net points per deal")
        ax.set_title(title, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Payments (95% t intervals)", fontsize=10)
    return _save(fig, out / "payments.png")


def plot_comparison(stats, labels: list[str], path: Path) -> Path:
    """compare.png: one panel per statistic, each run's estimate with its 95%
    interval (``stats``: the long table of ``nbsim.comparison.Comparison``)."""
    import polars as pl
    keys = list(dict.fromkeys(stats["key"].to_list()))
    ncol = min(3, max(1, len(keys)))
    nrow = max(1, math.ceil(len(keys) / ncol))
    fig, axes = _subplots(nrow, ncol, figsize=(4.2 * ncol, 2.9 * nrow), dpi=110,
                             squeeze=False)
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, key in zip(axes.flat, keys):
        df = stats.filter(pl.col("key") == key)
        for i, lab in enumerate(labels):
            r = df.filter(pl.col("run") == lab)
            if not r.height:
                continue
            est, lo, hi = r.select("estimate", "ci_low", "ci_high").row(0)
            if est is None or math.isnan(est):
                continue
            err = [[max(0.0, est - lo) if lo == lo else 0.0],
                   [max(0.0, hi - est) if hi == hi else 0.0]]
            ax.errorbar([i], [est], yerr=err, fmt="o", capsize=4, color=colors[i % len(colors)])
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels([str(i + 1) for i in range(len(labels))])
        ax.set_xlim(-0.5, len(labels) - 0.5)
        ax.set_title(df["statistic"][0], fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    legend = "; ".join(f"{i + 1} = {lab}" for i, lab in enumerate(labels))
    fig.suptitle("Runs compared (95% intervals): " + legend, fontsize=8, wrap=True)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path)
    return path


def draw_all(tables: dict, out: Path) -> list[Path]:
    """Draw every plot whose tables are present; returns the files written."""
    out = Path(out)
    files = []
    if "heavenly_by_wilds" in tables and "heavenly" in tables:
        files.append(plot_heavenly_by_wilds(tables["heavenly_by_wilds"], tables["heavenly"], out))
    if "wilds_per_seat" in tables:
        files.append(plot_wilds_per_seat(tables["wilds_per_seat"], out))
    if "flowers_per_seat" in tables:
        files.append(plot_flowers_per_seat(tables["flowers_per_seat"], out))
    if "outcomes" in tables:
        files.append(plot_outcomes(tables["outcomes"], out))
    for name in ("tai_distribution", "fan_distribution"):
        if name in tables and tables[name].df.height:
            files.append(plot_distribution(tables[name], out))
    if "tai_items" in tables and tables["tai_items"].df["p"].drop_nulls().drop_nans().len():
        files.append(plot_tai_items(tables["tai_items"], out))
    if "pay_per_seat" in tables:
        files.append(plot_payments(tables["pay_per_seat"], tables.get("pay_by_policy"), out))
    return files
