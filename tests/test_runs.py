"""Deal mode: the batch kernel, the Parquet run folder and its manifest."""
from __future__ import annotations

import json
from math import sqrt

import numpy as np
import polars as pl
import pytest
from scipy.stats import chisquare

from nbsim.errors import ConfigError, RunError, RunInterrupted
from nbsim.kernels import batch as KB
from nbsim.rules.ruleset import load_rules
from nbsim.rules.tiles import parse_counts, parse_tiles
from nbsim.run import files as FILES
from nbsim.run import schema as S
from nbsim.run import shards as SHARDS
from nbsim.run import simulate as SIM

import exact_heavenly as E


def _batch(name, seed, start, n, tables):
    rs = load_rules(name)
    hands = np.empty((n, 4, 42), np.int8)
    fl = np.empty((n, 4), np.uint8)
    wh = np.empty((n, 4), np.uint8)
    dice = np.empty((n, 4), np.uint8)
    ind = np.empty(n, np.int8)
    comp = np.empty(n, np.bool_)
    k = KB.deal_batch(rs.array, np.uint64(seed), np.int64(start), tables, hands, fl, wh,
                      dice, ind, comp)
    return k, hands, fl, wh, dice, ind, comp


def test_deal_frame_schema_and_rows(tables):
    df = SIM.deal_frame(load_rules("ningbo-3baida"), 5, 10, 410, tables)
    assert df.schema == S.schema("deal")
    assert df["deal"].to_list() == list(range(10, 410))
    assert (df["seed"] == 5).all()
    for row in df.iter_rows(named=True):
        assert len(row["dice"]) == 2 and all(1 <= d <= 6 for d in row["dice"])
        wild = set(parse_tiles("".join(row["wild_kinds"])))
        assert parse_tiles(row["indicator"])[0] in wild or len(wild) == 3
        for s in S.SEAT_SUFFIXES:
            kinds = parse_tiles(row[f"hand_{s}"])
            assert len(kinds) == (14 if s == "e" else 13)
            assert row[f"wilds_{s}"] == sum(1 for k in kinds if k in wild)
            assert all(k < 34 or k in wild for k in kinds)       # no non-wild flower
            fl = parse_tiles(row[f"flowers_{s}"])
            assert all(k >= 34 and k not in wild for k in fl)


def test_ninghai_rows_have_no_indicator(tables):
    df = SIM.deal_frame(load_rules("ninghai"), 5, 0, 200, tables)
    assert df["indicator"].null_count() == 200
    assert df["wild_kinds"].list.len().sum() == 0
    assert (df["dice"].list.len() == 4).all()
    assert (df.select(S.seat_columns("wilds")).sum_horizontal() == 0).all()


def test_dealer_complete_agrees_with_independent_check(tables):
    """Every dealer hand flagged complete (and a sample of the others) agrees
    with the automaton of tests/exact_heavenly.py (shares no code)."""
    k, hands, fl, wh, dice, ind, comp = _batch("ningbo-7baida", 17, 0, 60_000, tables)
    rs = load_rules("ningbo-7baida")
    from nbsim.kernels.wilds import wild_kinds
    idx = list(np.flatnonzero(comp)) + list(range(0, 60_000, 40))
    assert comp.sum() > 5
    for i in idx:
        wild = set(wild_kinds(rs.array, int(ind[i])))
        nat = [0 if kk in wild else int(hands[i, 0, kk]) for kk in range(34)]
        assert E.hand_complete(nat, int(wh[i, 0])) == bool(comp[i]), i


def test_small_sample_agrees_with_exact(tables):
    """A quick version of `make validate`: 7-baida heavenly hand within 4
    standard errors, and the dealer's wilds against the closed form."""
    n = 300_000
    k, hands, fl, wh, dice, ind, comp = _batch("ningbo-7baida", 3, 0, n, tables)
    p = float(E.heavenly_probability("7baida"))
    assert abs(k / n - p) < 4 * sqrt(p * (1 - p) / n)
    dist = E.wilds_distribution("7baida", 14)
    obs = np.bincount(wh[:, 0], minlength=8)
    exp = np.array([float(dist.get(w, 0)) * n for w in range(8)])
    keep = exp >= 5
    obs_k = np.append(obs[keep], obs[~keep].sum())
    exp_k = np.append(exp[keep], exp[~keep].sum())
    assert chisquare(obs_k, exp_k).pvalue > 1e-4


