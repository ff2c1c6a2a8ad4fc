"""Plots people trust: log scales where counts span orders of magnitude,
labels above the intervals, zero-based axes, captions, no Chinese glyph
boxes without a Chinese font."""
from __future__ import annotations

import polars as pl

from nbsim.analysis import plots as P
from nbsim.analysis.report.deal_tables import Table


def test_needs_log():
    assert P.needs_log([0.5, 0.3, 0.001, 0.0])
    assert not P.needs_log([0.5, 0.3, 0.1])
    assert not P.needs_log([0, None])


def test_plain_drops_chinese_without_a_font(monkeypatch):
    monkeypatch.setattr(P, "_cjk", None)
    assert P.plain("wall-exhausted rate (荒庄)") == "wall-exhausted rate"
    assert P.item_label("full_flush", "清一色") == "full_flush"
    monkeypatch.setattr(P, "_cjk", "Noto Sans CJK SC")
    assert P.plain("wall-exhausted rate (荒庄)") == "wall-exhausted rate (荒庄)"
    assert P.item_label("full_flush", "清一色") == "清一色 full_flush"


def test_seat_bars_log_scale_and_caption(tmp_path, monkeypatch):
    seen = {}
    real_save = P.save_figure

    def spy(fig, path, caption=None):
        seen["yscale"] = fig.axes[0].get_yscale()
        out = real_save(fig, path, caption)
        seen["texts"] = [t.get_text() for t in fig.texts]
        return out
    monkeypatch.setattr(P, "save_figure", spy)
    df = pl.DataFrame({"wilds": [0, 1, 2, 3], "E": [0.7, 0.25, 0.049, 0.001],
                       "S": [0.7, 0.25, 0.049, 0.001], "W": [0.7, 0.25, 0.049, 0.001],
                       "N": [0.7, 0.25, 0.049, 0.001]})
    P.plot_wilds_per_seat(Table("wilds_per_seat", "Wilds", df), tmp_path, caption="cfg; seed 1")
    assert seen["yscale"] == "log" and seen["texts"] == ["cfg; seed 1"]


def test_value_labels_sit_above_intervals(tmp_path, monkeypatch):
    seen = {}
    real_save = P.save_figure

    def spy(fig, path, caption=None):
        ax = fig.axes[0]
        seen["labels"] = [(a.xy[1], a.get_text()) for a in ax.texts]
        seen["ylim"] = ax.get_ylim()
        return real_save(fig, path, caption)
    monkeypatch.setattr(P, "save_figure", spy)
    df = pl.DataFrame({"event": ["win", "wall exhausted", "share"],
                       "of": ["deals", "deals", "wins"], "p": [0.9, 0.1, 0.4],
                       "ci_low": [0.88, 0.08, 0.38], "ci_high": [0.92, 0.12, 0.42]})
    P.plot_outcomes(Table("outcomes", "Outcomes", df), tmp_path)
    assert [y for y, _ in seen["labels"]] == [0.92, 0.12]       # anchored at the CI top
    assert seen["ylim"][0] == 0


def test_comparison_axes_include_zero(tmp_path, monkeypatch):
    seen = []
    real_save = P.save_figure

    def spy(fig, path, caption=None):
        seen.extend(ax.get_ylim() for ax in fig.axes if ax.axison)
        return real_save(fig, path, caption)
    monkeypatch.setattr(P, "save_figure", spy)
    stats = pl.DataFrame({"key": ["win_rate"] * 2, "statistic": ["win rate"] * 2,
                          "run": ["a", "b"], "estimate": [0.451, 0.455],
                          "ci_low": [0.449, 0.453], "ci_high": [0.453, 0.457]})
    P.plot_comparison(stats, ["a", "b"], tmp_path / "c.png")
    assert seen and seen[0][0] <= 0 < 0.457 < seen[0][1]


