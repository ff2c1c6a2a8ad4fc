"""`nbsim report` and `nbsim compare` on damaged run folders, through click's
CliRunner: one clear error naming the file and what is wrong, exit status 2,
never a traceback."""
from __future__ import annotations

import json
import shutil
import struct

import polars as pl
import pytest

from nbsim.cli import cli
from nbsim.run import simulate as SIM

SHARD = "shard-00001.parquet"       # the middle one of the three shards


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    out = tmp_path_factory.mktemp("damaged") / "base"
    SIM.simulate("ningbo-3baida", deals=300, seed=1, out=out, shard_size=100)
    return out


def _edit_manifest(change):
    def damage(run):
        m = json.loads((run / "manifest.json").read_text())
        change(m)
        (run / "manifest.json").write_text(json.dumps(m))
    return damage


def _write(name, text):
    return lambda run: (run / name).write_text(text)


def _rewrite_shard(change):
    def damage(run):
        p = run / SHARD
        change(pl.read_parquet(p)).write_parquet(p)
    return damage


def _zero_data_pages(run):
    """Keep the Parquet header and footer (so the schema reads fine) but
    zero every data page in between."""
    p = run / SHARD
    b = bytearray(p.read_bytes())
    footer = struct.unpack("<i", b[-8:-4])[0]
    b[4:len(b) - 8 - footer] = bytes(len(b) - 12 - footer)
    p.write_bytes(b)


# (id, damage, texts the one-line message must contain)
CASES = [
    ("junk-shard", _write(SHARD, "junk\n"),
     [SHARD, "not a readable Parquet file"]),
    ("manifest-list", _write("manifest.json", "[]"),
     ["manifest.json", "should be a JSON object, got an array"]),
    ("manifest-empty-object", _write("manifest.json", "{}"),
     ["manifest.json", "missing required keys: format, mode, config, seed, deals, "
      "deals_done, status, shards, schema"]),
    ("manifest-invalid-json", _write("manifest.json", '{"format": '),
     ["manifest.json", "cannot read the manifest"]),
    ("manifest-missing", lambda run: (run / "manifest.json").unlink(),
     ["not an nbsim run folder", "no manifest.json"]),
    ("format-unknown", _edit_manifest(lambda m: m.update(format="other/9")),
     ["manifest.json", "'format' should be 'nbsim-run/1', got 'other/9'"]),
    ("deals-done-text", _edit_manifest(lambda m: m.update(deals_done="x")),
     ["manifest.json", "'deals_done' should be a valid integer, got 'x'"]),
    ("deals-negative", _edit_manifest(lambda m: m.update(deals=-3)),
     ["manifest.json", "'deals' should be greater than or equal to 0, got -3"]),
    ("seed-bool", _edit_manifest(lambda m: m.update(seed=True)),
     ["manifest.json", "'seed' should be a valid integer, got True"]),
    ("status-number", _edit_manifest(lambda m: m.update(status=5)),
     ["manifest.json", "'status' should be a valid string, got 5"]),
    ("config-text", _edit_manifest(lambda m: m.update(config="x")),
     ["manifest.json", "'config' should be a JSON object, got 'x'"]),
    ("config-name-missing", _edit_manifest(lambda m: m["config"].pop("name")),
     ["manifest.json", "missing required key: config.name"]),
    ("overrides-text", _edit_manifest(lambda m: m.update(overrides="win.min_tai=5")),
     ["manifest.json", "'overrides' should be a valid list"]),
    ("policies-text", _edit_manifest(lambda m: m.update(policies="value")),
     ["manifest.json", "'policies' should be a valid list"]),
    ("shards-object", _edit_manifest(lambda m: m.update(shards={"a": 1})),
     ["manifest.json", "'shards' should be a valid list"]),
    ("shard-entry-without-file", _edit_manifest(lambda m: m["shards"][1].pop("file")),
     ["manifest.json", "missing required key: shards.1.file"]),
    ("schema-list", _edit_manifest(lambda m: m.update(schema=["deal"])),
     ["manifest.json", "'schema' should be a valid dictionary"]),
    ("tai-value-text",
     _edit_manifest(lambda m: m["rules"]["scoring"]["tai"].update(self_drawn="one")),
     ["manifest.json", "'rules.scoring.tai.self_drawn' should be a valid integer"]),
    ("scoring-system-unknown",
     _edit_manifest(lambda m: m["rules"]["scoring"].update(system="chips")),
     ["manifest.json", "'rules.scoring.system' should be 'tai' or 'fan_fu', got 'chips'"]),
    ("mode-unknown", _edit_manifest(lambda m: m.update(mode="weird")),
     ["manifest.json", "no report for mode 'weird'; allowed: deal, game"]),
    ("no-shard", _edit_manifest(lambda m: m.update(shards=[])),
     ["the run has no finished shard yet"]),
    ("shard-missing", lambda run: (run / SHARD).unlink(),
     ["shard files listed in the manifest are missing", SHARD]),
    ("shard-unrelated-frame", lambda run: pl.DataFrame({"x": [1, 2]}).write_parquet(run / SHARD),
     [SHARD, "the columns do not match the run's schema (missing deal, seed, dice, "
      "indicator, wild_kinds and 13 more; unexpected x)"]),
    ("shard-extra-column", _rewrite_shard(lambda df: df.with_columns(pl.lit(1).alias("junk"))),
     [SHARD, "the columns do not match the run's schema (unexpected junk)"]),
    ("shard-wrong-type",
     _rewrite_shard(lambda df: df.with_columns(pl.col("dealer_complete").cast(pl.String))),
     [SHARD, "column types do not match the run's schema (dealer_complete is String, "
      "not Boolean)"]),
    ("shard-corrupt-pages", _zero_data_pages,
     [SHARD, "damaged Parquet file"]),
]


