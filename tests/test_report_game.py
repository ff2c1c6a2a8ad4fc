"""nbsim report on game-mode runs: every table checked against numbers
computed directly from the rows (numpy / plain Python on the DataFrame),
intervals, files, the CLI, Ninghai, mixed policies and matches."""
from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from scipy import stats

from nbsim import stats as STATS
from nbsim.analysis.report import report as R
from nbsim.cli import cli
from nbsim.run import files as FILES
from nbsim.run import simulate as SIM

SEATS = ("E", "S", "W", "N")


def _frame(out):
    return pl.concat([pl.read_parquet(p) for p in FILES.shard_paths(out)])


@pytest.fixture(scope="module")
def tai_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "g3"
    SIM.simulate("ningbo-3baida", mode="game", deals=2_000, seed=21, out=out, shard_size=700,
                 workers=1, policies=("value",) * 4)
    return out


@pytest.fixture(scope="module")
def tai_rep(tai_run):
    return R.summarize(tai_run), _frame(tai_run)


@pytest.fixture(scope="module")
def nh_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "nh"
    SIM.simulate("ninghai", mode="game", deals=1_500, seed=4, out=out, workers=1)
    return out


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "mixed"
    SIM.simulate("ningbo-3baida", mode="game", deals=1_200, seed=8, out=out, workers=1,
                 policies=("value", "greedy", "greedy", "random"))
    return out


@pytest.fixture(scope="module")
def match_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "matches"
    SIM.simulate("ningbo-3baida", mode="game", deals=12, seed=3, out=out, workers=1,
                 fmt="matches", policies=("value", "greedy", "value", "random"))
    return out


def _winner_gain(rows: list[dict]) -> list[int]:
    return [r[f"pay_{r['winner'].lower()}"] for r in rows if r["winner"] is not None]


def _check_ci(df, est="p", lo="ci_low", hi="ci_high"):
    for e, a, b in zip(df[est], df[lo], df[hi], strict=False):
        if e is None:
            continue
        assert a - 1e-12 <= e <= b + 1e-12, (a, e, b)


# ------------------------------------------------------------------ tai variant
def test_table_set(tai_rep):
    rep, _ = tai_rep
    assert list(rep.tables) == ["main", "outcomes", "win_means", "tai_distribution",
                                "tai_items", "pay_per_seat", "pay_by_policy", "winner_gain",
                                "by_seat", "game_length", "flowers_per_seat"]


def test_outcomes(tai_rep):
    rep, df = tai_rep
    n = df.height
    c = Counter(df["outcome"].to_list())
    wins = n - c["wall_exhausted"]
    t = {r["event"]: r for r in rep.tables["outcomes"].df.to_dicts()}
    expect = {"win": (wins, n), "self-drawn win": (c["self_drawn"], n),
              "discard win": (c["discard"], n), "robbing the kong": (c["robbing_kong"], n),
              "wall exhausted": (c["wall_exhausted"], n),
              "self-drawn share of wins": (c["self_drawn"], wins)}
    assert set(t) == set(expect)
    for ev, (k, m) in expect.items():
        row = t[ev]
        assert (row["count"], row["n"]) == (k, m)
        assert row["p"] == pytest.approx(k / m)
        ci = stats.binomtest(k, m).proportion_ci(method="wilson")
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high))
    _check_ci(rep.tables["outcomes"].df)
    assert sum(t[e]["count"] for e in ("self-drawn win", "discard win", "robbing the kong",
                                       "wall exhausted")) == n


def test_main_table_matches_tables(tai_rep):
    rep, df = tai_rep
    main = {r["statistic"]: r for r in rep.tables["main"].df.to_dicts()}
    assert list(main) == ["win rate", "self-drawn share", "wall-exhausted rate",
                          "mean tai of wins"]
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    assert main["win rate"]["estimate"] == pytest.approx(wins.height / df.height)
    assert main["mean tai of wins"]["estimate"] == pytest.approx(wins["tai"].mean())
    assert main["mean tai of wins"]["interval"] == "t"
    _check_ci(rep.tables["main"].df, "estimate")
    for label in main:
        assert label in rep.text
    assert "played out (policy value)" in rep.text


