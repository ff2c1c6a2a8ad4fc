"""Every pattern counted (docs/rules.md §6, §8, §10.3, §10.4): which tai items
apply, those worth 0 tai included (the scorer's ``present``, the game rows'
``has_<item>``); the Ninghai fan and fu of each item (``fan_items`` /
``fu_items``, ``fan_<item>`` / ``fu_<item>``); the flowers set aside at the
end of the deal (``flowers_end_*``); a heavenly hand without a winning tile;
and the report tables built from them. Golden values are computed by hand;
rows are checked against the scorer and the slow reference scorer."""
from __future__ import annotations

import json
import shutil

import polars as pl
import pytest

from nbsim import stats as STATS
from nbsim.analysis.report import report as R
from nbsim.kernels import codes as C
from nbsim.play.replays import format_text
from nbsim.rules.cases import case_output, check_case
from nbsim.rules.ruleset import load_rules
from nbsim.rules.scorer import format_result, present_items, score_hand
from nbsim.rules.tiles import format_tiles, parse_tiles
from nbsim.run import simulate as SIM
from nbsim.run.files import open_run
from nbsim.run.game_mode import game_frame, play_one
from nbsim.run.schema import schema

from reference_scorer import reference_score

SEATS = ("E", "S", "W", "N")


def _both(config, overrides=(), **sit):
    """The kernel's result as a dict and the reference scorer's (equal)."""
    rs = load_rules(config, overrides)
    k = score_hand(rs, **sit).to_dict()
    k.pop("config")
    assert k == reference_score(rs.to_dict(), **sit)
    return k


# ---------------------------------------------------------------- the scorer
# 23m + 4m: a two-sided 234m; 111z is a pung, so no all_chows: 排胡, worth 0 tai
CHICKEN = dict(hand="23m567m789m111z99m", win_tile="4m", win_by="self_draw", seat="S",
               round_wind="S", indicator="9p")


def test_chicken_hand_is_present_at_zero_tai():
    r = _both("ningbo-3baida", **CHICKEN)
    assert r["win"] and r["tai"] == 4
    assert r["items"] == {"self_drawn": 1, "no_wilds": 1, "half_flush": 2}
    assert r["present"] == ["self_drawn", "chicken_hand", "no_wilds", "half_flush"]
    assert r["fan_items"] == {} and r["fu_items"] == {}


def test_robbing_the_kong_is_present_at_zero_tai_in_7baida():
    r = _both("ningbo-7baida", hand="234m567p345s67s55m", win_tile="8s", win_by="robbing_kong",
              seat="S", indicator="9p", discarder="E")
    assert "robbing_the_kong" in r["present"] and "robbing_the_kong" not in r["items"]
    assert r["present"] == ["no_wilds", "robbing_the_kong"] and r["items"] == {"no_wilds": 1}


def test_present_needs_the_item_in_the_variant():
    # tianyi has no chicken_hand: the same two-sided win lists no wait item
    r = _both("ningbo-3baida-tianyi", **CHICKEN)
    assert "chicken_hand" not in r["present"]
    assert set(r["items"]) <= set(r["present"])


def test_presence_tie_break_takes_the_earlier_item():
    """12345m + 3m: 123m (edge_wait) or 345m (two-sided: chicken_hand). With
    edge_wait worth 0 both readings have the same item tai; the presence
    vector decides and chicken_hand comes first in the §6 table."""
    sit = dict(hand="12345m678p999s11z", win_tile="3m", win_by="self_draw", seat="S",
               round_wind="W", indicator="9p")
    r = _both("ningbo-3baida", **sit)
    assert r["present"] == ["self_drawn", "edge_wait", "no_wilds"] and r["tai"] == 3
    r = _both("ningbo-3baida", ("scoring.tai.edge_wait=0",), **sit)
    assert r["present"] == ["self_drawn", "chicken_hand", "no_wilds"] and r["tai"] == 2