def _damaged(base, tmp_path, damage):
    run = tmp_path / "run"
    shutil.copytree(base, run)
    damage(run)
    return run


def _assert_clean_error(res, texts):
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    for text in texts:
        assert text in lines[0]


@pytest.mark.parametrize("damage, texts", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_report_damaged_run(base, tmp_path, runner, damage, texts):
    run = _damaged(base, tmp_path, damage)
    res = runner.invoke(cli, ["report", str(run), "--out", str(tmp_path / "rep")])
    _assert_clean_error(res, texts)
    assert not (tmp_path / "rep").exists()         # nothing written


@pytest.mark.parametrize("damage, texts", [c[1:] for c in CASES if c[0] != "mode-unknown"],
                         ids=[c[0] for c in CASES if c[0] != "mode-unknown"])
def test_compare_damaged_run(base, tmp_path, runner, damage, texts):
    run = _damaged(base, tmp_path, damage)
    res = runner.invoke(cli, ["compare", str(base), str(run)])
    _assert_clean_error(res, texts)


def test_compare_unknown_mode(base, tmp_path, runner):
    run = _damaged(base, tmp_path, _edit_manifest(lambda m: m.update(mode="weird")))
    res = runner.invoke(cli, ["compare", str(base), str(run)])
    _assert_clean_error(res, ["cannot compare runs of different modes", "weird"])


def test_many_problems_are_capped(base, tmp_path, runner):
    run = _damaged(base, tmp_path, _write("manifest.json", json.dumps(
        {"format": 1, "mode": 2, "config": 3, "seed": "a", "deals": "b", "deals_done": "c"})))
    res = runner.invoke(cli, ["report", str(run)])
    _assert_clean_error(res, ["manifest.json", "missing required keys: status, shards, schema",
                              "'format' should be 'nbsim-run/1', got 1", "and 2 more"])


def test_undamaged_run_still_reports(base, tmp_path, runner):
    res = runner.invoke(cli, ["report", str(base), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert "heavenly hand" in res.output
