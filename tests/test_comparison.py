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
from nbsim import stats as ST
from nbsim.cli import cli
from nbsim.errors import RunError
from nbsim.run import files as FILES
from nbsim.run import simulate as SIM

CMP = importlib.import_module("nbsim.analysis.compare.compare")     # the module


def _frame(out):
    return pl.concat([pl.read_parquet(p) for p in FILES.shard_paths(out)])


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
    lo, hi = ST.newcombe_interval(48, 80, 56, 70)
    assert (lo, hi) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    lo, hi = ST.newcombe_interval(56, 70, 48, 80)               # the other order
    assert (lo, hi) == pytest.approx((-0.3339, -0.0524), abs=5e-5)


def test_rate_test_is_two_proportion_z():
    k1, n1, k2, n2 = 410, 1000, 455, 1000
    p, name = ST.rate_test(k1, n1, k2, n2)
    pool = (k1 + k2) / (n1 + n2)
    z = (k2 / n2 - k1 / n1) / math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    assert name == "z test" and p == pytest.approx(2 * stats.norm.sf(abs(z)))
    p, name = ST.rate_test(0, 5000, 3, 5000)                   # rare events: exact test
    assert name == "Fisher exact" and 0.2 < p <= 1
    assert ST.rate_test(0, 100, 0, 100) == (1.0, "Fisher exact")


def test_welch_against_formula():
    rng = np.random.default_rng(5)
    a, b = rng.normal(4.0, 1.0, 300), rng.normal(4.3, 2.0, 200)
    lo, hi, p = ST.welch(a, b)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    d, se = b.mean() - a.mean(), math.sqrt(va + vb)
    half = stats.t.ppf(0.975, df) * se
    assert (lo, hi) == pytest.approx((d - half, d + half))
    assert p == pytest.approx(2 * stats.t.sf(abs(d / se), df))
    assert ST.welch(np.ones(5), np.ones(7)) == (0.0, 0.0, 1.0)