def test_ninghai_source_example_fu_items():
    """docs/rules.md §8 (source 004): exposed 9m kong and 5m pung, 13s 66m
    888m in hand, 2s self-drawn: fu = 4 + (2 + 2) + 16 + 2 = 26."""
    r = _both("ninghai", hand="13s66m888m", win_tile="2s", melds=["kong:9999m", "pung:555m"],
              win_by="self_draw")
    assert r["fu_items"] == {"concealed_pung_simple": 4, "self_drawn": 2, "closed_wait": 2,
                             "exposed_kong_terminal": 16, "exposed_pung_simple": 2}
    assert sum(r["fu_items"].values()) == r["fu"] == 26
    assert r["fan"] == 0 and r["fan_items"] == {} and r["present"] == []
    assert r["points"]["yao_ban_san"] == 60


def test_ninghai_fan_items_are_given_before_the_cap():
    # group A's four flowers (四花 2) and two dragon pungs (2): 4 fan, capped at 3
    r = _both("ninghai", hand="123m456p9s", win_tile="9s", melds=["pung:555z", "pung:666z"],
              seat="S", flowers="1f2f3f4f", discarder="E")
    assert r["fan_items"] == {"flower_set": 2, "dragon_pung": 2} and r["fan"] == 3
    assert r["fu_items"] == {"exposed_pung_terminal": 8, "flower": 16} and r["fu"] == 24
    assert r["points"]["yao_ban_san"] == 300


def test_result_layout_and_mask():
    assert C.RES_PRESENT == C.RES_ITEMS + C.N_TAI
    assert C.RES_FU_ITEMS == C.RES_FAN_ITEMS + C.N_FAN and C.RES_LEN == C.RES_FU_ITEMS + C.N_FU
    assert present_items(0) == []
    assert present_items(1 | 1 << C.T_FULL_FLUSH | 1 << C.T_WILD_DRAWN) == [
        "self_drawn", "full_flush", "wild_drawn"]


def test_case_output_and_expect():
    r = score_hand("ningbo-3baida", **CHICKEN)
    out = case_output("c", r)
    assert out["present"] == r.present and "chicken_hand" in out["present"]
    assert check_case({"present": list(reversed(r.present))}, out) == []
    bad = check_case({"present": ["self_drawn"]}, out)
    assert len(bad) == 1 and bad[0].startswith("present: expected ['self_drawn']")
    nh = score_hand("ninghai", "13s66m888m", "2s", melds=["kong:9999m", "pung:555m"],
                    win_by="self_draw")
    out = case_output("n", nh)
    assert out["fu_items"]["exposed_kong_terminal"] == 16 and out["fan_items"] == {}
    assert check_case({"fu_items": {"closed_wait": 2}}, out) == []
    assert check_case({"fu_items": {"closed_wait": 4}}, out) == [
        "fu_items.closed_wait: expected 4, got 2"]


def test_score_text_shows_zero_tai_items():
    rs = load_rules("ningbo-3baida")
    text = format_result(score_hand(rs, **CHICKEN), rs, win_by="self_draw", indicator="9p")
    row = next(ln for ln in text.splitlines() if ln.startswith("排胡 chicken_hand"))
    assert row.split()[-1] == "0"
    assert "not counted: 排胡 chicken_hand: applies, but is worth 0 tai in ningbo-3baida" in text
    rs = load_rules("ninghai")
    nh = score_hand(rs, "13s66m888m", "2s", melds=["kong:9999m", "pung:555m"],
                    win_by="self_draw")
    text = format_result(nh, rs, win_by="self_draw")
    assert ("fu items: 碰出 exposed_pung_simple 2, 暗刻 concealed_pung_simple 4, 幺九明杠 "
            "exposed_kong_terminal 16, 自摸 self_drawn 2, 夹中 closed_wait 2 fan ") in \
        " ".join(text.split())                      # wrapped to 100 columns
    assert "fan items" not in text                  # no fan item applies


# ---------------------------------------------------------------- game rows
@pytest.fixture(scope="module")
def frames(tables):
    out = {}
    for name in ("ningbo-3baida", "ninghai"):
        rs = load_rules(name)
        df, ev = game_frame(rs, 31, 0, 400, ("value",) * 4, tables, with_events=True)
        out[name] = (rs, df, ev)
    return out


