"""Game engine: determinism, deal-mode walls, per-variant rule invariants on
simulated deals, and special situations on constructed walls.

The full action-by-action check of every deal is tests/test_validator.py
(an independent validator); here the engine's rows are checked directly."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from nbsim.rules.ruleset import load_rules
from nbsim.run.game_mode import game_frame, play_one, play_wall
from nbsim.run.simulate import deal_frame, simulate

from walls import build_wall

VARIANTS = ["ningbo-3baida", "ningbo-3baida-tianyi", "ningbo-7baida", "ningbo-tongchengyou",
            "ninghai"]
PAY = ["pay_e", "pay_s", "pay_w", "pay_n"]


@pytest.fixture(scope="module")
def frames(tables):
    """400 deals per variant and policy mix (seed 11)."""
    out = {}
    for v in VARIANTS:
        rs = load_rules(v)
        for pols in [("greedy",) * 4, ("value",) * 4, ("random", "value", "greedy", "value")]:
            out[v, pols] = game_frame(rs, 11, 0, 400, pols, tables)[0]
    return out


def test_game_walls_equal_deal_mode(tables):
    """Deal i of seed S has the same wall in game mode as in deal mode."""
    for v in VARIANTS:
        rs = load_rules(v)
        g, _ = game_frame(rs, 5, 100, 300, ("value",) * 4, tables)
        d = deal_frame(rs, 5, 100, 300, tables)
        assert g.select(d.columns).equals(d), v


def test_same_seed_same_rows_any_chunking(tables):
    rs = load_rules("ningbo-3baida")
    whole, _ = game_frame(rs, 7, 0, 240, ("greedy", "value", "random", "greedy"), tables)
    parts = [game_frame(rs, 7, a, a + 60, ("greedy", "value", "random", "greedy"), tables)[0]
             for a in range(0, 240, 60)]
    assert pl.concat(parts).equals(whole)


def test_simulate_game_shards_and_workers_do_not_change_rows(tmp_path):
    a = simulate("ningbo-7baida", mode="game", deals=300, seed=4, out=tmp_path / "a",
                 shard_size=300, workers=1, policies=("value",) * 4, progress=False)
    b = simulate("ningbo-7baida", mode="game", deals=300, seed=4, out=tmp_path / "b",
                 shard_size=70, workers=2, policies=("value",) * 4, progress=False)
    ra = pl.read_parquet([tmp_path / "a" / s["file"] for s in a.shards])
    rb = pl.read_parquet([tmp_path / "b" / s["file"] for s in b.shards])
    assert ra.equals(rb)


def test_replay_equals_simulated_row(tables):
    rs = load_rules("ningbo-3baida")
    df, _ = game_frame(rs, 9, 0, 50, ("value",) * 4, tables)
    for i in (0, 17, 49):
        rec = play_one(rs, 9, i, ("value",) * 4, tables)
        assert rec.row == df.row(i, named=True)
        assert rec.events[-1]["action"] in ("win", "exhausted")


@pytest.mark.parametrize("variant", VARIANTS)
def test_rows_are_consistent(frames, variant):
    for pols in [("greedy",) * 4, ("value",) * 4, ("random", "value", "greedy", "value")]:
        df = frames[variant, pols]
        pays = df.select(PAY).to_numpy()
        assert (pays.sum(axis=1) == 0).all()
        drawn = df["outcome"] == "wall_exhausted"
        assert (df["winner"].is_null() == drawn).all()
        assert (pays[drawn.to_numpy()] == 0).all()
        # a win pays the winner
        won = df.filter(~drawn)
        seat_pay = won.select(pl.struct(PAY + ["winner"]).map_elements(
            lambda r: r["pay_" + r["winner"].lower()], return_dtype=pl.Int64)).to_series()
        assert (seat_pay > 0).all()
        # on an exhaustive draw nothing is left to draw
        assert (df.filter(drawn)["tiles_left"] == 0).all()
        # discard wins name the discarder, self-drawn wins do not
        assert df.filter(pl.col("outcome") == "self_drawn")["discarder"].is_null().all()
        assert df.filter(pl.col("outcome").is_in(["discard", "robbing_kong"]))[
            "discarder"].is_not_null().all()


def test_ningbo_wins_reach_min_tai(frames):
    for pols in [("greedy",) * 4, ("value",) * 4]:
        df = frames["ningbo-3baida", pols].filter(pl.col("winner").is_not_null())
        assert len(df) > 100
        assert ((df["tai"] - df["tai_three_wilds"]) >= 4).all()


def test_seven_baida_self_draw_only_and_no_chow(frames):
    for pols in [("greedy",) * 4, ("value",) * 4, ("random", "value", "greedy", "value")]:
        df = frames["ningbo-7baida", pols]
        assert not (df["outcome"] == "discard").any()
        for s in "eswn":
            chows = df[f"melds_{s}"].list.eval(pl.element().str.starts_with("chow"))
            assert not chows.list.any().any()


def test_tongchengyou_wins_have_an_allowed_pattern(frames):
    df = frames["ningbo-tongchengyou", ("value",) * 4].filter(pl.col("winner").is_not_null())
    assert len(df) > 100
    pat = (df["tai_full_flush"] > 0) | (df["tai_half_flush"] > 0) | (df["tai_all_honors"] > 0) \
        | (df["tai_all_pungs"] > 0)
    assert pat.all()


def test_ninghai_points_and_fu(frames):
    df = frames["ninghai", ("value",) * 4].filter(pl.col("winner").is_not_null())
    assert len(df) > 100
    assert (df["fan"] <= 3).all()
    # points follow the scheme formula of docs/rules.md §8
    for row in df.iter_rows(named=True):
        base = (30 + row["fu"]) * 2 ** row["fan"]
        assert row["points_yao_ban_san"] == min(-(-base // 10) * 10, 300)
        assert row["points_tui_dao_ba"] == min(100 * 2 ** row["fan"], 800)
        winner_fu = row["fu_" + row["winner"].lower()]
        assert winner_fu == row["fu"]


def test_policies_matter(frames):
    """value plays for the minimum: it wins ningbo-3baida deals more often than
    greedy does (same walls)."""
    g = frames["ningbo-3baida", ("greedy",) * 4]["winner"].is_not_null().mean()
    v = frames["ningbo-3baida", ("value",) * 4]["winner"].is_not_null().mean()
    assert v > g


# ---------------------------------------------------------------- constructed walls
def test_heavenly_hand(tables):
    rs = load_rules("ningbo-3baida")
    tiles, ind = build_wall({0: "123m456m789m123p55p"}, indicator="9s")
    row = play_wall(rs, tiles, ind, ("greedy",) * 4, tables=tables).row
    assert row["outcome"] == "self_drawn" and row["winner"] == "E"
    assert row["context"] == ["heavenly"]
    assert row["tai"] == 10 and row["tai_heavenly_hand"] == 8
    assert [row[p] for p in PAY] == [33, -11, -11, -11]     # T = 10 + base 1


def test_earthly_hand_on_the_dealers_first_discard(tables):
    rs = load_rules("ningbo-3baida")
    # greedy dealer throws the lone Red first; South waits on it
    tiles, ind = build_wall({0: "123m456m789m129p5s7z", 1: "234m567p345s678s7z"},
                            indicator="9s")
    rec = play_wall(rs, tiles, ind, ("greedy",) * 4, tables=tables)
    row = rec.row
    assert (row["outcome"], row["winner"], row["discarder"]) == ("discard", "S", "E")
    assert row["context"] == ["earthly"] and row["tai_earthly_hand"] == 6
    assert row["pay_e"] == -2 * (row["tai"] + 1)


def test_earthly_hand_on_the_first_draw_tianyi(tables):
    rs = load_rules("ningbo-3baida-tianyi")
    tiles, ind = build_wall({0: "123m456m789m129p5s7z", 1: "234m567p345s67s55p"},
                            live="8s", indicator="9s")
    row = play_wall(rs, tiles, ind, ("greedy",) * 4, tables=tables).row
    assert (row["outcome"], row["winner"]) == ("self_drawn", "S")
    assert "earthly" in row["context"] and row["tai_earthly_hand"] == 6


def test_earthly_first_draw_survives_a_concealed_kong(tables):
    """Tianyi: a concealed kong (and its replacement) before a non-dealer's
    first draw is not a claim, so the win on that draw is still earthly
    (docs/rules.md §6: a claim is a chow, pung or exposed kong)."""
    rs = load_rules("ningbo-3baida-tianyi")
    tiles, ind = build_wall({0: "1111s123m456m789m7z", 1: "234m567p345s67s55p"},
                            live="8s", tail="9p", indicator="9s")
    rec = play_wall(rs, tiles, ind, ("greedy",) * 4, tables=tables)
    acts = [(e["seat"], e["action"]) for e in rec.events]
    assert ("E", "concealed_kong") in acts
    row = rec.row
    assert (row["outcome"], row["winner"]) == ("self_drawn", "S")
    assert "earthly" in row["context"] and row["tai_earthly_hand"] == 6


def test_heavenly_hand_has_no_winning_tile(tables):
    rs = load_rules("ningbo-3baida")
    tiles, ind = build_wall({0: "123m456m789m123p55p"}, indicator="9s")
    row = play_wall(rs, tiles, ind, ("greedy",) * 4, tables=tables).row
    assert row["context"] == ["heavenly"] and row["win_tile"] is None


def test_dealer_discard_is_not_earthly_under_first_draw(tables):
    rs = load_rules("ningbo-3baida-tianyi")
    tiles, ind = build_wall({0: "123m456m789m129p5s7z", 1: "111z555z666z789p7z"},
                            indicator="9s")
    row = play_wall(rs, tiles, ind, ("greedy",) * 4, tables=tables).row
    assert (row["winner"], row["discarder"], row["win_tile"]) == ("S", "E", "7z")
    assert row["context"] == [] and row["tai_earthly_hand"] == 0


def test_seven_baida_refuses_the_discard_win(tables):
    rs = load_rules("ningbo-7baida")
    tiles, ind = build_wall({0: "123m456m789m129p5s7z", 1: "234m567p345s678s7z"},
                            indicator="9s")
    rec = play_wall(rs, tiles, ind, ("greedy",) * 4, tables=tables)
    assert not any(e["action"] == "win" and e["meld"] == "discard" for e in rec.events)


def test_constructed_wall_must_be_a_permutation(tables):
    from nbsim.errors import RunError
    rs = load_rules("ningbo-3baida")
    with pytest.raises(RunError, match="144 tile ids"):
        play_wall(rs, np.zeros(144, np.uint8), -1, ("greedy",) * 4, tables=tables)


def test_policy_parsing_errors():
    from nbsim.errors import RunError
    from nbsim.policy_specs import parse_policies, parse_policy
    with pytest.raises(RunError, match="allowed: random, greedy, value, defend"):
        parse_policies(policies="value,greedy,smart,value")
    with pytest.raises(RunError, match="4 policies"):
        parse_policies(policies="value,greedy")
    assert parse_policies() == (parse_policy("defend"),) * 4


def test_the_warm_up_compiles_the_batch_that_runs_call(tables):
    """``run.frames.compile_game_batch`` (the warm-up compiles the batch
    before the scorer it calls is ready) compiles ``game_batch`` for the
    argument types a game-mode run calls it with: after runs with and
    without events, it adds no specialisation."""
    from nbsim.kernels.engine import games as KG
    from nbsim.run.frames import compile_game_batch
    rs = load_rules("ningbo-3baida")
    game_frame(rs, 0, 0, 2, "defend", tables, with_events=True)
    game_frame(rs, 0, 0, 2, "defend", tables)
    before = set(KG.game_batch.signatures)
    compile_game_batch(rs.array, tables)
    assert set(KG.game_batch.signatures) == before and len(before) == 1