def test_win_means(tai_rep):
    rep, df = tai_rep
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    t = {r["quantity"]: r for r in rep.tables["win_means"].df.to_dicts()}
    tai = wins["tai"].to_numpy().astype(float)
    row = t["tai"]
    assert row["n"] == len(tai) and row["mean"] == pytest.approx(tai.mean())
    assert row["sd"] == pytest.approx(tai.std(ddof=1))
    ci = stats.ttest_1samp(tai, 0).confidence_interval(0.95)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert (row["min"], row["max"]) == (tai.min(), tai.max())
    gain = np.array(_winner_gain(wins.to_dicts()), float)
    g = t["winner's gain (points)"]
    assert g["mean"] == pytest.approx(gain.mean()) and g["median"] == np.median(gain)
    assert gain.min() > 0                      # the winner always gains
    _check_ci(rep.tables["win_means"].df, "mean")


def test_tai_distribution(tai_rep):
    rep, df = tai_rep
    tai = df["tai"].drop_nulls().to_list()
    c = Counter(tai)
    d = rep.tables["tai_distribution"].df
    assert d["tai"].to_list() == list(range(min(tai), max(tai) + 1))
    assert min(tai) >= 4                       # min_tai of ningbo-3baida
    for k, wins, p, ge in d.select("tai", "wins", "p", "p_at_least").iter_rows():
        assert wins == c.get(k, 0) and p == pytest.approx(wins / len(tai))
        assert ge == pytest.approx(sum(v for t, v in c.items() if t >= k) / len(tai))
    assert d["p"].sum() == pytest.approx(1.0) and d["p_at_least"][0] == pytest.approx(1.0)
    _check_ci(d)
    _check_ci(d, "p_at_least", "ge_ci_low", "ge_ci_high")


def test_tai_items(tai_rep):
    rep, df = tai_rep
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    items = rep.tables["tai_items"].df
    cols = [c for c in df.columns if c.startswith("tai_")]
    assert sorted(items["item"].to_list()) == sorted(c[4:] for c in cols)
    ps = items["p"].to_list()
    known = [p for p in ps if p is not None]
    assert known == sorted(known, reverse=True)                # most frequent first
    assert ps[:len(known)] == known                            # unknown (0-tai) items last
    for r in items.to_dicts():
        x = wins[f"tai_{r['item']}"].to_numpy()
        assert r["mean_tai"] == pytest.approx(x.mean())
        if r["tai"] == 0:                                      # chicken_hand in 3-baida
            k = int(wins[f"has_{r['item']}"].sum())            # counted from its presence
            assert k > 0 and r["wins"] == k and r["p"] == pytest.approx(k / wins.height)
            assert r["ci_low"] <= r["p"] <= r["ci_high"]
        else:
            assert r["wins"] == int((x > 0).sum()) and r["p"] == pytest.approx((x > 0).mean())
            assert r["ci_low"] <= r["p"] <= r["ci_high"]
    # the items add up to the total tai (docs/rules.md §6)
    assert items["mean_tai"].sum() == pytest.approx(wins["tai"].mean())
    assert items["share_of_tai"].sum() == pytest.approx(1.0)
    sd = items.filter(pl.col("item") == "self_drawn").row(0, named=True)
    assert sd["wins"] == (wins["outcome"] == "self_drawn").sum()


def test_payments(tai_rep):
    rep, df = tai_rep
    pay = rep.tables["pay_per_seat"].df
    for seat, mean, sd in pay.select("seat", "mean", "sd").iter_rows():
        x = df[f"pay_{seat.lower()}"].to_numpy().astype(float)
        assert mean == pytest.approx(x.mean()) and sd == pytest.approx(x.std(ddof=1))
    assert pay["mean"].sum() == pytest.approx(0.0, abs=1e-9)     # zero-sum payments
    assert pay["dealer"].to_list() == [True, False, False, False]
    _check_ci(pay, "mean")
    pol = rep.tables["pay_by_policy"].df.row(0, named=True)
    assert pol["policy"] == "value" and pol["seats"] == 4 and pol["mean_pay"] == 0
    wins = (df["outcome"] != "wall_exhausted").sum()
    assert pol["win_rate"] == pytest.approx(wins / df.height / 4)
    gain = Counter(_winner_gain(df.to_dicts()))
    g = rep.tables["winner_gain"].df
    assert g["wins"].sum() == sum(gain.values())
    if (g["gain_from"] == g["gain_to"]).all():
        assert dict(zip(g["gain_from"], g["wins"], strict=False)) == dict(gain)
    else:
        for lo, hi, w in g.select("gain_from", "gain_to", "wins").iter_rows():
            assert w == sum(v for k, v in gain.items() if lo <= k <= hi)
    assert g["p"].sum() == pytest.approx(1.0)