def test_game_columns_and_dtypes(frames):
    rs, df, _ = frames["ningbo-3baida"]
    assert df.schema == schema("game", rs)
    cols = df.columns
    for item in rs.tai_items:
        assert df.schema[f"has_{item}"] == pl.Boolean
        assert cols.index(f"has_{item}") == cols.index(f"tai_{item}") + 1
    assert not any(c.startswith(("fan_", "fu_")) for c in cols if c not in ("fu_e",))
    for s in "eswn":
        assert df.schema[f"flowers_end_{s}"] == pl.String
    rs, df, _ = frames["ninghai"]
    assert df.schema == schema("game", rs)
    assert [c for c in df.columns if c.startswith("fan_")] == [f"fan_{i}" for i in C.FAN_ITEMS]
    assert [c for c in df.columns if c.startswith("fu_") and c[3:] in C.FU_ITEMS] == [
        f"fu_{i}" for i in C.FU_ITEMS]
    assert all(df.schema[f"fu_{i}"] == pl.Int16 for i in C.FU_ITEMS)
    assert not any(c.startswith(("tai_", "has_")) for c in df.columns)


def _rescore(rs, row, ev):
    """The win of a row scored again from its event log: the winner's
    concealed tiles before the winning tile, melds, flowers at the end."""
    from nbsim.play.replays import final_hands
    seat = row["winner"]
    hand = final_hands(row, ev)[seat]
    win = next(e for e in ev if e["action"] == "win")
    hand.remove(parse_tiles(win["tile"])[0])
    text = format_tiles(sorted(hand))
    by = {"self_drawn": "self_draw", "discard": "discard",
          "robbing_kong": "robbing_kong"}[row["outcome"]]
    return score_hand(rs, text, win["tile"], melds=list(row[f"melds_{seat.lower()}"]),
                      win_by=by, seat=seat, round_wind=row["round_wind"],
                      indicator=row["indicator"], flowers=row[f"flowers_end_{seat.lower()}"],
                      context=[c for c in row["context"]], discarder=row["discarder"])


def test_has_columns_agree_with_the_scorer(frames):
    rs, df, ev = frames["ningbo-3baida"]
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    none = df.filter(pl.col("outcome") == "wall_exhausted")
    has = [f"has_{i}" for i in rs.tai_items]
    assert wins.height > 50 and none.height > 0
    assert not none.select(pl.any_horizontal(has)).to_series().any()
    for item in rs.tai_items:               # a non-zero tai always has its presence
        assert wins.filter((pl.col(f"tai_{item}") != 0) & ~pl.col(f"has_{item}")).height == 0
    assert wins["has_chicken_hand"].sum() > 0           # 0-tai item seen in the rows
    assert (wins["tai_chicken_hand"] == 0).all()
    waits = ["has_chicken_hand", "has_all_chows", "has_edge_wait", "has_closed_wait",
             "has_single_wait", "has_dual_pung_wait"]
    n_wait = wins.select(pl.sum_horizontal([pl.col(c).cast(pl.Int8) for c in waits]))
    heavenly = wins["context"].list.contains("heavenly")
    assert (n_wait.to_series() == (~heavenly).cast(pl.Int8)).all()  # one wait item a win
    evd = ev.partition_by("deal", as_dict=True)
    checked = 0
    for row in wins.head(40).to_dicts():
        if "heavenly" in row["context"]:
            continue
        events = evd[(row["deal"],)].drop("deal").to_dicts()
        r = _rescore(rs, row, events)
        assert [i for i in rs.tai_items if row[f"has_{i}"]] == r.present
        checked += 1
    assert checked >= 20


