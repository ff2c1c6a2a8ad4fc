"""nbsim sweep: one run per value with the same seed, the table against the
value, paired differences from the first value, reuse of finished runs,
grids, bad options, the CLI."""
from __future__ import annotations

import importlib
import json

import polars as pl
import pytest
from click.testing import CliRunner

import nbsim
from nbsim.cli import cli
from nbsim.errors import ConfigError

SW = importlib.import_module("nbsim.analysis.sweeps")     # the module (nbsim.sweep is the function)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "min_tai"
    return out, nbsim.sweep("ningbo-3baida", "win.min_tai=3,5", deals=400, seed=9, out=out)


def test_sweep_runs_and_table(swept):
    out, res = swept
    assert [p["point"] for p in res.points] == ["win.min_tai=3", "win.min_tai=5"]
    assert [p["status"] for p in res.points] == ["ran", "ran"]
    frames = []
    for p in res.points:
        m = json.loads((out / SW.point_name([("win.min_tai", str(p["values"]["win.min_tai"]))])
                        / "manifest.json").read_text())
        assert m["seed"] == 9 and m["deals_done"] == 400
        assert m["overrides"] == [f"win.min_tai={p['values']['win.min_tai']}"]
        frames.append(nbsim.summarize(p["run_dir"]))
    assert res.table["win.min_tai"].to_list() == ["3", "5"]
    for row, rep in zip(res.table.to_dicts(), frames, strict=False):
        main = {r["statistic"]: r for r in rep.tables["main"].df.to_dicts()}
        assert row["win_rate"] == pytest.approx(main["win rate"]["estimate"])
        assert row["win_rate_ci_low"] == pytest.approx(main["win rate"]["ci_low"])
        assert row["mean_score"] == pytest.approx(main["mean tai of wins"]["estimate"])
    assert res.table["mean_score"][1] > res.table["mean_score"][0]     # min 5 > min 3
    d = res.diff.filter(pl.col("key") == "mean_score").row(0, named=True)
    assert d["pairing"] == "paired" and d["ci_low"] > 0
    for name in ("sweep.md", "sweep.json", "sweep.html", "sweep.png"):
        assert (out / name).is_file()
    assert "Statistics against the swept value" in res.text and "paired" in res.text


def test_sweep_skips_finished_runs(swept):
    out, first = swept
    again = nbsim.sweep("ningbo-3baida", ["win.min_tai=3,5"], deals=400, seed=9, out=out)
    assert [p["status"] for p in again.points] == ["skipped", "skipped"]
    assert again.table.equals(first.table)
    # another request (fewer deals, another seed): refused before any point runs, so the
    # finished runs stand; replaced with overwrite
    from nbsim.errors import RunError
    manifest = (out / "win.min_tai=3" / "manifest.json").read_bytes()
    with pytest.raises(RunError, match=r"win.min_tai=3' holds a run of another request \(it "
                                       r"holds 400 deals, more than the 300 asked for\)"):
        nbsim.sweep("ningbo-3baida", "win.min_tai=3,5", deals=300, seed=9, out=out)
    with pytest.raises(RunError, match=r"another request \(--seed is 10, the run's is 9\); "
                                       r"give another --out, or --overwrite"):
        nbsim.sweep("ningbo-3baida", "win.min_tai=3,5", deals=400, seed=10, out=out)
    assert (out / "win.min_tai=3" / "manifest.json").read_bytes() == manifest
    more = nbsim.sweep("ningbo-3baida", "win.min_tai=3,5", deals=300, seed=9, out=out,
                       overwrite=True)
    assert [p["status"] for p in more.points] == ["ran", "ran"]        # deals changed


def test_a_swept_key_is_not_also_set(tmp_path):
    with pytest.raises(ConfigError, match="--set 'win.min_tai=5': win.min_tai is swept"):
        nbsim.sweep("ningbo-3baida", "win.min_tai=3,4", deals=10, seed=1, out=tmp_path / "s",
                    overrides=["win.min_tai=5"])
    assert not (tmp_path / "s").exists()