def _read(out):
    return pl.concat([pl.read_parquet(p) for p in FILES.shard_paths(out)])


def test_same_rows_for_any_shard_size_and_worker_count(tmp_path, tables):
    a = SIM.simulate("ningbo-3baida", deals=2_500, seed=77, out=tmp_path / "a")
    b = SIM.simulate("ningbo-3baida", deals=2_500, seed=77, out=tmp_path / "b",
                     shard_size=333, workers=2)
    c = SIM.simulate("ningbo-3baida", deals=2_500, seed=77, out=tmp_path / "c",
                     shard_size=1000, workers=3)
    assert len(a.shards) == 1 and len(b.shards) == 8 and len(c.shards) == 3
    da, db, dc = _read(a.out), _read(b.out), _read(c.out)
    assert da.equals(db) and da.equals(dc)
    d = SIM.simulate("ningbo-3baida", deals=2_500, seed=78, out=tmp_path / "d")
    assert not da.equals(_read(d.out))
    # a later slice of the same run is the same rows
    tail = SIM.deal_frame(load_rules("ningbo-3baida"), 77, 2_000, 2_500, tables)
    assert tail.equals(da.slice(2_000))


def test_manifest(tmp_path):
    out = tmp_path / "run"
    res = SIM.simulate("ningbo-3baida", deals=1_000, seed=9, out=out, shard_size=400,
                       overrides=["wilds.wilds=7baida"])
    m = json.loads((out / "manifest.json").read_text())
    rs = load_rules("ningbo-3baida", ["wilds.wilds=7baida"])
    assert m["status"] == "complete" and m["deals"] == m["deals_done"] == 1_000
    assert m["seed"] == 9 and m["mode"] == "deal" and m["shard_size"] == 400
    assert m["config"]["hash"] == rs.hash and m["config"]["name"] == "ningbo-3baida"
    assert 'name = "ningbo-3baida"' in m["config"]["text"]
    assert m["overrides"] == ["wilds.wilds=7baida"]
    assert m["rules"]["wilds"]["wilds"] == "7baida"
    assert m["schema"] == S.schema_json("deal")
    assert m["nbsim_version"]
    assert [s["file"] for s in m["shards"]] == ["shard-00000.parquet", "shard-00001.parquet",
                                                 "shard-00002.parquet"]
    assert sum(s["deals"] for s in m["shards"]) == 1_000
    df = _read(out)
    assert (df["wild_kinds"].list.len() >= 2).all()          # the override took effect
    assert m["dealer_complete"] == res.dealer_complete == int(df["dealer_complete"].sum())


def test_out_folder_rules(tmp_path):
    out = tmp_path / "run"
    SIM.simulate("ninghai", deals=10, seed=1, out=out)
    with pytest.raises(RunError, match="already holds a run; use --overwrite"):
        SIM.simulate("ninghai", deals=10, seed=1, out=out)
    (out / "notes.txt").write_text("mine")
    for name in ("report.md", "report.html", "outcomes.png"):
        (out / name).write_text("old report")
    SIM.simulate("ninghai", deals=20, seed=2, out=out, overwrite=True)
    assert (out / "notes.txt").read_text() == "mine"      # not ours: kept
    for name in ("report.md", "report.html", "outcomes.png"):
        assert not (out / name).exists()                  # ours: replaced
    assert json.loads((out / "manifest.json").read_text())["deals"] == 20
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.csv").write_text("x")
    with pytest.raises(RunError, match="holds no nbsim run"):
        SIM.simulate("ninghai", deals=10, seed=1, out=other, overwrite=True)
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(RunError, match="not a folder"):
        SIM.simulate("ninghai", deals=10, seed=1, out=f)
    with pytest.raises(RunError, match="cannot create"):
        SIM.simulate("ninghai", deals=10, seed=1, out=f / "sub")


@pytest.mark.parametrize("kwargs,msg", [
    (dict(deals=0), "--deals must be"),
    (dict(deals=1.5), "--deals must be a whole number"),
    (dict(seed=-1), "--seed must be"),
    (dict(seed=2**64), "--seed must be"),
    (dict(shard_size=0), "--shard-size must be"),
    (dict(workers=0), "--workers must be"),
    (dict(events=True), "need --mode game"),
    (dict(mode="game", fmt="rounds"), "unknown --format 'rounds'; allowed: deals, matches"),
    (dict(mode="game", policies=("value", "greedy")), "give 4 policies"),
    (dict(mode="duel"), "unknown mode 'duel'; available modes: deal, game"),
])
def test_bad_arguments(tmp_path, kwargs, msg):
    args = dict(deals=10, seed=1, out=tmp_path / "r")
    args.update(kwargs)
    with pytest.raises(RunError, match=msg):
        SIM.simulate("ningbo-3baida", **args)
    assert not (tmp_path / "r").exists()