def test_fan_fu_columns_add_up(frames):
    rs, df, _ = frames["ninghai"]
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    none = df.filter(pl.col("outcome") == "wall_exhausted")
    fan = pl.sum_horizontal([pl.col(f"fan_{i}") for i in C.FAN_ITEMS])
    fu = pl.sum_horizontal([pl.col(f"fu_{i}") for i in C.FU_ITEMS])
    assert wins.height > 50
    got = wins.select(fan.alias("fan"), fu.alias("fu"), pl.col("fan").alias("f0"),
                      pl.col("fu").alias("u0"))
    assert (got["fu"] == got["u0"]).all()                       # fu items add up to fu
    capped = got.select(pl.min_horizontal("fan", pl.lit(3)).alias("c"))["c"]   # fan_cap 3
    assert (capped == got["f0"]).all()
    assert (wins["fu_self_drawn"] > 0).sum() == (wins["outcome"] == "self_drawn").sum()
    assert none.select(fan.alias("a"), fu.alias("b")).sum().row(0) == (0, 0)


def test_flowers_end_follow_the_event_log(frames):
    for name in ("ningbo-3baida", "ninghai"):
        rs, df, ev = frames[name]
        fl = ev.filter(pl.col("action") == "flower").group_by("deal", "seat").agg(
            pl.col("tile"))
        got = {(d, s): sorted(parse_tiles("".join(t))) for d, s, t in fl.iter_rows()}
        grew = 0
        for row in df.to_dicts():
            for s in SEATS:
                end = sorted(parse_tiles(row[f"flowers_end_{s.lower()}"]))
                after = parse_tiles(row[f"flowers_{s.lower()}"])
                assert end == got.get((row["deal"], s), []), (name, row["deal"], s)
                assert set(after) <= set(end)
                grew += len(end) > len(after)
        assert grew > 0                      # flowers drawn in play are recorded


def test_heavenly_hand_has_no_winning_tile(tables):
    from nbsim.run.simulate import deal_frame
    rs = load_rules("ningbo-3baida")
    d = deal_frame(rs, 8, 0, 60_000, tables)
    k = d.filter(pl.col("dealer_complete"))["deal"][0]
    rec = play_one(rs, 8, int(k), ("greedy",) * 4, tables)
    row = rec.row
    assert row["outcome"] == "self_drawn" and "heavenly" in row["context"]
    assert row["win_tile"] is None and row["winner"] == "E"
    assert row["has_heavenly_hand"] and row["tai_heavenly_hand"] == 8
    assert not any(row[f"has_{i}"] for i in ("chicken_hand", "edge_wait", "closed_wait",
                                             "single_wait", "dual_pung_wait", "all_chows"))
    text = format_text(rs, rec)
    assert "wins by self drawn with the dealt 14 tiles (no winning tile) [heavenly]" in text
    assert "wins with a heavenly hand (天胡)" in text and "None" not in text


# ---------------------------------------------------------------- report tables
def _game_run(tmp_path_factory, config: str, seed: int):
    out = tmp_path_factory.mktemp("patterns") / config
    SIM.simulate(config, mode="game", deals=1_500, seed=seed, out=out, workers=1)
    return out


@pytest.fixture(scope="module")
def tai_run(tmp_path_factory):
    return _game_run(tmp_path_factory, "ningbo-3baida", 5)


@pytest.fixture(scope="module")
def nh_run(tmp_path_factory):
    return _game_run(tmp_path_factory, "ninghai", 6)


def _frame(out):
    """Every row of a run folder (the public reader)."""
    return open_run(out).lf.collect()


def test_tai_items_table_counts_every_item(tai_run):
    rep = R.summarize(tai_run)
    df = _frame(tai_run)
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    t = {r["item"]: r for r in rep.tables["tai_items"].df.to_dicts()}
    assert set(t) == set(load_rules("ningbo-3baida").tai_items)
    for item, r in t.items():
        k = int(wins[f"has_{item}"].sum())
        assert r["wins"] == k and r["p"] == pytest.approx(k / wins.height)
        assert r["p_deal"] == pytest.approx(k / df.height)
        lo, hi = STATS.wilson(k, df.height)
        assert (r["deal_ci_low"], r["deal_ci_high"]) == pytest.approx((lo, hi))
        assert r["ci_low"] <= r["p"] <= r["ci_high"]
    ch = t["chicken_hand"]
    assert ch["tai"] == 0 and ch["p"] > 0 and ch["mean_tai"] == 0      # 0 tai, yet counted
    assert "items worth 0 tai in the variant are counted too" in rep.tables["tai_items"].note
    assert "p_deal" in rep.text and "排胡" in rep.text


