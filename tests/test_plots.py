"""Plots people trust: log scales where counts span orders of magnitude,
labels above the intervals, zero-based axes, captions, no Chinese glyph
boxes without a Chinese font."""
from __future__ import annotations

import polars as pl

from nbsim.analysis import plots as P
from nbsim.analysis.report import Table


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
    real_save = P._save

    def spy(fig, path, caption=None):
        seen["yscale"] = fig.axes[0].get_yscale()
        out = real_save(fig, path, caption)
        seen["texts"] = [t.get_text() for t in fig.texts]
        return out
    monkeypatch.setattr(P, "_save", spy)
    df = pl.DataFrame({"wilds": [0, 1, 2, 3], "E": [0.7, 0.25, 0.049, 0.001],
                       "S": [0.7, 0.25, 0.049, 0.001], "W": [0.7, 0.25, 0.049, 0.001],
                       "N": [0.7, 0.25, 0.049, 0.001]})
    P.plot_wilds_per_seat(Table("wilds_per_seat", "Wilds", df), tmp_path, caption="cfg; seed 1")
    assert seen["yscale"] == "log" and seen["texts"] == ["cfg; seed 1"]


def test_value_labels_sit_above_intervals(tmp_path, monkeypatch):
    seen = {}
    real_save = P._save

    def spy(fig, path, caption=None):
        ax = fig.axes[0]
        seen["labels"] = [(a.xy[1], a.get_text()) for a in ax.texts]
        seen["ylim"] = ax.get_ylim()
        return real_save(fig, path, caption)
    monkeypatch.setattr(P, "_save", spy)
    df = pl.DataFrame({"event": ["win", "wall exhausted", "share"],
                       "of": ["deals", "deals", "wins"], "p": [0.9, 0.1, 0.4],
                       "ci_low": [0.88, 0.08, 0.38], "ci_high": [0.92, 0.12, 0.42]})
    P.plot_outcomes(Table("outcomes", "Outcomes", df), tmp_path)
    assert [y for y, _ in seen["labels"]] == [0.92, 0.12]       # anchored at the CI top
    assert seen["ylim"][0] == 0


def test_comparison_axes_include_zero(tmp_path, monkeypatch):
    seen = []
    real_save = P._save

    def spy(fig, path, caption=None):
        seen.extend(ax.get_ylim() for ax in fig.axes if ax.axison)
        return real_save(fig, path, caption)
    monkeypatch.setattr(P, "_save", spy)
    stats = pl.DataFrame({"key": ["win_rate"] * 2, "statistic": ["win rate"] * 2,
                          "run": ["a", "b"], "estimate": [0.451, 0.455],
                          "ci_low": [0.449, 0.453], "ci_high": [0.453, 0.457]})
    P.plot_comparison(stats, ["a", "b"], tmp_path / "c.png")
    assert seen and seen[0][0] <= 0 < 0.457 < seen[0][1]
