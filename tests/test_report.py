"""nbsim report: tables from a run folder, files written, incomplete runs."""
from __future__ import annotations

import json

import polars as pl
import pytest
from scipy.stats import binomtest

from nbsim import stats as STATS
from nbsim.analysis.report import deal_tables as DEAL_TABLES
from nbsim.analysis.report import report as R
from nbsim.errors import RunError
from nbsim.run import files as FILES
from nbsim.run import simulate as SIM
from nbsim.run.files import PLOT_FILES, REPORT_HTML, REPORT_MD, SUMMARY_JSON


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "r7"
    SIM.simulate("ningbo-7baida", deals=30_000, seed=12, out=out, shard_size=7_000)
    return out


def _frame(out):
    return pl.concat([pl.read_parquet(p) for p in FILES.shard_paths(out)])


def test_heavenly_table(run):
    rep = R.summarize(run)
    df = _frame(run)
    h = rep.tables["heavenly"].df.row(0, named=True)
    k = int(df["dealer_complete"].sum())
    assert h["deals"] == 30_000 and h["complete"] == k and h["p"] == k / 30_000
    ci = binomtest(k, 30_000).proportion_ci(method="wilson")
    assert h["ci_low"] == pytest.approx(ci.low) and h["ci_high"] == pytest.approx(ci.high)
    assert h["ci_low"] < h["p"] < h["ci_high"]
    by = rep.tables["heavenly_by_wilds"].df
    assert by["deals"].sum() == 30_000 and by["complete"].sum() == k
    assert by["dealer_wilds"].to_list() == sorted(set(df["wilds_e"].to_list()))


def test_seat_tables(run):
    rep = R.summarize(run)
    df = _frame(run)
    w = rep.tables["wilds_per_seat"].df
    fl = rep.tables["flowers_per_seat"].df
    for seat in DEAL_TABLES.SEATS:
        assert w[seat].sum() == pytest.approx(1.0)
        assert fl[seat].sum() == pytest.approx(1.0)
    # direct counts from the rows
    n_w1_e = (df["wilds_e"] == 1).sum()
    assert w.filter(pl.col("wilds") == 1)["E"][0] == pytest.approx(n_w1_e / 30_000)
    n_fl = [len(s) - 1 if s else 0 for s in df["flowers_n"].to_list()]
    assert fl.filter(pl.col("flowers") == 2)["N"][0] == pytest.approx(n_fl.count(2) / 30_000)
    assert "mean: E" in rep.tables["wilds_per_seat"].note


def test_write_report_files(run, tmp_path):
    rep = R.write_report(run, tmp_path / "rep")
    names = sorted(p.name for p in rep.files)
    assert names == sorted((REPORT_MD, SUMMARY_JSON, REPORT_HTML) + PLOT_FILES)
    for p in rep.files:
        assert p.is_file() and p.stat().st_size > 0
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert summary["run"]["deals_done"] == 30_000 and summary["run"]["status"] == "complete"
    assert summary["tables"]["heavenly"]["rows"][0]["deals"] == 30_000
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Wilson" in md and "![wilds_per_seat](wilds_per_seat.png)" in md
    assert "heavenly hand (dealer complete)" in rep.text
    # default: into the run folder
    R.write_report(run)
    assert (run / "report.md").is_file()


def test_incomplete_run_is_flagged(tmp_path):
    out = tmp_path / "r"
    SIM.simulate("ningbo-3baida", deals=300, seed=1, out=out, shard_size=100)
    m = json.loads((out / "manifest.json").read_text())
    m["status"] = "interrupted"
    m["deals"] = 1_000
    (out / "manifest.json").write_text(json.dumps(m))
    rep = R.summarize(out)
    assert "INCOMPLETE run (interrupted): 300 of 1,000 deals" in rep.text


def test_report_errors(tmp_path):
    with pytest.raises(RunError, match="not an nbsim run folder"):
        R.summarize(tmp_path)
    out = tmp_path / "r"
    SIM.simulate("ninghai", deals=50, seed=1, out=out)
    (out / "shard-00000.parquet").unlink()
    with pytest.raises(RunError, match="missing"):
        R.summarize(out)
    f = tmp_path / "f"
    f.write_text("x")
    out2 = tmp_path / "r2"
    SIM.simulate("ninghai", deals=50, seed=1, out=out2)
    with pytest.raises(RunError, match="not a folder"):
        R.write_report(out2, f)


def test_no_wild_variant_report(tmp_path):
    out = tmp_path / "nh"
    SIM.simulate("ninghai", deals=2_000, seed=3, out=out)
    rep = R.write_report(out)
    w = rep.tables["wilds_per_seat"].df
    assert w["wilds"].to_list() == [0] and w["E"][0] == 1.0


def test_wilson_helper():
    lo, hi = STATS.wilson(0, 100)
    assert lo == 0 and 0 < hi < 0.05