def test_old_run_without_the_new_columns(tai_run, tmp_path):
    """A run written before has_<item> and flowers_end_* existed still
    reports: 0-tai items without a frequency, no end-of-deal flower table."""
    df = _frame(tai_run)
    old = df.drop([c for c in df.columns if c.startswith(("has_", "flowers_end_"))])
    out = tmp_path / "old"
    out.mkdir()
    old.write_parquet(out / "shard-00000.parquet")
    m = json.loads((tai_run / "manifest.json").read_text())
    m["deals"] = m["deals_done"] = old.height
    m["shards"] = [{"file": "shard-00000.parquet", "first_deal": 0, "deals": old.height}]
    m["schema"] = {k: v for k, v in m["schema"].items()
                   if not k.startswith(("has_", "flowers_end_"))}
    (out / "manifest.json").write_text(json.dumps(m))
    rep = R.summarize(out)
    t = {r["item"]: r for r in rep.tables["tai_items"].df.to_dicts()}
    assert t["chicken_hand"]["p"] is None and t["chicken_hand"]["p_deal"] is None
    assert "排胡 chicken_hand" in rep.tables["tai_items"].note
    wins = old.filter(pl.col("outcome") != "wall_exhausted")
    assert t["self_drawn"]["wins"] == (wins["tai_self_drawn"] > 0).sum()
    assert "flowers_per_seat" not in rep.tables
    shutil.rmtree(out)


def test_fan_and_fu_tables(nh_run, tmp_path):
    rep = R.write_report(nh_run, tmp_path / "nh")
    df = _frame(nh_run)
    wins = df.filter(pl.col("outcome") != "wall_exhausted")
    assert "tai_items" not in rep.tables
    for fam, ids in (("fan", C.FAN_ITEMS), ("fu", C.FU_ITEMS)):
        t = {r["item"]: r for r in rep.tables[f"{fam}_items"].df.to_dicts()}
        assert set(t) == set(ids)
        for item, r in t.items():
            x = wins[f"{fam}_{item}"].cast(pl.Float64)
            assert r["wins"] == (x > 0).sum() and r["p"] == pytest.approx((x > 0).mean())
            assert r[f"mean_{fam}"] == pytest.approx(x.mean())
            if x.std() > 0:
                assert r["mean_ci_low"] < r[f"mean_{fam}"] < r["mean_ci_high"]
        assert rep.tables[f"{fam}_items"].title in rep.text
    fu = rep.tables["fu_items"].df
    assert fu["share_of_fu"].sum() == pytest.approx(1.0)
    assert fu["mean_fu"].sum() == pytest.approx(wins["fu"].cast(pl.Float64).mean())
    fan = rep.tables["fan_items"].df
    assert fan["mean_fan"].sum() >= wins["fan"].cast(pl.Float64).mean() - 1e-9   # before the cap
    md = (tmp_path / "nh" / "report.md").read_text()
    assert "## Fan items (番)" in md and "## Fu items (胡)" in md and "幺九暗刻" in md


def test_flowers_table_uses_the_end_of_the_deal(tai_run, tmp_path):
    rep = R.write_report(tai_run, tmp_path / "r")
    df = _frame(tai_run)
    t = rep.tables["flowers_per_seat"]
    assert "at the end of the deal" in t.title
    for s in SEATS:
        n = [len(parse_tiles(x)) for x in df[f"flowers_end_{s.lower()}"].to_list()]
        for k, frac in zip(t.df["flowers"], t.df[s], strict=True):
            assert frac == pytest.approx(n.count(k) / df.height)
        after = [len(parse_tiles(x)) for x in df[f"flowers_{s.lower()}"].to_list()]
        assert f"{s} {sum(after) / len(after):.4f}" in t.note.split("after the deal")[1]
        assert f"{s} {sum(n) / len(n):.4f}" in t.note.split(";")[0]
    assert (tmp_path / "r" / "flowers_per_seat.png").is_file()
