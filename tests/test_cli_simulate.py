"""`nbsim simulate` and `nbsim report` through click's CliRunner, including
their error messages (one line, exit status 2, never a traceback)."""
from __future__ import annotations

import json
import re

import pytest

from nbsim.cli import cli


def _ok(result):
    assert result.exit_code == 0, result.output + str(result.exception)
    return result.output


def _err(result, code=2):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


def test_simulate_then_report(runner, tmp_path):
    out = tmp_path / "run"
    text = _ok(runner.invoke(cli, ["simulate", "ningbo-3baida", "--deals", "3000", "--seed",
                                   "5", "--out", str(out), "--shard-size", "1000",
                                   "--workers", "2"]))
    assert "3,000 deals in" in text and "3 shards" in text
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["workers"] == 2
    text = _ok(runner.invoke(cli, ["report", str(out)]))
    assert "heavenly hand (dealer complete):" in text and "95% Wilson CI" in text
    assert "Wilds held per seat" in text and "Flowers set aside per seat" in text
    assert (out / "report.md").is_file() and (out / "summary.json").is_file()
    rep2 = tmp_path / "elsewhere"
    _ok(runner.invoke(cli, ["report", str(out), "--out", str(rep2)]))
    assert (rep2 / "wilds_per_seat.png").is_file()


def test_set_override_recorded(runner, tmp_path):
    out = tmp_path / "run"
    _ok(runner.invoke(cli, ["simulate", "ningbo-3baida", "--deals", "100", "--seed", "1",
                            "--out", str(out), "--set", "wilds.wilds=7baida"]))
    m = json.loads((out / "manifest.json").read_text())
    assert m["overrides"] == ["wilds.wilds=7baida"]
    text = _ok(runner.invoke(cli, ["report", str(out)]))
    assert "--set wilds.wilds=7baida" in text


def test_existing_run_needs_overwrite(runner, tmp_path):
    out = tmp_path / "run"
    args = ["simulate", "ninghai", "--deals", "10", "--seed", "1", "--out", str(out)]
    _ok(runner.invoke(cli, args))
    text = _err(runner.invoke(cli, args))
    assert "already holds a run; use --overwrite" in text
    _ok(runner.invoke(cli, args + ["--overwrite"]))


@pytest.mark.parametrize("extra,msg", [
    (["--set", "wall.nope=1"], "unknown key 'nope' in [wall]"),
    (["--set", "win.min_tai=-3"], "min_tai"),
    (["--set", "nodots"], "expected TABLE.KEY=VALUE"),
    (["--policy", "value"], "--policy/--policies need --mode game"),
    (["--mode", "game", "--policies", "value,smart,value,value"], "unknown policy 'smart'"),
    (["--mode", "game", "--format", "rounds"], "Invalid value for '--format'"),
    (["--deals", "0"], "--deals must be 1.."),
    (["--seed", "-4"], "--seed must be 0.."),
    (["--workers", "0"], "--workers must be 1.."),
    (["--shard-size", "-1"], "--shard-size must be 1.."),
])
def test_simulate_errors(runner, tmp_path, extra, msg):
    args = ["simulate", "ningbo-3baida", "--deals", "10", "--seed", "1",
            "--out", str(tmp_path / "r")]
    text = _err(runner.invoke(cli, args + extra))
    assert msg in text


def test_bad_config_and_paths(runner, tmp_path):
    text = _err(runner.invoke(cli, ["simulate", "ningbo-9baida", "--deals", "10", "--seed",
                                    "1", "--out", str(tmp_path / "r")]))
    assert "no such file or shipped config" in text and "ningbo-3baida" in text
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[wall]\ndice_throws = 7\n')
    text = _err(runner.invoke(cli, ["simulate", str(bad), "--deals", "10", "--seed", "1",
                                    "--out", str(tmp_path / "r")]))
    assert "dice_throws" in text and str(bad) in text
    f = tmp_path / "afile"
    f.write_text("x")
    text = _err(runner.invoke(cli, ["simulate", "ninghai", "--deals", "10", "--seed", "1",
                                    "--out", str(f / "sub")]))
    assert "cannot create or write the folder" in text
    text = _err(runner.invoke(cli, ["simulate", "ninghai", "--deals", "10", "--seed", "1",
                                    "--out", str(f)]))
    assert "exists and is not a folder" in text
    text = _err(runner.invoke(cli, ["report", str(tmp_path / "nowhere")]))
    assert "does not exist" in text
    text = _err(runner.invoke(cli, ["report", str(tmp_path)]))
    assert "not an nbsim run folder" in text


def test_missing_required_options(runner, tmp_path):
    res = runner.invoke(cli, ["simulate", "ninghai", "--seed", "1", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "--deals" in res.output


@pytest.mark.parametrize("cmd", ["simulate", "report"])
def test_help(runner, cmd):
    text = _ok(runner.invoke(cli, [cmd, "--help"]))
    assert "Usage:" in text


def test_interrupted_run_exit_code(runner, tmp_path, monkeypatch):
    from nbsim.run import shards as SHARDS
    from nbsim.run import simulate as SIM
    real = SHARDS.run_shard

    def job(task, out, progress=None, **kw):
        if task.index == 1:
            raise KeyboardInterrupt
        return real(task, out, progress, **kw)

    monkeypatch.setattr(SIM, "run_shard", job)
    res = runner.invoke(cli, ["simulate", "ninghai", "--deals", "300", "--seed", "1",
                              "--out", str(tmp_path / "r"), "--shard-size", "100"])
    assert res.exit_code == 130
    assert re.search(r"interrupted: \d+ of 300 deals done", res.output)
