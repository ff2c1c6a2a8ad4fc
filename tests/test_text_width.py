"""What nbsim prints fits a 100-column terminal: the tables of ``nbsim
compare``, ``nbsim report`` and ``nbsim sweep`` (stacked blocks, wrapped
row names and headers), their prose lines, and `make demo` with other
settings writes to its own folder."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from nbsim.analysis.stats import _columns, text_table
from nbsim.cli import cli
from nbsim.run import simulate as SIM

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 100                   # terminal columns (nbsim.analysis.stats.TEXT_WIDTH)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """Small game runs of the demo's three variants (tai and Ninghai points)."""
    base = tmp_path_factory.mktemp("width")
    out = []
    for name in ("ningbo-3baida", "ningbo-7baida", "ninghai"):
        SIM.simulate(name, mode="game", deals=300, seed=1, out=base / name, workers=1)
        out.append(base / name)
    return out


def _too_wide(text: str) -> list[tuple[int, str]]:
    return [(_columns(line), line) for line in text.splitlines() if _columns(line) > WIDTH]


def _run(args: list[str]) -> str:
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return res.output


def test_compare_fits(three, tmp_path):
    text = _run(["compare", *map(str, three), "--out", str(tmp_path / "cmp")])
    assert _too_wide(text) == []
    assert "ninghai [defend] - ningbo-3baida [defend]:" in text     # one block per run
    # every run's estimates are printed (in stacked blocks when they do not fit side by side)
    assert all(f"{name} [defend]" in text for name in ("ningbo-3baida", "ningbo-7baida",
                                                         "ninghai"))


@pytest.mark.parametrize("which", [0, 2])
def test_report_fits(three, tmp_path, which):
    text = _run(["report", str(three[which]), "--out", str(tmp_path / "rep")])
    assert _too_wide(text) == []
    assert "mean_tai" in text or "mean_fan" in text      # the item tables are printed


def test_sweep_fits(tmp_path):
    text = _run(["sweep", "ningbo-3baida", "--vary", "win.min_tai=3,5", "--vary",
                 "scoring.tai.full_flush=8,10", "--deals", "150", "--seed", "2",
                 "--out", str(tmp_path / "sw")])
    assert _too_wide(text) == []
    assert ("win.min_tai=5, scoring.tai.full_flush=10 - win.min_tai=3, "
            "scoring.tai.full_flush=8:") in text


def test_text_table_blocks_repeat_row_names():
    cell = "0.4235 [0.4012, 0.4461]"
    df = pl.DataFrame({"statistic": ["dealer advantage: P(E wins) - P(S, W or N wins)/3",
                                     "win rate"],
                       **{f"variant-{i} (win.min_tai={i}) [defend]": [cell, cell]
                          for i in range(5)}})
    text = text_table(df)
    assert _too_wide(text) == []
    blocks = text.split("\n\n")
    assert len(blocks) > 1 and all("statistic" in b and "win rate" in b for b in blocks)
    assert text.count(cell) == 10                               # no cell lost or cut
    assert text_table(df, width=10_000).count("\n") == 2        # one block when wide enough


def _make_outs(*settings: str) -> set[str]:
    res = subprocess.run(["make", "-n", "demo", *settings], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return {w for line in res.stdout.splitlines() if "nbsim compare" in line
            for w in [line.rsplit("--out", 1)[1].strip()]}


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_quick_demo_has_its_own_folder():
    assert _make_outs() == {"runs/demo"}
    assert _make_outs("DEMO_DEALS=200000") == {"runs/demo"}
    assert _make_outs("DEMO_DEALS=20000") == {"runs/demo-20000"}
    assert _make_outs("DEMO_VARIANTS=ninghai ningbo-3baida") == \
        {"runs/demo-ninghai+ningbo-3baida"}
    assert _make_outs("DEMO_DEALS=20000", "DEMO_OUT=/tmp/mine") == {"/tmp/mine"}
