"""nbsim compare: side-by-side statistics, differences and tests checked
against direct computation and published values, files, errors and the CLI."""
from __future__ import annotations

import importlib
import json
import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from scipy import stats

import nbsim
from nbsim import runs as SIM
from nbsim.cli import cli
from nbsim.errors import RunError

CMP = importlib.import_module("nbsim.comparison")     # the module (nbsim.compare is the function)


def _frame(out):
    return pl.concat([pl.read_parquet(p) for p in SIM.shard_paths(out)])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("cmp")
    a, b = base / "min4", base / "min5"
    SIM.simulate("ningbo-3baida", mode="game", deals=1_500, seed=31, out=a, workers=1)
    SIM.simulate("ningbo-3baida", mode="game", deals=1_500, seed=32, out=b, workers=1,
                 overrides=["win.min_tai=5"])
    return a, b


@pytest.fixture(scope="module")
def deal_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("cmpdeal")
    a, b = base / "d3", base / "d7"
    SIM.simulate("ningbo-3baida", deals=20_000, seed=1, out=a)
    SIM.simulate("ningbo-7baida", deals=20_000, seed=2, out=b)
    return a, b


def _est(comp, key, label):
    r = comp.stats.filter((pl.col("key") == key) & (pl.col("run") == label))
    return r.row(0, named=True)


# ------------------------------------------------------------------ helpers
def test_newcombe_published_example():
    # Newcombe (1998), Stat. Med. 17:873, example 56/70 - 48/80, method 10
    lo, hi = CMP.newcombe_interval(48, 80, 56, 70)
    assert (lo, hi) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    lo, hi = CMP.newcombe_interval(56, 70, 48, 80)               # the other order
    assert (lo, hi) == pytest.approx((-0.3339, -0.0524), abs=5e-5)


def test_rate_test_is_two_proportion_z():
    k1, n1, k2, n2 = 410, 1000, 455, 1000
    p, name = CMP.rate_test(k1, n1, k2, n2)
    pool = (k1 + k2) / (n1 + n2)
    z = (k2 / n2 - k1 / n1) / math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    assert name == "z test" and p == pytest.approx(2 * stats.norm.sf(abs(z)))
    p, name = CMP.rate_test(0, 5000, 3, 5000)                   # rare events: exact test
    assert name == "Fisher exact" and 0.2 < p <= 1
    assert CMP.rate_test(0, 100, 0, 100) == (1.0, "Fisher exact")


def test_welch_against_formula():
    rng = np.random.default_rng(5)
    a, b = rng.normal(4.0, 1.0, 300), rng.normal(4.3, 2.0, 200)
    lo, hi, p = CMP.welch(a, b)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    d, se = b.mean() - a.mean(), math.sqrt(va + vb)
    half = stats.t.ppf(0.975, df) * se
    assert (lo, hi) == pytest.approx((d - half, d + half))
    assert p == pytest.approx(2 * stats.t.sf(abs(d / se), df))
    assert CMP.welch(np.ones(5), np.ones(7)) == (0.0, 0.0, 1.0)