# ------------------------------------------------------------------ game runs
def test_compare_two_game_runs(runs, tmp_path):
    a, b = runs
    comp = nbsim.compare([a, b], out=tmp_path / "c")
    labels = [r["label"] for r in comp.runs]
    assert labels == ["ningbo-3baida [defend]", "ningbo-3baida (win.min_tai=5) [defend]"]
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
    assert {r["pairing"] for r in d.values()} == {"independent"}      # seeds 31 and 32
    wa = (fa["outcome"] != "wall_exhausted").sum()
    wb = (fb["outcome"] != "wall_exhausted").sum()
    assert d["win_rate"]["diff"] == pytest.approx(wb / fb.height - wa / fa.height)
    assert d["win_rate"]["method"] == "Newcombe interval, z test"
    lo, hi = ST.newcombe_interval(wa, fa.height, wb, fb.height)
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
    assert names == ["compare.html", "compare.json", "compare.md", "compare.png",
                     "compare_diff.png"]
    assert (tmp_path / "c" / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert [r["label"] for r in data["runs"]] == labels and len(data["diff"]) == len(d)
    md = (tmp_path / "c" / "compare.md").read_text()
    assert "ningbo-3baida (win.min_tai=5) [defend]" in md and "Newcombe" in md
    for s in ("win rate", "mean tai of wins", "Difference run 2 - run 1", "independent"):
        assert s in comp.text
    assert d["mean_tai"]["method"] == "Welch t"


def test_compare_three_runs_and_labels(runs, tmp_path):
    a, b = runs
    c = tmp_path / "again"
    SIM.simulate("ningbo-3baida", mode="game", deals=300, seed=99, out=c, workers=1)
    comp = CMP.compare([a, b, c])
    labels = [r["label"] for r in comp.runs]
    assert labels == ["ningbo-3baida [defend] seed 31", "ningbo-3baida (win.min_tai=5) [defend]",
                      "ningbo-3baida [defend] seed 99"]
    assert comp.files == []
    assert set(comp.diff["run"].to_list()) == set(labels[1:])        # run k - run 1
    assert set(comp.diff["base"].to_list()) == {labels[0]}
    assert comp.table.columns == ["statistic", *labels]
    assert "Differences against run 1" in comp.text
    g = tmp_path / "greedy"
    SIM.simulate("ningbo-3baida", mode="game", deals=200, seed=31, out=g, workers=1,
                 policies=("greedy",) * 4)
    assert [r["label"] for r in CMP.compare([a, g]).runs] == [
        "ningbo-3baida [defend]", "ningbo-3baida [greedy]"]
    same = CMP.compare([a, a])                                  # same folder twice
    assert [r["label"] for r in same.runs] == ["ningbo-3baida [defend] #1",
                                               "ningbo-3baida [defend] #2"]
    assert (same.diff["diff"].abs() < 1e-12).all()
    assert (same.diff["pairing"] == "paired").all()
    assert any("same folder as run 1" in w for w in same.warnings)
    assert "WARNING: run 2 is the same folder" in same.text


def test_compare_ninghai_with_tai_variant(runs, tmp_path):
    nh = tmp_path / "nh"
    SIM.simulate("ninghai", mode="game", deals=400, seed=3, out=nh, workers=1)
    comp = CMP.compare([runs[0], nh])
    keys = set(comp.diff["key"].to_list())
    assert "win_rate" in keys and "mean_tai" not in keys and "mean_points" not in keys
    assert "mean_score" not in keys and "net_E" not in keys            # different units
    assert any("score differently" in w for w in comp.warnings)
    head = {r["statistic"]: r for r in comp.headline.to_dicts()}
    assert head["mean tai of wins (Ninghai: points)"]["ninghai [defend]"].endswith(
        "points (yao_ban_san)")
    p = _est(comp, "mean_points", "ninghai [defend]")
    wins = _frame(nh).filter(pl.col("outcome") != "wall_exhausted")
    assert p["estimate"] == pytest.approx(wins["points_yao_ban_san"].mean())
    row = comp.table.filter(pl.col("statistic") == "mean tai of wins").row(0, named=True)
    assert row["ninghai [defend]"] == "-"


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
    code = ("import sys, nbsim; assert 'nbsim.analysis.report.report' not in sys.modules; "
            "assert 'polars' not in sys.modules; f = nbsim.summarize; "
            "assert 'nbsim.analysis.report.report' in sys.modules; print(nbsim.compare.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "nbsim.analysis.compare.compare"
    assert {"simulate", "summarize", "compare", "replay", "duel"} <= set(nbsim.__all__)
    # the public names stay functions even after their modules are imported
    code = ("import nbsim.run.simulate, nbsim.analysis.compare.compare, nbsim.play.replays, "
            "nbsim.play.duel, nbsim; "
            "print(*(getattr(nbsim, n).__module__ for n in "
            "('simulate', 'compare', 'replay', 'duel')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["nbsim.run.simulate", "nbsim.analysis.compare.compare",
                           "nbsim.play.replays", "nbsim.play.duel"]
    with pytest.raises(AttributeError):
        nbsim.no_such_thing  # noqa: B018


# ------------------------------------------------------------------ paired runs
@pytest.fixture(scope="module")
def paired_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("paired")
    a, b = base / "min4", base / "min5"
    SIM.simulate("ningbo-3baida", mode="game", deals=1_200, seed=41, out=a)
    SIM.simulate("ningbo-3baida", mode="game", deals=1_200, seed=41, out=b,
                 overrides=["win.min_tai=5"])
    return a, b


def test_paired_differences(paired_runs):
    a, b = paired_runs
    comp = CMP.compare([a, b])
    fa, fb = _frame(a), _frame(b)
    assert fa["hand_e"].to_list() == fb["hand_e"].to_list()           # shared walls
    d = {r["key"]: r for r in comp.diff.to_dicts()}
    assert {r["pairing"] for r in d.values()} == {"paired"}
    # a rate: mean and paired t interval of the per-deal differences (scipy.stats.ttest_rel)
    wa = (fa["outcome"] != "wall_exhausted").cast(pl.Float64).to_numpy()
    wb = (fb["outcome"] != "wall_exhausted").cast(pl.Float64).to_numpy()
    r = stats.ttest_rel(wb, wa)
    ci = r.confidence_interval(0.95)
    row = d["win_rate"]
    assert row["diff"] == pytest.approx(wb.mean() - wa.mean())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert row["p_value"] == pytest.approx(r.pvalue)
    assert row["se"] == pytest.approx(np.std(wb - wa, ddof=1) / math.sqrt(len(wa)))
    # the independent interval is kept beside it
    lo, hi = ST.newcombe_interval(int(wa.sum()), len(wa), int(wb.sum()), len(wb))
    assert (row["indep_ci_low"], row["indep_ci_high"]) == pytest.approx((lo, hi))
    # net points of a seat: paired t on pay_e
    pe = stats.ttest_rel(fb["pay_e"].to_numpy().astype(float),
                         fa["pay_e"].to_numpy().astype(float)).confidence_interval(0.95)
    assert (d["net_E"]["ci_low"], d["net_E"]["ci_high"]) == pytest.approx((pe.low, pe.high))
    # mean tai of wins: delta method, checked against its definition
    ta = fa["tai"].fill_null(0).to_numpy().astype(float)
    tb = fb["tai"].fill_null(0).to_numpy().astype(float)
    ra, rb = ta.sum() / wa.sum(), tb.sum() / wb.sum()
    z = (tb - rb * wb) / wb.mean() - (ta - ra * wa) / wa.mean()
    se = z.std(ddof=1) / math.sqrt(len(z))
    row = d["mean_tai"]
    assert row["diff"] == pytest.approx(rb - ra) and row["se"] == pytest.approx(se)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (rb - ra - stats.norm.ppf(0.975) * se, rb - ra + stats.norm.ppf(0.975) * se))
    assert "delta method" in row["method"]
    assert "paired" in comp.text and "indep/paired" in comp.text      # its header may wrap


def test_headline_and_seat_rows(paired_runs):
    a, _ = paired_runs
    comp = CMP.compare(list(paired_runs))
    f = _frame(a)
    lab = comp.runs[0]["label"]
    n = f.height
    head = [r for r in comp.headline["statistic"].to_list()]
    assert head[:4] == ["win rate", "wall-exhausted rate (荒庄)",
                        "self-drawn share of wins (自摸)", "mean tai of wins (Ninghai: points)"]
    assert [h for h in head if h.startswith("deal-in rate")] == [
        "deal-in rate E (dealer)", "deal-in rate S", "deal-in rate W", "deal-in rate N"]
    for s in "ESWN":
        r = _est(comp, f"deal_in_{s}", lab)
        assert (r["count"], r["n"]) == (int((f["discarder"] == s).sum()), n)
        w = _est(comp, f"win_{s}", lab)
        assert w["count"] == int((f["winner"] == s).sum())
        p = _est(comp, f"net_{s}", lab)
        assert p["estimate"] == pytest.approx(f[f"pay_{s.lower()}"].mean())
    adv = _est(comp, "dealer_advantage", lab)
    won = f["winner"].drop_nulls()
    assert adv["estimate"] == pytest.approx(((won == "E").sum() - (won != "E").sum() / 3) / n)
    assert adv["ci_low"] < adv["estimate"] < adv["ci_high"]
    assert comp.seats.height == 12


def test_compare_same_runs_in_other_folders(paired_runs, tmp_path):
    import shutil
    a, _ = paired_runs
    c = tmp_path / "copy"
    shutil.copytree(a, c)
    comp = CMP.compare([a, c])
    assert any("the same deals" in w for w in comp.warnings)
    assert (comp.diff["diff"].abs() < 1e-12).all()