def test_bad_config_and_override(tmp_path):
    with pytest.raises(ConfigError, match="no such file or shipped config"):
        SIM.simulate("no-such-variant", deals=10, seed=1, out=tmp_path / "r")
    with pytest.raises(ConfigError, match="unknown key"):
        SIM.simulate("ningbo-3baida", deals=10, seed=1, out=tmp_path / "r",
                     overrides=["wall.nope=1"])


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupt_keeps_finished_shards(tmp_path, monkeypatch, workers):
    real = SHARDS.run_shard

    def job(task, out, progress=None, **kw):
        if task.index == 2:
            raise KeyboardInterrupt
        return real(task, out, progress, **kw)

    monkeypatch.setattr(SIM, "run_shard", job)
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted, match="interrupted: .* of 1,000 deals done"):
        SIM.simulate("ningbo-3baida", deals=1_000, seed=4, out=out, shard_size=100,
                     workers=workers)
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "interrupted"
    files = sorted(p.name for p in out.glob("shard-*"))
    assert files == [s["file"] for s in m["shards"]]          # no temporary files left
    assert m["deals_done"] == sum(s["deals"] for s in m["shards"])
    assert "shard-00002.parquet" not in files
    if workers == 1:
        assert files == ["shard-00000.parquet", "shard-00001.parquet"]
    df = _read(out)
    assert df["deal"].to_list() == [d for s in m["shards"]
                                    for d in range(s["first_deal"], s["first_deal"] + s["deals"])]


def test_scan_run_errors(tmp_path):
    with pytest.raises(RunError, match="does not exist"):
        FILES.scan_run(tmp_path / "missing")
    with pytest.raises(RunError, match="not an nbsim run folder"):
        FILES.scan_run(tmp_path)


def test_hand_notation_formatting_matches_tiles_module(tables):
    k, hands, fl, wh, dice, ind, comp = _batch("ningbo-3baida", 2, 0, 500, tables)
    df = SIM.deal_frame(load_rules("ningbo-3baida"), 2, 0, 500, tables)
    for i in range(0, 500, 7):
        for s, suf in enumerate(S.SEAT_SUFFIXES):
            assert (parse_counts(df[f"hand_{suf}"][i]) == hands[i, s]).all()


def test_largest_seed(tmp_path):
    res = SIM.simulate("ningbo-3baida", deals=20, seed=2**64 - 1, out=tmp_path / "r")
    df = _read(res.out)
    assert (df["seed"] == 2**64 - 1).all() and df.schema == S.schema("deal")
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert m["seed"] == 2**64 - 1


def test_a_run_from_before_a_new_parameter_still_resumes(tmp_path):
    """A manifest whose policy specs lack a parameter added since takes the
    parameter's ``before`` value (the play of that time): a defend run
    written before ``hold`` is a run of defend:hold=0, so it is complete for
    that request and 'different' from today's defend (hold 0.15)."""
    out = tmp_path / "r"
    SIM.simulate("ningbo-3baida", mode="game", deals=40, seed=3, out=out,
                 policies=("defend:hold=0",) * 4, progress=False)
    mpath = out / "manifest.json"
    m = json.loads(mpath.read_text())
    assert all(p.endswith(":hold=0") for p in m["policies"])
    m["policies"] = [p.removesuffix(":hold=0") for p in m["policies"]]
    mpath.write_text(json.dumps(m))
    assert SIM.run_status("ningbo-3baida", mode="game", deals=40, seed=3, out=out,
                          policies=("defend:hold=0",) * 4) == "complete"
    assert SIM.run_status("ningbo-3baida", mode="game", deals=40, seed=3, out=out,
                          policies=("defend",) * 4) == "different"
    m["policies"] = ["defend:caution=0.9"] * 4
    mpath.write_text(json.dumps(m))
    assert SIM.run_status("ningbo-3baida", mode="game", deals=40, seed=3, out=out,
                          policies=("defend:hold=0",) * 4) == "different"
