"""nbsim.play.divergence: the first decision where two policies part ways on the
same walls, and the summary of how their discards differ."""
import json
import math

import polars as pl
import pytest

from nbsim.errors import RunError
from nbsim.play.advice.state import position_from_state
from nbsim.play.divergence import assess, divergences, summarize
from nbsim.play.evaluation import evaluate
from nbsim.rules.ruleset import as_rules
from nbsim.rules.tiles import parse_tiles


@pytest.fixture(scope="module")
def cautious():
    return divergences("ningbo-3baida", seed=1, deals=40, expert="defend:caution=0.9",
                       base="defend")


def test_a_policy_never_diverges_from_itself():
    df = divergences("ningbo-3baida", seed=1, deals=10, expert="defend", base="defend")
    assert df.height == 0 and {"deal", "seat", "state", "base_tile"} <= set(df.columns)


def test_the_divergence_is_a_real_choice_between_held_tiles(cautious):
    df = cautious
    assert df.height >= 20                      # caution 0.9 folds far more often
    both = df.filter((pl.col("base_action") == "discard")
                     & (pl.col("expert_action") == "discard"))
    assert both.height >= 10
    for r in both.iter_rows(named=True):
        hand = parse_tiles(r["hand"], max_copies=None)
        assert len(hand) + 3 * r["own_melds"] == 14     # the seat holds 3k + 2
        b, e = parse_tiles(r["base_tile"])[0], parse_tiles(r["expert_tile"])[0]
        assert b != e and b in hand and e in hand
        assert r["base_held"] == hand.count(b) and r["expert_held"] == hand.count(e)
        assert 0 <= r["base_opp_discarded"] <= 3 and r["base_visible"] >= 0


def test_summary_counts_each_side(cautious):
    s = summarize(cautious)
    n = cautious.filter(pl.col("base_shanten").is_not_null()).height
    assert s["n"].to_list() == [n] * s.height
    assert ((s["expert_only"] + s["base_only"]) <= 1.0 + 1e-12).all()
    honour = s.filter(pl.col("feature") == "honour").row(0, named=True)
    assert honour["expert_ci_low"] <= honour["expert_only"] <= honour["expert_ci_high"]


def test_the_state_at_each_divergence_is_a_legal_table(cautious):
    """Every recorded state passes the advisor's checks (tile counts, copies,
    melds and their sources) and holds the seat's hand."""
    both = cautious.filter(pl.col("base_shanten").is_not_null())
    for r in both.iter_rows(named=True):
        state = json.loads(r["state"])
        assert state["seat"] == r["seat"] and state["hand"] == r["hand"]
        pos = position_from_state("ningbo-3baida", state)
        assert int(pos.hand.sum()) == len(parse_tiles(r["hand"], max_copies=None))


def test_assess_is_the_paired_evaluation_of_the_two_discards(cautious, capsys):
    rows = cautious.filter(pl.col("base_shanten").is_not_null()).head(3)
    a = assess("ningbo-3baida", rows, samples=40, seed=5, progress=True)
    assert a.height == 3
    err = capsys.readouterr().err
    assert "assess (40 samples)" in err and "3/3" in err        # the bar on stderr
    assert a.equals(assess("ningbo-3baida", rows, samples=40, seed=5, progress=False))
    assert capsys.readouterr().err == ""
    for r in a.iter_rows(named=True):
        pos = position_from_state("ningbo-3baida", json.loads(r["state"]))
        kb, ke = parse_tiles(r["base_tile"])[0], parse_tiles(r["expert_tile"])[0]
        ev = evaluate(as_rules("ningbo-3baida"), pos, samples=40, seed=5 + r["deal"],
                      kinds=[kb, ke])
        by = {c.kind: c.mean_pay for c in ev.candidates}
        assert r["gain"] == pytest.approx(by[ke] - by[kb], abs=1e-9)
        assert r["gain_se"] > 0 and math.isfinite(r["gain_z"])


def test_errors():
    with pytest.raises(RunError, match="deals must be 1 .. "):
        divergences("ningbo-3baida", seed=1, deals=0)
    for bad in (2.5, "3", [1, -2], [], None):
        with pytest.raises(RunError, match="a count >= 1 or a list of deal indices"):
            divergences("ningbo-3baida", seed=1, deals=bad)
    with pytest.raises(RunError, match="policy|unknown"):
        divergences("ningbo-3baida", seed=1, deals=2, expert="bogus")
    with pytest.raises(RunError, match="nothing to summarize"):
        summarize(pl.DataFrame({"deal": []}))
    with pytest.raises(RunError, match="needs the rows of divergences"):
        assess("ningbo-3baida", pl.DataFrame({"deal": [1]}))
    with pytest.raises(RunError, match="seed must be a whole number"):
        assess("ningbo-3baida", pl.DataFrame({"deal": [1]}), seed=-1)


def test_defend_hold_only_changes_throws_of_a_lone_scoring_honour():
    """defend's ``hold`` charges for discarding a single honour tile whose
    pung scores (a dragon, the seat's or the round's wind): the first
    decision where defend:hold=2 leaves defend is always defend throwing
    such a tile."""
    df = divergences("ningbo-3baida", seed=4, deals=30, expert="defend:hold=2", base="defend")
    assert df.height >= 5
    winds = {"E": "1z", "S": "2z", "W": "3z", "N": "4z"}
    for r in df.iter_rows(named=True):
        assert r["base_action"] == "discard" and r["expert_action"] == "discard"
        assert r["base_honor"] and r["base_held"] == 1 and not r["base_wild"]
        state = json.loads(r["state"])
        assert (r["base_tile"] in ("5z", "6z", "7z")
                or r["base_tile"] in (winds[state["seat"]], winds[state["round"]]))


def test_progress_counts_the_deals_on_stderr(capsys, monkeypatch):
    """progress=True: a tqdm bar on stderr counts the deals as the engine
    plays them (in chunks of at most CHUNK deals, which give the rows of
    one call over all the deals); progress=False prints nothing."""
    from nbsim.play import divergence as D
    df = divergences("ningbo-3baida", seed=1, deals=40, expert="defend:caution=0.9",
                     base="defend", progress=True)
    err = capsys.readouterr().err
    assert "defend:caution=0.9 vs defend" in err and "40/40" in err
    monkeypatch.setattr(D, "CHUNK", 1000)                # one call of the engine
    assert df.equals(divergences("ningbo-3baida", seed=1, deals=40, base="defend",
                                 expert="defend:caution=0.9", progress=False))
    divergences("ningbo-3baida", seed=1, deals=[3, 4, 5, 30], expert="defend:caution=0.9",
                base="defend", progress=False)
    assert capsys.readouterr().err == ""
    assert D._ranges([0, 1, 2, 3, 4, 7, 8], 3) == [(0, 3), (3, 5), (7, 9)]
