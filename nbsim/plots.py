"""PNG plots of the report tables (matplotlib, Agg backend). Each function
draws from one ``nbsim.report.Table`` only, never from the raw shards."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SEATS = ("E", "S", "W", "N")


def _seat_bars(table, label: str, xlabel: str, path: Path) -> Path:
    """Grouped bars: fraction of deals by value, one bar per seat."""
    df = table.df
    xs = df[label].to_list()
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
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
    plt.close(fig)
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
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
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
    plt.close(fig)
    return out / "heavenly_by_wilds.png"


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
    return files