def test_by_seat_and_length(tai_rep):
    rep, df = tai_rep
    n = df.height
    by = {r["seat"]: r for r in rep.tables["by_seat"].df.to_dicts()}
    winners = Counter(df["winner"].to_list())
    discarders = Counter(df["discarder"].to_list())
    for s in SEATS:
        assert by[s]["wins"] == winners[s] and by[s]["p_win"] == pytest.approx(winners[s] / n)
        assert by[s]["dealt_in"] == discarders[s]
        assert by[s]["dealer"] == (s == "E")
    other = by["S W N (per seat)"]
    k = sum(winners[s] for s in "SWN")
    assert other["p_win"] == pytest.approx(k / n / 3)
    lo, hi = STATS.wilson(k, n)
    assert (other["ci_low"], other["ci_high"]) == pytest.approx((lo / 3, hi / 3))
    _check_ci(rep.tables["by_seat"].df, "p_win")
    _check_ci(rep.tables["by_seat"].df, "p_dealt_in", "di_ci_low", "di_ci_high")
    gl = {r["quantity"]: r for r in rep.tables["game_length"].df.to_dicts()}
    assert gl["turns (discards)"]["mean"] == pytest.approx(df["turns"].mean())
    assert gl["tiles left"]["mean"] == pytest.approx(df["tiles_left"].mean())
    assert gl["kongs declared"]["mean"] == pytest.approx(df["kongs"].cast(pl.Float64).mean())
    _check_ci(rep.tables["game_length"].df, "mean")


def test_write_report_files(tai_run, tmp_path):
    rep = R.write_report(tai_run, tmp_path / "rep")
    names = sorted(p.name for p in rep.files)
    assert names == sorted(["report.md", "summary.json", "report.html", "outcomes.png",
                            "tai_distribution.png", "tai_items.png", "payments.png",
                            "flowers_per_seat.png"])
    for p in rep.files:
        assert p.is_file() and p.stat().st_size > 0
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert summary["run"]["mode"] == "game" and summary["run"]["policies"] == ["value"] * 4
    assert set(summary["tables"]) == set(rep.tables)
    assert summary["tables"]["outcomes"]["rows"][0]["n"] == 2_000
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Tai items: how often each applies to a win" in md
    assert "Wilson" in md and "t intervals" in md and "![payments](payments.png)" in md


