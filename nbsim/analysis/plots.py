"""PNG plots of the report, comparison and sweep tables (matplotlib). Each
function draws from tables only, never from the raw shards.

Deal mode: heavenly_by_wilds.png, wilds_per_seat.png, flowers_per_seat.png.
Game mode (``nbsim.run.files.GAME_PLOT_FILES``): outcomes.png, tai_distribution.png (Ninghai:
fan_distribution.png), tai_items.png (tai variants), payments.png.
Comparisons: compare.png (estimates per run), compare_diff.png (differences
against the first run, "paired" or "independent" beside each interval), one
panel per statistic and unit.
Sweeps: sweep.png (each statistic against the swept value).
Tune studies: tune.png (every trial against each target and varied key).

Rules every figure follows:
- every estimate is drawn with its 95% interval from the table;
- a caption names what produced the figure (variant, overrides, policies,
  seed, deals), taken from the run manifests;
- counts that span orders of magnitude (wilds and flowers held) use a log
  scale; value labels sit above the interval, never on it;
- estimate axes start at zero (rates and means of counts), so a small
  difference looks small; differences are drawn on their own axes around
  a zero line, with their intervals;
- one axis holds one unit: a statistic in tai for some runs and in points
  for others gets a panel per unit;
- runs are named by their labels under their points, never numbered;
- every text stays inside the figure (``fit_texts`` wraps titles, the
  caption and category labels to their room, measured by drawing).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

SEATS = ("E", "S", "W", "N")
COMPARE_PLOT_FILES = ("compare.png", "compare_diff.png")
LOG_SPAN = 100          # use a log scale when the largest bar is this many times the smallest
_CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans SC", "WenQuanYi Micro Hei",
                 "WenQuanYi Zen Hei", "Droid Sans Fallback", "SimHei", "Microsoft YaHei",
                 "PingFang SC", "Hiragino Sans GB", "Source Han Sans SC")
_cjk: str | None | bool = False       # False = not looked up yet


def cjk_font() -> str | None:
    """A font family with Chinese glyphs known to matplotlib, or None (then
    plots show item ids only: Chinese names would render as empty boxes)."""
    global _cjk
    if _cjk is False:
        from matplotlib import font_manager
        names = {f.name for f in font_manager.fontManager.ttflist}
        _cjk = next((f for f in _CJK_FAMILIES if f in names), None)
    return _cjk if isinstance(_cjk, str) else None


_CJK_PAREN = re.compile(r"\s*\([^()]*[\u3400-\u9fff][^()]*\)")
_CJK_CHARS = re.compile(r"[\u3400-\u9fff]+\s?")


def plain(text: str) -> str:
    """``text`` for a plot: unchanged with a Chinese font, else without its
    Chinese words (a parenthesis holding them is dropped), which would
    render as empty boxes."""
    if cjk_font() or not text:
        return text
    return _CJK_CHARS.sub("", _CJK_PAREN.sub("", text)).strip()


def item_label(item: str, chinese: str | None) -> str:
    """'清一色 full_flush' when a Chinese font is available, else the id."""
    return f"{chinese} {item}" if chinese and cjk_font() else item


def subplots(nrows: int = 1, ncols: int = 1, **kw):
    """A Figure and its axes without pyplot: no global backend is switched
    (a notebook that calls nbsim keeps its inline plots), thread-safe, and
    savefig renders with Agg."""
    fig = Figure(figsize=kw.pop("figsize", None), dpi=kw.pop("dpi", None), layout="constrained")
    font = cjk_font()
    if font:
        matplotlib.rcParams["font.sans-serif"] = [font, *matplotlib.rcParams["font.sans-serif"]]
    return fig, fig.subplots(nrows, ncols, **kw)


def save_figure(fig, path: Path, caption: str | None = None) -> Path:
    """The caption (what produced the figure) under the axes, every text
    fitted inside the figure (``fit_texts``), then save (the figure's
    constrained layout places everything)."""
    caption = plain(caption) if caption else caption
    if caption:       # below the axes: the constrained layout keeps the bottom free
        fig.text(0.01, 0.01, caption, fontsize=7, color="#444", ha="left", va="bottom",
                 gid=_CAPTION)
    fit_texts(fig)
    fig.savefig(path)
    return path


_CAPTION = "nbsim-caption"
_SLACK_PX = 2.0          # rounding of the measured extents


_BREAKS = re.compile(r"(?<=[\s.,_/:;-])")      # a line may end after these


def _rewrap(original: str, chars: int) -> str:
    """``original`` wrapped to ``chars`` characters a line, its own line
    breaks kept: lines end after a space or punctuation ('.', '_', '=',
    ',', '-', ...), so option names break between their parts; a part
    longer than a line is split."""
    chars = max(4, chars)
    out = []
    for line in original.split("\n"):
        cur = ""
        for part in _BREAKS.split(line):
            while len(part) > chars:
                if cur.strip():
                    out.append(cur.rstrip())
                    cur = ""
                out.append(part[:chars])
                part = part[chars:]
            if cur and len((cur + part).rstrip()) > chars:
                out.append(cur.rstrip())
                cur = part.lstrip()
            else:
                cur += part
        out.append(cur.rstrip())
    return "\n".join(out)


def _longest(text: str) -> int:
    return max((len(line) for line in text.split("\n")), default=1) or 1


def _fixed_ticks(ax) -> bool:
    from matplotlib.ticker import FixedLocator
    return isinstance(ax.xaxis.get_major_locator(), FixedLocator)


def fit_texts(fig, rounds: int = 6) -> None:
    """Wrap the texts of ``fig`` until each fits its room, measured by
    drawing the figure (Agg renderer): the suptitle and the caption within
    the figure's width, each axes title within its axes' width, and the
    labels of fixed x ticks (category names) within the space between two
    ticks. The caption's band under the axes is sized to its wrapped height.
    Changes the texts in place; returns None."""
    from matplotlib.axes import Axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    renderer = FigureCanvasAgg(fig).get_renderer()
    texts: list[tuple[Text, Axes | None]] = []      # (text, its axes; None: the figure's)
    if fig._suptitle is not None:        # matplotlib has no public getter of the artist
        texts.append((fig._suptitle, None))
    caption = next((t for t in fig.texts if t.get_gid() == _CAPTION), None)
    if caption is not None:
        texts.append((caption, None))
    texts += [(ax.title, ax) for ax in fig.axes if ax.axison and ax.title.get_text()]
    originals = {id(t): t.get_text() for t, _ in texts}
    ticks = {id(ax): [t.get_text() for t in ax.get_xticklabels()]
             for ax in fig.axes if ax.axison and _fixed_ticks(ax)}
    for _ in range(rounds):
        if caption is not None:          # the band under the axes holds the caption
            h = caption.get_window_extent(renderer).y1 + 6
            fig.get_layout_engine().set(rect=(0, h / fig.bbox.height, 1,
                                              1 - h / fig.bbox.height))
        fig.draw(renderer)
        changed = False
        for text, axes in texts:
            width = text.get_window_extent(renderer).width
            limit = (0.96 * fig.bbox.width if axes is None
                     else axes.get_window_extent(renderer).width)
            if width > limit + _SLACK_PX:
                chars = int(_longest(text.get_text()) * limit / width) - 1
                text.set_text(_rewrap(originals[id(text)], chars))
                changed = True
        for ax in fig.axes:
            labels = [t for t in ax.get_xticklabels() if t.get_text()]
            if id(ax) not in ticks or len(labels) < 2:
                continue
            room = ax.get_window_extent(renderer).width / len(labels) * 0.94
            widest = max(labels, key=lambda t: t.get_window_extent(renderer).width)
            width = widest.get_window_extent(renderer).width
            if width > room + _SLACK_PX:
                chars = int(_longest(widest.get_text()) * room / width) - 1
                ax.set_xticklabels([_rewrap(o, chars) for o in ticks[id(ax)]])
                changed = True
        if not changed:
            return


def needs_log(values) -> bool:
    """True when the positive values span LOG_SPAN or more (a linear axis
    would flatten the rare bins to nothing)."""
    pos = [v for v in values if v is not None and v > 0]
    return bool(pos) and max(pos) / min(pos) >= LOG_SPAN


def _seat_bars(table, label: str, xlabel: str, path: Path, caption: str | None) -> Path:
    """Grouped bars: fraction of deals by value, one bar per seat; log scale
    when the fractions span LOG_SPAN or more (rare counts stay visible)."""
    df = table.df
    xs = df[label].to_list()
    fig, ax = subplots(figsize=(7, 4), dpi=110)
    width = 0.8 / len(SEATS)
    values = [v for seat in SEATS for v in df[seat].to_list()]
    for i, seat in enumerate(SEATS):
        ax.bar([x + (i - 1.5) * width for x in xs], df[seat].to_list(), width, label=seat)
    log = needs_log(values)
    if log:
        ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of deals" + (" (log scale)" if log else ""))
    ax.set_title(plain(table.title))
    ax.legend(title="seat")
    ax.grid(axis="y", alpha=0.3, which="both" if log else "major")
    return save_figure(fig, path, caption)


def plot_wilds_per_seat(table, out: Path, caption: str | None = None) -> Path:
    """wilds_per_seat.png from the ``wilds_per_seat`` table."""
    return _seat_bars(table, "wilds", "wilds held after the deal", out / "wilds_per_seat.png",
                      caption)


def plot_flowers_per_seat(table, out: Path, caption: str | None = None) -> Path:
    """flowers_per_seat.png from the ``flowers_per_seat`` table."""
    return _seat_bars(table, "flowers", "flowers set aside", out / "flowers_per_seat.png",
                      caption)


def plot_heavenly_by_wilds(table, overall, out: Path, caption: str | None = None) -> Path:
    """heavenly_by_wilds.png: P(dealer complete | dealer wilds) with 95% Wilson
    intervals (log scale), and the overall probability as a line."""
    df = table.df
    fig, ax = subplots(figsize=(7, 4), dpi=110)
    for w, p, lo, hi, k in zip(df["dealer_wilds"], df["p"], df["ci_low"], df["ci_high"],
                               df["complete"], strict=False):
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
    ax.set_ylabel("P(heavenly hand) (log scale)")
    ax.set_title(plain(table.title) + " (95% Wilson CI; ▼ = upper bound, none seen)", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    return save_figure(fig, out / "heavenly_by_wilds.png", caption)


def _yerr(df, est: str = "p", lo: str = "ci_low", hi: str = "ci_high"):
    """Asymmetric error bars [est - lo, hi - est] (0 where an end is missing)."""
    e, lows, h = df[est].to_list(), df[lo].to_list(), df[hi].to_list()
    return [[max(0.0, a - b) if b is not None and a is not None else 0.0
             for a, b in zip(e, lows, strict=False)],
            [max(0.0, b - a) if b is not None and a is not None else 0.0
             for a, b in zip(e, h, strict=False)]]


def _label_above(ax, xs, tops, texts, fontsize=8):
    """Value labels placed above the top of each interval (never on it)."""
    for x, top, text in zip(xs, tops, texts, strict=False):
        ax.annotate(text, (x, top), textcoords="offset points", xytext=(0, 3), ha="center",
                    va="bottom", fontsize=fontsize)


def plot_outcomes(table, out: Path, caption: str | None = None) -> Path:
    """outcomes.png: P(outcome) over deals with 95% Wilson intervals, from the
    ``outcomes`` table (the self-drawn share of wins is given in the title)."""
    import polars as pl
    df = table.df.filter(pl.col("of") == "deals")
    share = table.df.filter(pl.col("of") == "wins").row(0, named=True)
    fig, ax = subplots(figsize=(7, 4), dpi=110)
    xs = list(range(df.height))
    ps = df["p"].to_list()
    ax.bar(xs, ps, color="tab:blue", alpha=0.8)
    ax.errorbar(xs, ps, yerr=_yerr(df), fmt="none", color="black", capsize=4)
    highs = [h if h == h else p for p, h in zip(ps, df["ci_high"].to_list(), strict=False)]
    _label_above(ax, xs, highs, [f"{p:.3f}" for p in ps])
    ax.set_xticks(xs)
    ax.set_xticklabels(df["event"].to_list(), rotation=15, fontsize=8)
    ax.set_ylabel("fraction of deals")
    ax.set_ylim(0, min(1.08, max(highs + [0.05]) * 1.2))
    ax.set_title(f"{plain(table.title)} (95% Wilson CI); self-drawn share of wins "
                 f"{share['p']:.3f}", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    return save_figure(fig, out / "outcomes.png", caption)


def plot_distribution(table, out: Path, caption: str | None = None) -> Path:
    """tai_distribution.png (fan_distribution.png): P(value = k | win) as bars
    and P(value >= k | win) as a line, both with 95% Wilson intervals."""
    df = table.df
    col = df.columns[0]
    fig, ax = subplots(figsize=(7, 4), dpi=110)
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
    ax.set_title(plain(table.title) + " (95% Wilson CI)", fontsize=9)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return save_figure(fig, out / f"{table.name}.png", caption)


def plot_tai_items(table, out: Path, caption: str | None = None) -> Path:
    """tai_items.png: P(item applies | win) with 95% Wilson intervals, most
    frequent at the top (items worth 0 tai have no frequency and are left out)."""
    df = table.df.drop_nulls("p")
    df = df.filter(~df["p"].is_nan())
    fig, ax = subplots(figsize=(7, 0.9 + 0.28 * max(df.height, 1)), dpi=110)
    ys = list(range(df.height))[::-1]
    ax.barh(ys, df["p"].to_list(), color="tab:green", alpha=0.8)
    ax.errorbar(df["p"].to_list(), ys, xerr=_yerr(df), fmt="none", color="black", capsize=2)
    ax.set_yticks(ys)
    chinese = df["chinese"].to_list() if "chinese" in df.columns else [None] * df.height
    labels = [item_label(i, c) for i, c in zip(df["item"].to_list(), chinese, strict=True)]
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel("P(item applies | win)")
    ax.set_xlim(0, 1.0)
    ax.set_title(plain(table.title) + " (95% Wilson CI)", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return save_figure(fig, out / "tai_items.png", caption)


def plot_payments(per_seat, by_policy, out: Path, caption: str | None = None) -> Path:
    """payments.png: mean net points per deal by seat (E = dealer) and, when
    the run mixes policies, per seat-deal by policy; 95% t intervals."""
    panels = [(per_seat.df, "seat", "mean", "by seat (E = dealer)")]
    if by_policy is not None and by_policy.df.height > 1:
        panels.append((by_policy.df, "policy", "mean_pay", "by policy (per seat)"))
    fig, axes = subplots(1, len(panels), figsize=(4.5 * len(panels), 4.2), dpi=110,
                          squeeze=False)
    for ax, (df, label, est, title) in zip(axes[0], panels, strict=False):
        xs = list(range(df.height))
        vals = df[est].to_list()
        ax.bar(xs, vals, color=["tab:red" if v < 0 else "tab:blue" for v in vals], alpha=0.8)
        ax.errorbar(xs, vals, yerr=_yerr(df, est), fmt="none", color="black", capsize=4)
        ax.axhline(0, color="gray", lw=0.8)
        ax.set_xticks(xs)
        ax.set_xticklabels(df[label].to_list())
        ax.set_ylabel("mean net points per deal")
        ax.set_title(plain(title), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Payments (95% t intervals)", fontsize=10)
    return save_figure(fig, out / "payments.png", caption)


# ------------------------------------------------------------------ comparisons
def _panels(n: int, height: float):
    """A figure with n panels, three per row (unused ones switched off)."""
    ncol = min(3, max(1, n))
    nrow = max(1, math.ceil(n / ncol))
    fig, axes = subplots(nrow, ncol, figsize=(4.4 * ncol, height * nrow + 0.4), dpi=110,
                          squeeze=False)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    return fig, axes


def _zero_based_ylim(ax, lows, highs):
    """y range that includes 0 and every interval, with headroom."""
    lo = min([0.0] + [v for v in lows if v == v])
    hi = max([0.0] + [v for v in highs if v == v])
    pad = (hi - lo) * 0.12 or 1.0
    ax.set_ylim(lo - (pad if lo < 0 else 0), hi + pad)


def _interval(est, lo, hi):
    """(est, lo, hi) with a missing end replaced by the estimate; None
    without an estimate."""
    if est is None or est != est:
        return None
    return (est, est if lo is None or lo != lo else lo, est if hi is None or hi != hi else hi)


def unit_panels(stats, keys: list[str], runs: list[str], column: str = "run"):
    """The panels of a comparison figure: one per statistic and unit, so
    that runs whose statistic is in different units (a tai variant's mean
    tai against Ninghai's points) never share an axis.

    Args:
        stats: long table with key, statistic, ``column`` (the run label)
            and, optionally, unit ('' or missing: a rate).
        keys: the statistics wanted, in order (absent ones are skipped).
        runs: the run labels in order.
    Returns:
        list of (key, title, unit, rows) with rows the table's rows of that
        key and unit in run order; the title names the unit when the
        statistic is split (e.g. 'mean tai of wins (Ninghai: points), in
        points (ninghai)').
    """
    import polars as pl
    panels = []
    units = stats["unit"] if "unit" in stats.columns else pl.Series([""] * stats.height)
    stats = stats.with_columns(units.fill_null("").alias("_unit"))
    order = {r: i for i, r in enumerate(runs)}
    for key in keys:
        df = stats.filter(pl.col("key") == key)
        if not df.height:
            continue
        df = df.with_columns(pl.col(column).replace_strict(order, default=len(order))
                             .alias("_order")).sort("_order")
        found = list(dict.fromkeys(df["_unit"].to_list()))
        for unit in found:
            rows = df.filter(pl.col("_unit") == unit)
            title = plain(rows["statistic"][0])
            if len(found) > 1:
                title += f", in {unit}"
            panels.append((key, title, unit, rows))
    return panels


def plot_comparison(stats, labels: list[str], path: Path, keys: list[str] | None = None,
                    caption: str | None = None) -> Path:
    """compare.png: one panel per statistic (``keys``, default all) and unit
    (``unit_panels``: a statistic in tai for some runs and in points for
    others gets two panels), each run's estimate with its 95% interval,
    the runs named under their points by their labels (variant,
    overrides, policies; the folder name tells apart runs of one variant)
    and drawn in one colour per run throughout; the y axis gives the unit
    and includes zero, so that small differences are not magnified.
    ``stats``: the long table of ``nbsim.analysis.compare.compare.Comparison``
    (key, statistic, run, unit, estimate, ci_low, ci_high)."""
    keys = keys or list(dict.fromkeys(stats["key"].to_list()))
    panels = unit_panels(stats, keys, labels)
    fig, axes = _panels(len(panels), 3.4)
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (_key, title, unit, rows) in zip(axes.flat, panels, strict=False):
        lows, highs = [], []
        names: list[str] = []
        for r in rows.iter_rows(named=True):
            iv = _interval(r["estimate"], r["ci_low"], r["ci_high"])
            if iv is None or r["run"] not in labels:
                continue
            est, lo, hi = iv
            x = len(names)
            ax.errorbar([x], [est], yerr=[[est - lo], [hi - est]], fmt="o", capsize=4,
                        color=colors[labels.index(r["run"]) % len(colors)])
            names.append(plain(r["run"]))
            lows.append(lo)
            highs.append(hi)
        _zero_based_ylim(ax, lows, highs)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=8)
        ax.set_xlim(-0.5, max(len(names), 1) - 0.5)
        if unit:
            ax.set_ylabel(unit, fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Runs compared, 95% intervals", fontsize=10)
    return save_figure(fig, path, caption)


def plot_differences(diff, path: Path, keys: list[str] | None = None,
                     caption: str | None = None, names: dict[str, str] | None = None) -> Path:
    """compare_diff.png: each run minus the first run, one panel per
    statistic and unit, with the 95% interval and "paired" or
    "independent" written beside it; a zero line; the axis spans the
    intervals and zero only. Runs are named by ``names[label]`` (default:
    their labels) under their points, and the first run in the title.
    ``diff``: ``Comparison.diff`` (key, statistic, run, base, diff, ci_low,
    ci_high, pairing; optionally unit)."""
    keys = keys or list(dict.fromkeys(diff["key"].to_list()))
    names = names or {}
    runs = list(dict.fromkeys(diff["run"].to_list()))
    panels = unit_panels(diff, keys, runs)
    fig, axes = _panels(len(panels), 3.2)
    for ax, (_key, title, unit, rows) in zip(axes.flat, panels, strict=False):
        lows, highs = [], []
        shown: list[str] = []
        for r in rows.iter_rows(named=True):
            iv = _interval(r["diff"], r["ci_low"], r["ci_high"])
            if iv is None:
                continue
            d, lo, hi = iv
            x = len(shown)
            ax.errorbar([x], [d], yerr=[[d - lo], [hi - d]], fmt="o", capsize=4,
                        color="tab:blue" if r["pairing"] == "paired" else "tab:orange")
            ax.annotate(r["pairing"], (x, hi), textcoords="offset points", xytext=(0, 3),
                        ha="center", va="bottom", fontsize=7)
            shown.append(plain(names.get(r["run"], r["run"])))
            lows.append(lo)
            highs.append(hi)
        ax.axhline(0, color="gray", lw=0.8)
        _zero_based_ylim(ax, lows, highs)
        ax.set_xticks(range(len(shown)))
        ax.set_xticklabels(shown, fontsize=8)
        ax.set_xlim(-0.5, max(len(shown), 1) - 0.5)
        if unit:
            ax.set_ylabel(f"difference ({unit})", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    bases = list(dict.fromkeys(diff["base"].to_list())) if "base" in diff.columns else []
    base = plain(names.get(bases[0], bases[0])) if len(bases) == 1 else "the first run"
    fig.suptitle(f"Differences from {base}, 95% intervals (paired: same walls deal by deal)",
                 fontsize=10)
    return save_figure(fig, path, caption)


def plot_sweep(stats, x_name: str, x_values: list, series: list[tuple[str, list[str]]],
               keys: list[str], path: Path, caption: str | None = None) -> Path:
    """sweep.png: each statistic (``keys``) against the swept value: one line
    per series (label, run labels in x order; one series without a second
    swept option), estimates with 95% intervals; y axes include zero.
    Numeric values get a numeric x axis, other values (words, booleans) one
    tick each."""
    import polars as pl
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x_values)
    xs = list(x_values) if numeric else list(range(len(x_values)))
    fig, axes = _panels(len(keys), 3.2)
    for ax, key in zip(axes.flat, keys, strict=False):
        df = stats.filter(pl.col("key") == key)
        lows, highs, title = [], [], key
        for name, run_labels in series:
            px, py, plo, phi = [], [], [], []
            for x, lab in zip(xs, run_labels, strict=False):
                r = df.filter(pl.col("run") == lab)
                if not r.height:
                    continue
                title = r["statistic"][0]
                est, lo, hi = r.select("estimate", "ci_low", "ci_high").row(0)
                if est is None or est != est:
                    continue
                px.append(x)
                py.append(est)
                plo.append(est - lo if lo == lo and lo is not None else 0.0)
                phi.append(hi - est if hi == hi and hi is not None else 0.0)
                lows.append(lo if lo == lo and lo is not None else est)
                highs.append(hi if hi == hi and hi is not None else est)
            if px:
                ax.errorbar(px, py, yerr=[plo, phi], fmt="o-", capsize=4, ms=4, lw=1,
                            label=name or None)
        _zero_based_ylim(ax, lows, highs)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v in x_values], fontsize=8)
        ax.set_xlabel(x_name)
        ax.set_title(plain(title), fontsize=9)
        ax.grid(alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize=7)
    fig.suptitle(f"Sweep of {x_name}: estimates with 95% intervals (same seed: shared walls)",
                 fontsize=10)
    return save_figure(fig, path, caption)


def plot_tune(trials, targets, keys: list[str], path: Path, recommended: dict | None = None,
              caption: str | None = None) -> Path:
    """tune.png: the trials of a ``nbsim tune`` study against each target
    (rows) and each varied key (columns): each trial's estimate with its
    95% interval (complete trials as dots, pruned ones as grey crosses at
    their partial run), the target range shaded, the search's recommended
    setting circled in red. ``trials``: ``TuneResult.trials``; ``targets``:
    ``tune.Target``s. Numeric values get a numeric x axis, others one tick
    each."""
    import polars as pl
    nrow, ncol = max(1, len(targets)), max(1, len(keys))
    fig, axes = subplots(nrow, ncol, figsize=(4.4 * ncol, 3.0 * nrow + 0.6), dpi=110,
                          squeeze=False)
    for j, key in enumerate(keys):
        texts = sorted(set(trials[key].to_list()), key=_value_order)
        numeric = all(_as_number(v) is not None for v in texts)
        pos = {v: (_as_number(v) if numeric else i) for i, v in enumerate(texts)}
        for i, t in enumerate(targets):
            ax = axes[i][j]
            if t.low is not None or t.high is not None:
                lo = t.low if t.low is not None else -1e300
                hi = t.high if t.high is not None else 1e300
                ax.axhspan(lo, hi, color="#2a9d8f", alpha=0.15, lw=0,
                           label=f"target {t.text().split(' ', 1)[1]}")
            for state, style in (("complete", dict(fmt="o", color="#1f4e79", ms=4)),
                                 ("pruned", dict(fmt="x", color="#999999", ms=5))):
                sub = trials.filter(pl.col("state") == state)
                if not sub.height:
                    continue
                xs = [pos[v] for v in sub[key].to_list()]
                est = sub[t.key].to_list()
                lo_, hi_ = sub[f"{t.key}_ci_low"].to_list(), sub[f"{t.key}_ci_high"].to_list()
                err = [[max(0.0, e - lo) for e, lo in zip(est, lo_, strict=True)],
                       [max(0.0, hi - e) for e, hi in zip(est, hi_, strict=True)]]
                ax.errorbar(xs, est, yerr=err, capsize=3, lw=1, ls="none", label=state,
                            **style)
            if recommended is not None and key in recommended:
                rec = trials.filter(pl.all_horizontal(
                    [pl.col(k) == v for k, v in recommended.items() if k in trials.columns])
                    & (pl.col("state") == "complete"))
                if rec.height:
                    ax.plot([pos[recommended[key]]], [rec[t.key][0]], "o", ms=11, mfc="none",
                            mec="#c1121f", mew=1.6, label="recommended")
            ys = [v for c in (t.key, f"{t.key}_ci_low", f"{t.key}_ci_high")
                  for v in trials[c].to_list() if v is not None and v == v]
            ys += [v for v in (t.low, t.high) if v is not None]
            if ys:
                pad = (max(ys) - min(ys)) * 0.1 or 0.05
                ax.set_ylim(min(ys) - pad, max(ys) + pad)
            ax.set_xticks(sorted(set(pos.values())))
            ax.set_xticklabels([v for v in texts] if not numeric else
                               [str(v) for v in sorted(set(pos.values()))], fontsize=7)
            ax.set_xlabel(key, fontsize=8)
            ax.set_ylabel(t.key, fontsize=8)
            ax.grid(alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle("Tune: every trial's estimate with its 95% interval against each target and "
                 "varied key (same seed in every trial)", fontsize=10)
    return save_figure(fig, path, caption)


def _as_number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return int(v) if v == int(v) else v


def _value_order(text):
    v = _as_number(text)
    return (0, v, "") if v is not None else (1, 0, str(text))


def draw_all(tables: dict, out: Path, caption: str | None = None) -> list[Path]:
    """Draw every plot whose tables are present, each with ``caption`` (what
    produced it: variant, overrides, policies, seed); returns the files."""
    out = Path(out)
    files = []
    if "heavenly_by_wilds" in tables and "heavenly" in tables:
        files.append(plot_heavenly_by_wilds(tables["heavenly_by_wilds"], tables["heavenly"], out,
                                            caption))
    if "wilds_per_seat" in tables:
        files.append(plot_wilds_per_seat(tables["wilds_per_seat"], out, caption))
    if "flowers_per_seat" in tables:
        files.append(plot_flowers_per_seat(tables["flowers_per_seat"], out, caption))
    if "outcomes" in tables:
        files.append(plot_outcomes(tables["outcomes"], out, caption))
    for name in ("tai_distribution", "fan_distribution"):
        if name in tables and tables[name].df.height:
            files.append(plot_distribution(tables[name], out, caption))
    if "tai_items" in tables and tables["tai_items"].df["p"].drop_nulls().drop_nans().len():
        files.append(plot_tai_items(tables["tai_items"], out, caption))
    if "pay_per_seat" in tables:
        files.append(plot_payments(tables["pay_per_seat"], tables.get("pay_by_policy"), out,
                                   caption))
    return files