# ------------------------------------------------------------------ text inside the figure
def _drawn(fig):
    """The figure laid out and drawn as saved, and its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    return renderer


def _ticklabels(ax):
    lo, hi = sorted(ax.get_xlim())
    return [t for loc, t in zip(ax.get_xticks(), ax.get_xticklabels(), strict=True)
            if lo <= loc <= hi and t.get_text()]


def text_problems(fig) -> list[str]:
    """Every text that is cut: outside the figure, a panel title wider than
    its panel, x tick labels running into each other."""
    r = _drawn(fig)
    box = fig.bbox
    bad = []
    whole = fig.get_tightbbox(r)               # inches, every drawn artist
    if (whole.x0 < -0.01 or whole.y0 < -0.01 or whole.x1 > fig.get_figwidth() + 0.01
            or whole.y1 > fig.get_figheight() + 0.01):
        bad.append(f"drawn area {whole.bounds} exceeds the figure")
    texts = list(fig.texts) + ([fig._suptitle] if fig._suptitle else [])
    for ax in fig.axes:
        if ax.axison:
            texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *_ticklabels(ax)]
    for t in texts:
        if not t.get_text().strip():
            continue
        e = t.get_window_extent(r)
        if e.x0 < box.x0 - 1 or e.x1 > box.x1 + 1 or e.y0 < box.y0 - 1 or e.y1 > box.y1 + 1:
            bad.append(f"{t.get_text()!r} outside the figure")
    for ax in fig.axes:
        if not ax.axison:
            continue
        a, e = ax.get_window_extent(r), ax.title.get_window_extent(r)
        if ax.title.get_text() and (e.x0 < a.x0 - 2 or e.x1 > a.x1 + 2):
            bad.append(f"title {ax.title.get_text()!r} wider than its panel")
        ext = [t.get_window_extent(r) for t in _ticklabels(ax)]
        if any(right.x0 < left.x1 for left, right in zip(ext, ext[1:], strict=False)):
            bad.append(f"tick labels {[t.get_text() for t in _ticklabels(ax)]} overlap")
        for t in fig.texts:                    # the caption stays clear of every panel
            if t.get_text() and t.get_window_extent(r).overlaps(ax.get_tightbbox(r)):
                bad.append(f"{t.get_text()!r} overlaps a panel")
    return bad


def _spy_save(monkeypatch):
    figs = []
    real_save = P.save_figure

    def spy(fig, path, caption=None):
        out = real_save(fig, path, caption)
        figs.append(fig)
        return out
    monkeypatch.setattr(P, "save_figure", spy)
    return figs


LONG_RUNS = ["ningbo-3baida (win.min_tai=5, scoring.tai.full_flush=9) [value]",
             "ningbo-7baida [defend]", "ninghai"]
HEADLINE = [("win_rate", "win rate", ""),
            ("mean_score", "mean tai of wins (Ninghai: points)", None),
            ("dealer_advantage", "dealer advantage: P(E wins) - P(S, W or N wins)/3", ""),
            ("wall_exhausted_rate", "wall-exhausted rate (荒庄)", "")]


def _mixed_stats():
    """Three runs: two tai variants (mean tai about 5) and Ninghai (points about 74)."""
    rows = []
    for key, stat, unit in HEADLINE:
        for i, run in enumerate(LONG_RUNS):
            u = unit if unit is not None else ("points (ninghai)" if run == "ninghai" else "tai")
            est = (74.0 if run == "ninghai" else 5.0 + i) if unit is None else 0.4 + 0.01 * i
            rows.append({"key": key, "statistic": stat, "run": run, "unit": u,
                         "estimate": est, "ci_low": est * 0.95, "ci_high": est * 1.05})
    return pl.DataFrame(rows)


def test_comparison_one_panel_per_unit_runs_named(tmp_path, monkeypatch):
    figs = _spy_save(monkeypatch)
    P.plot_comparison(_mixed_stats(), LONG_RUNS, tmp_path / "c.png",
                      keys=[k for k, _, _ in HEADLINE], caption="x; " * 60)
    fig = figs[0]
    axes = [ax for ax in fig.axes if ax.axison]
    assert len(axes) == 5                             # mean_score split: tai and points
    score = [ax for ax in axes if ax.get_ylabel() in ("tai", "points (ninghai)")]
    assert sorted(ax.get_ylabel() for ax in score) == ["points (ninghai)", "tai"]
    for ax in score:                                  # never 5 tai beside 74 points
        lo, hi = ax.get_ylim()
        assert (hi < 20) == (ax.get_ylabel() == "tai")
    for ax in axes:
        names = ["".join(t.get_text().split()) for t in _ticklabels(ax)]   # wrapped: joined
        assert names and all(n in ["".join(r.split()) for r in LONG_RUNS] for n in names), names
    assert text_problems(fig) == []


def test_differences_named_and_inside(tmp_path, monkeypatch):
    figs = _spy_save(monkeypatch)
    rows = [{"key": k, "statistic": s, "run": run, "base": LONG_RUNS[0], "unit": "",
             "diff": 0.01, "ci_low": -0.01, "ci_high": 0.03, "pairing": "paired"}
            for k, s, _ in HEADLINE for run in LONG_RUNS[1:]]
    P.plot_differences(pl.DataFrame(rows), tmp_path / "d.png",
                       keys=[k for k, _, _ in HEADLINE])
    fig = figs[0]
    assert "ningbo-3baida" in fig._suptitle.get_text() and "run 1" not in fig._suptitle.get_text()
    for ax in (ax for ax in fig.axes if ax.axison):
        assert ["".join(t.get_text().split()) for t in _ticklabels(ax)] == \
            ["".join(r.split()) for r in LONG_RUNS[1:]]
    assert text_problems(fig) == []


def test_report_plots_keep_their_text_inside(tmp_path, monkeypatch):
    figs = _spy_save(monkeypatch)
    df = pl.DataFrame({"event": ["win", "wall exhausted", "discard win", "self drawn", "share"],
                       "of": ["deals"] * 4 + ["wins"], "p": [0.9, 0.1, 0.3, 0.2, 0.4],
                       "ci_low": [0.88, 0.08, 0.28, 0.18, 0.38],
                       "ci_high": [0.92, 0.12, 0.32, 0.22, 0.42]})
    P.plot_outcomes(Table("outcomes", "Outcomes of ningbo-3baida (win.min_tai=5) played "
                          "out by defend in every seat", df), tmp_path,
                    caption="ningbo-3baida --set win.min_tai=5; policy defend; seed 1; "
                            "200,000 deals; " * 3)
    assert text_problems(figs[0]) == []