# ------------------------------------------------------------------ game runs
def test_compare_two_game_runs(runs, tmp_path):
    a, b = runs
    comp = nbsim.compare([a, b], out=tmp_path / "c")
    labels = [r["label"] for r in comp.runs]
    assert labels == ["ningbo-3baida", "ningbo-3baida (win.min_tai=5)"]
    fa, fb = _frame(a), _frame(b)
    for f, lab in ((fa, labels[0]), (fb, labels[1])):
        wins = f.filter(pl.col("outcome") != "wall_exhausted")
        r = _est(comp, "win_rate", lab)
        assert (r["count"], r["n"]) == (wins.height, f.height)
        ci = stats.binomtest(wins.height, f.height).proportion_ci(method="wilson")
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((ci.low, ci.high))
        t = _est(comp, "mean_tai", lab)
        assert t["estimate"] == pytest.approx(wins["tai"].mean()) and t["n"] == wins.height
        assert t["ci_low"] < t["estimate"] < t["ci_high"]
        sd = _est(comp, "self_drawn_share", lab)
        assert sd["n"] == wins.height
        assert sd["count"] == (wins["outcome"] == "self_drawn").sum()
    assert _frame(b)["tai"].drop_nulls().min() >= 5              # the override took effect
    d = {r["key"]: r for r in comp.diff.to_dicts()}
    wa = (fa["outcome"] != "wall_exhausted").sum()
    wb = (fb["outcome"] != "wall_exhausted").sum()
    assert d["win_rate"]["diff"] == pytest.approx(wb / fb.height - wa / fa.height)
    assert d["win_rate"]["test"] == "Newcombe interval, z test"
    lo, hi = CMP.newcombe_interval(wa, fa.height, wb, fb.height)
    assert (d["win_rate"]["ci_low"], d["win_rate"]["ci_high"]) == pytest.approx((lo, hi))
    ta = fa["tai"].drop_nulls().to_numpy().astype(float)
    tb = fb["tai"].drop_nulls().to_numpy().astype(float)
    r = stats.ttest_ind(tb, ta, equal_var=False)
    assert d["mean_tai"]["diff"] == pytest.approx(tb.mean() - ta.mean())
    assert d["mean_tai"]["p_value"] == pytest.approx(r.pvalue)
    assert d["mean_tai"]["ci_low"] < d["mean_tai"]["diff"] < d["mean_tai"]["ci_high"]
    assert d["mean_tai"]["diff"] > 0 and d["mean_tai"]["p_value"] < 1e-6  # min 5 > min 4
    assert "mean_fan" not in d                                   # no fan in tai variants
    # files
    names = sorted(p.name for p in comp.files)
    assert names == ["compare.json", "compare.md", "compare.png"]
    assert (tmp_path / "c" / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert [r["label"] for r in data["runs"]] == labels and len(data["diff"]) == len(d)
    md = (tmp_path / "c" / "compare.md").read_text()
    assert "ningbo-3baida (win.min_tai=5)" in md and "Newcombe" in md
    for s in ("win rate", "mean tai of wins", "Difference run 2 - run 1", "Welch t"):
        assert s in comp.text


def test_compare_three_runs_and_labels(runs, tmp_path):
    a, b = runs
    c = tmp_path / "again"
    SIM.simulate("ningbo-3baida", mode="game", deals=300, seed=99, out=c, workers=1)
    comp = CMP.compare([a, b, c])
    labels = [r["label"] for r in comp.runs]
    assert labels == ["ningbo-3baida seed 31", "ningbo-3baida (win.min_tai=5)",
                      "ningbo-3baida seed 99"]
    assert comp.diff is None and comp.files == []
    assert comp.table.columns == ["statistic", *labels]
    assert "Difference" not in comp.text
    g = tmp_path / "greedy"
    SIM.simulate("ningbo-3baida", mode="game", deals=200, seed=31, out=g, workers=1,
                 policies=("greedy",) * 4)
    assert [r["label"] for r in CMP.compare([a, g]).runs] == [
        "ningbo-3baida [value,value,value,value]", "ningbo-3baida [greedy,greedy,greedy,greedy]"]
    same = CMP.compare([a, a])                                  # same folder twice
    assert [r["label"] for r in same.runs] == ["ningbo-3baida #1", "ningbo-3baida #2"]
    assert (same.diff["diff"].abs() < 1e-12).all()


def test_compare_ninghai_with_tai_variant(runs, tmp_path):
    nh = tmp_path / "nh"
    SIM.simulate("ninghai", mode="game", deals=400, seed=3, out=nh, workers=1)
    comp = CMP.compare([runs[0], nh])
    keys = set(comp.diff["key"].to_list())
    assert "win_rate" in keys and "mean_tai" not in keys and "mean_points" not in keys
    p = _est(comp, "mean_points", "ninghai")
    wins = _frame(nh).filter(pl.col("outcome") != "wall_exhausted")
    assert p["estimate"] == pytest.approx(wins["points_yao_ban_san"].mean())
    row = comp.table.filter(pl.col("statistic") == "mean tai of wins").row(0, named=True)
    assert row["ninghai"] == "-"


# ------------------------------------------------------------------ deal runs
def test_compare_deal_runs(deal_runs):
    a, b = deal_runs
    comp = CMP.compare([a, b])
    fa, fb = _frame(a), _frame(b)
    h = _est(comp, "heavenly", "ningbo-7baida")
    assert (h["count"], h["n"]) == (int(fb["dealer_complete"].sum()), 20_000)
    w = _est(comp, "dealer_wilds", "ningbo-3baida")
    assert w["estimate"] == pytest.approx(fa["wilds_e"].cast(pl.Float64).mean())
    d = {r["key"]: r for r in comp.diff.to_dicts()}
    assert d["dealer_wilds"]["diff"] > 0                  # 7 wilds vs 3
    assert d["dealer_wilds"]["p_value"] < 1e-10
    fl = [[len(s) - 1 if s else 0 for s in fa[f"flowers_{x}"].to_list()] for x in "eswn"]
    f = _est(comp, "flowers_per_player", "ningbo-3baida")
    assert f["estimate"] == pytest.approx(np.mean(fl))


# ------------------------------------------------------------------ errors, CLI
def test_compare_errors(runs, deal_runs, tmp_path):
    with pytest.raises(RunError, match="different modes"):
        CMP.compare([runs[0], deal_runs[0]])
    with pytest.raises(RunError, match="not an nbsim run folder"):
        CMP.compare([runs[0], tmp_path])
    with pytest.raises(RunError, match="at least 2 run folders"):
        CMP.compare([runs[0]])
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(RunError, match="not a folder"):
        CMP.compare(list(runs), out=f)


def test_cli_compare(runs, deal_runs, tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["compare", str(runs[0]), str(runs[1]), "--out",
                              str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "ningbo-3baida (win.min_tai=5)" in res.output and "p_value" in res.output
    assert (tmp_path / "o" / "compare.md").is_file()
    res = runner.invoke(cli, ["compare", str(runs[0]), str(deal_runs[1])])
    assert res.exit_code == 2 and "different modes" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(cli, ["compare", str(runs[0]), str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "does not exist" in res.output
    res = runner.invoke(cli, ["compare", "--help"])
    assert res.exit_code == 0 and "Usage:" in res.output


def test_lazy_api():
    import subprocess
    import sys
    code = ("import sys, nbsim; assert 'nbsim.report' not in sys.modules; "
            "assert 'polars' not in sys.modules; f = nbsim.summarize; "
            "assert 'nbsim.report' in sys.modules; print(nbsim.compare.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "nbsim.comparison"
    assert {"simulate", "summarize", "compare", "replay", "duel"} <= set(nbsim.__all__)
    # the public names stay functions even after their modules are imported
    code = ("import nbsim.runs, nbsim.comparison, nbsim.replays, nbsim.duplicate, nbsim; "
            "print(*(getattr(nbsim, n).__module__ for n in "
            "('simulate', 'compare', 'replay', 'duel')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["nbsim.runs", "nbsim.comparison", "nbsim.replays", "nbsim.duplicate"]
    with pytest.raises(AttributeError):
        nbsim.no_such_thing  # noqa: B018
