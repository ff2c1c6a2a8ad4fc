"""What nbsim prints fits a 100-column terminal: the tables of ``nbsim
compare``, ``nbsim report`` and ``nbsim sweep`` (stacked blocks, wrapped
row names and headers), their prose lines, the output of ``advise``,
``duel``, ``pool-duels``, ``ladder``, ``band``, ``policies``, ``rules``,
``score`` and ``replay``, and `make demo` with other settings writes to
its own folder."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from nbsim.cli import cli
from nbsim.run import simulate as SIM
from nbsim.stats import text_columns, text_table

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 100                   # terminal columns (nbsim.stats.TEXT_WIDTH)


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
    return [(text_columns(line), line) for line in text.splitlines() if text_columns(line) > WIDTH]


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


# ------------------------------------------------ the other commands' terminal output
ADVISE = ["advise", "ningbo-3baida", "--hand", "123m456p789s1155z3p", "--drawn", "3p",
          "--indicator", "9m", "--discards", "E:19m", "--discards", "S:9s1z", "--discards",
          "W:5p", "--discards", "N:2z(7z)", "--melds", "W:pung:777z", "--seed", "1"]


@pytest.mark.parametrize("extra", [["--samples", "20"], ["--samples", "120", "--seat", "S"]])
def test_advise_fits(extra):
    """The candidates in a main table (what decides) and a detail table
    (targets, deal-in per opponent, exact own-draw), the legend wrapped."""
    text = _run([*ADVISE, *extra])
    assert _too_wide(text) == []
    main, detail = (line for line in text.splitlines() if line.startswith("move"))
    assert "E[pay] [95% CI]" in main and "deal-in" in main and "to N" not in main
    assert "full flush" in detail and "to W" in detail


def test_duel_and_pool_duels_fit(tmp_path):
    args = ["duel", "ningbo-3baida", "--a", "random", "--b", "greedy", "--seating", "1v3",
            "--among", "value", "--deals", "3", "--seed", "1", "--workers", "1"]
    text = _run(args)
    assert _too_wide(text) == [] and "one random seat among value players" in \
        " ".join(text.split())
    parts = []
    for first in (0, 3):
        parts.append(tmp_path / f"part{first}.json")
        parts[-1].write_text(_run([*args, "--first", str(first), "--json"]))
    text = _run(["pool-duels", *map(str, parts)])
    assert _too_wide(text) == [] and "6 duplicate deals" in text


def test_ladder_fits(tmp_path):
    text = _run(["ladder", "ningbo-3baida", "--policies", "random,greedy,value", "--deals",
                 "3", "--seed", "1", "--out", str(tmp_path / "ladder.md")])
    assert _too_wide(text) == [] and "| random | value |" in text


def test_band_fits(tmp_path):
    """Three styles' estimates side by side do not fit: stacked blocks (the
    markdown file keeps one table per statistic group)."""
    text = _run(["band", "ninghai", "--styles", "value,defend,defend:caution=0.9", "--deals",
                 "40", "--duel-deals", "2", "--seed", "1", "--out", str(tmp_path / "band"),
                 "--workers", "1", "--expert", "greedy", "--expert-deals", "10"])
    assert _too_wide(text) == []
    assert "duel against value" in text and "expert vs defend" in text
    assert "| statistic | value | defend | defend:caution=0.9 |" in \
        (tmp_path / "band" / "band.md").read_text(encoding="utf-8")


def test_policies_fit():
    text = _run(["policies"])
    assert _too_wide(text) == [] and "defend (default)" in text


@pytest.mark.parametrize("args", [["ningbo-3baida-tianyi"], ["ninghai"],
                                  ["ningbo-tongchengyou"],
                                  ["ninghai", "--set", "win.min_tai=3"]])
def test_rules_fit_and_read_back(args):
    """A long description is a TOML multi-line string: the output still
    reads back as the rules --json prints."""
    import json
    import tomllib
    text = _run(["rules", *args])
    assert _too_wide(text) == []
    assert tomllib.loads(text) == json.loads(_run(["rules", *args, "--json"]))["rules"]


def test_score_fits():
    text = _run(["score", "ninghai", "--hand", "111m999m111p99p11z", "--win-tile", "1z",
                 "--self-draw"])
    assert _too_wide(text) == [] and "tui_dao_ba" in text


@pytest.mark.parametrize("variant", ["ningbo-3baida", "ningbo-7baida", "ninghai"])
def test_replay_fits(variant):
    for deal in (1, 42):
        text = _run(["replay", variant, "--seed", "1", "--deal", str(deal)])
        assert _too_wide(text) == [] and "payments:" in text
    text = _run(["replay", variant, "--seed", "1", "--deal", "1", "--policies",
                 "defend,value,greedy,random"])
    assert _too_wide(text) == []