def test_finished_points_are_recognised(swept):
    """The sweep asks nbsim.run.simulate.run_status whether a point's run is done."""
    from nbsim.run.simulate import run_status
    out, res = swept
    run = res.points[0]["run_dir"]
    m = json.loads((out / "win.min_tai=3" / "manifest.json").read_text())
    kw = dict(deals=m["deals"], seed=m["seed"], mode="game", overrides=m["overrides"],
              policies=m["policies"])
    assert run_status("ningbo-3baida", out=run, **kw) == "complete"
    assert run_status("ningbo-3baida", out=run, **{**kw, "seed": m["seed"] + 1}) == "different"
    assert run_status("ningbo-3baida", out=out / "nowhere", **kw) == "absent"


def test_grid_and_parse(tmp_path):
    assert SW.parse_vary(["win.min_tai=3,4", 'win.allowed_patterns=["full_flush","all_pungs"],[]'
                          ]) == [("win.min_tai", ["3", "4"]),
                                 ("win.allowed_patterns", ['["full_flush","all_pungs"]', "[]"])]
    assert SW.parse_vary({"win.min_tai": [3, 4], "win.self_draw_only": [True]}) == [
        ("win.min_tai", ["3", "4"]), ("win.self_draw_only", ["true"])]
    res = nbsim.sweep("ningbo-3baida", ["win.min_tai=4,5", "claims.allow_chow=true,false"],
                      deals=60, seed=2, out=tmp_path / "grid", mode="game")
    assert len(res.points) == 4 and res.keys == ["win.min_tai", "claims.allow_chow"]
    assert res.table.select("win.min_tai", "claims.allow_chow").rows() == [
        ("4", "True"), ("4", "False"), ("5", "True"), ("5", "False")]
    assert (tmp_path / "grid" / "win.min_tai=4,claims.allow_chow=false").is_dir()


@pytest.mark.parametrize("vary, match", [
    ("win.min_tai", "expected KEY=V1,V2"), ("win.min_tai=", "at least one value"),
    ("win.min_tai=3,3", "given twice"), ("win.nope=1,2", "unknown key 'nope'"),
    ("win.min_tai=3,x", "min_tai"), ([], "at least one --vary")])
def test_bad_vary(tmp_path, vary, match):
    with pytest.raises(ConfigError, match=match):
        nbsim.sweep("ningbo-3baida", vary, deals=10, seed=1, out=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()                 # refused before any run


def test_cli_sweep(tmp_path):
    r = CliRunner().invoke(cli, ["sweep", "ninghai", "--vary", "scoring.fan.all_pungs=1,2",
                                 "--deals", "80", "--seed", "3", "--out", str(tmp_path / "s")])
    assert r.exit_code == 0, r.output
    assert "scoring.fan.all_pungs=2" in r.output and "sweep.html" in r.output
    r = CliRunner().invoke(cli, ["sweep", "ninghai", "--vary", "bad", "--deals", "8",
                                 "--seed", "3", "--out", str(tmp_path / "t")])
    assert r.exit_code == 2 and "Error: --vary 'bad'" in r.output and "Traceback" not in r.output


def test_sweep_into_a_run_folder_refused(tmp_path):
    """A sweep folder that is a run folder (finished, or being written by a
    live process) is refused before any run, naming the writer."""
    from nbsim.errors import RunError
    from nbsim.run.lock import RunLock
    run = tmp_path / "run"
    nbsim.simulate("ningbo-3baida", deals=100, seed=1, out=run, workers=1)
    with pytest.raises(RunError, match="is a run folder .manifest.json.; a sweep needs"):
        nbsim.sweep("ningbo-3baida", "win.min_tai=3,4", deals=10, seed=1, out=run)
    busy = tmp_path / "busy"
    busy.mkdir()
    with RunLock(busy), pytest.raises(RunError, match=r"being written by process \d+"):
        nbsim.sweep("ningbo-3baida", "win.min_tai=3,4", deals=10, seed=1, out=busy)
    assert sorted(p.name for p in busy.iterdir()) == [".nbsim.lock"]