def test_cli_report_game(tai_run, tmp_path):
    res = CliRunner().invoke(cli, ["report", str(tai_run), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    for s in ("win rate", "self-drawn share", "wall-exhausted rate", "mean tai of wins",
              "Mean net points per deal by seat"):
        assert s in res.output
    assert (tmp_path / "o" / "tai_items.png").is_file()


# ------------------------------------------------------------------ Ninghai
def test_ninghai_report(nh_run, tmp_path):
    rep = R.write_report(nh_run, tmp_path / "nh")
    df = _frame(nh_run)
    assert "tai_items" not in rep.tables and "tai_distribution" not in rep.tables
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    fan = Counter(wins["fan"].to_list())
    d = rep.tables["fan_distribution"].df
    assert dict(zip(d["fan"], d["wins"], strict=False)) == {k: fan.get(k, 0) for k in d["fan"]}
    assert max(d["fan"]) <= 3                                   # fan_cap
    t = {r["quantity"]: r for r in rep.tables["win_means"].df.to_dicts()}
    assert t["fu"]["mean"] == pytest.approx(wins["fu"].mean())
    for scheme in ("yao_ban_san", "yao_ban_liu", "yao_er_liu", "tui_dao_ba"):
        assert t[f"points ({scheme})"]["mean"] == pytest.approx(wins[f"points_{scheme}"].mean())
    main = {r["statistic"]: r for r in rep.tables["main"].df.to_dicts()}
    m = main["mean points of wins (yao_ban_san)"]
    assert m["estimate"] == pytest.approx(wins["points_yao_ban_san"].mean())
    assert "mean points of wins (yao_ban_san)" in rep.text
    assert sorted(p.name for p in rep.files if p.suffix == ".png") == [
        "fan_distribution.png", "flowers_per_seat.png", "outcomes.png", "payments.png"]
    assert rep.tables["pay_per_seat"].df["mean"].sum() == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------------ policies
def test_pay_by_policy_mixed(mixed_run):
    rep = R.summarize(mixed_run)
    df = _frame(mixed_run)
    pol = {r["policy"]: r for r in rep.tables["pay_by_policy"].df.to_dicts()}
    assert set(pol) == {"value", "greedy", "random"}
    assert (pol["value"]["seats"], pol["greedy"]["seats"], pol["random"]["seats"]) == (1, 2, 1)
    # direct: every (deal, seat) of the policy
    pays: dict[str, list[int]] = {p: [] for p in pol}
    won: dict[str, int] = {p: 0 for p in pol}
    for r in df.to_dicts():
        for s in SEATS:
            p = r[f"policy_{s.lower()}"]
            pays[p].append(r[f"pay_{s.lower()}"])
            won[p] += r["winner"] == s
    for p, row in pol.items():
        assert row["mean_pay"] == pytest.approx(np.mean(pays[p]))
        assert row["win_rate"] == pytest.approx(won[p] / len(pays[p]))
        assert row["win_ci_low"] <= row["win_rate"] <= row["win_ci_high"]
        assert row["ci_low"] <= row["mean_pay"] <= row["ci_high"]
    # greedy holds 2 seats: its interval comes from the per-deal mean of both
    per_deal = np.mean([[r["pay_s"], r["pay_w"]] for r in df.to_dicts()], axis=1)
    ci = stats.ttest_1samp(per_deal, 0).confidence_interval(0.95)
    g = pol["greedy"]
    assert (g["ci_low"], g["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert "Win rate and mean net points per seat by policy" in rep.text
    assert "policies by seats E S W N: value, greedy, greedy, random" in rep.text


def test_matches_table(match_run, tmp_path):
    rep = R.write_report(match_run, tmp_path / "m")
    tot = pl.concat([pl.read_parquet(p) for p in sorted(match_run.glob("matches-*.parquet"))])
    t = rep.tables["matches"].df
    for r in t.filter(pl.col("group").str.starts_with("player")).to_dicts():
        x = tot.filter(pl.col("player") == int(r["group"].split()[1]))["total"].to_numpy()
        assert r["n"] == 12 and r["mean"] == pytest.approx(x.mean())
        assert r["sd"] == pytest.approx(x.std(ddof=1))
    v = t.filter((pl.col("group") == "policy") & (pl.col("policy") == "value")).row(0, named=True)
    per_match = tot.filter(pl.col("policy") == "value").group_by("match").agg(
        pl.col("total").mean())["total"].to_numpy()
    assert v["mean"] == pytest.approx(per_match.mean()) and v["n"] == 12
    _check_ci(t, "mean")
    assert tot.group_by("match").agg(pl.col("total").sum())["total"].to_list() == [0] * 12
    words = " ".join(rep.text.split())         # the report's lines wrap at 100 columns
    assert "12 matches played out" in words and "Match totals" in words
    # rows are deals: the outcome table counts every deal of every match
    assert rep.tables["outcomes"].df["n"][0] == _frame(match_run).height


def test_t_interval_helper():
    assert all(math.isnan(x) for x in STATS.t_interval(1, 3.0, 0.0))      # n < 2
    assert STATS.t_interval(10, 3.0, 0.0) == (3.0, 3.0)
    lo, hi = STATS.t_interval(25, 10.0, 5.0)
    half = stats.t.ppf(0.975, 24) * 5.0 / 5.0
    assert (lo, hi) == pytest.approx((10 - half, 10 + half))
    assert math.isnan(STATS.mean_row(0, None, None)["mean"])


def test_run_without_wins(tai_run, tmp_path):
    """Only wall-exhausted deals: empty win tables, no crash, nothing made up."""
    import shutil
    src = _frame(tai_run).filter(pl.col("outcome") == "wall_exhausted")
    assert src.height > 0
    out = tmp_path / "nowin"
    out.mkdir()
    src.write_parquet(out / "shard-00000.parquet")
    m = json.loads((tai_run / "manifest.json").read_text())
    m["deals"] = m["deals_done"] = src.height
    m["shards"] = [{"file": "shard-00000.parquet", "first_deal": 0, "deals": src.height}]
    (out / "manifest.json").write_text(json.dumps(m))
    rep = R.write_report(out)
    main = {r["statistic"]: r for r in rep.tables["main"].df.to_dicts()}
    assert main["win rate"]["estimate"] == 0 and main["win rate"]["ci_high"] > 0
    assert math.isnan(main["mean tai of wins"]["estimate"])
    assert rep.tables["tai_distribution"].df.height == 0
    assert rep.tables["winner_gain"].df.height == 0
    assert rep.tables["pay_per_seat"].df["mean"].to_list() == [0.0] * 4
    names = {p.name for p in rep.files}
    assert "tai_distribution.png" not in names and "tai_items.png" not in names
    json.loads((out / "summary.json").read_text())         # NaN written as null
    assert "NaN" not in (out / "summary.json").read_text()
    shutil.rmtree(out)
