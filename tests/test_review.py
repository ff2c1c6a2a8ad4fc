"""nbsim review: a seat that played the best moves reviews within the
noise, planted blunders (a wild thrown, a legal win passed, a ready hand
broken for nothing) are flagged among the costliest, bad records are
refused with the right message, the run and replay sources agree, the
--json output reads back, Ctrl-C keeps what was rated and the HTML page
opens in headless Chromium."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nbsim.cli import cli
from nbsim.errors import HandError, RunError
from nbsim.play.review import review as RV
from nbsim.play.review.record import parse_record, record_json
from nbsim.play.review.review import review
from nbsim.play.review.text import format_review, review_from_json, review_json
from tests.test_html import CHROMIUM, _offline, browser_probe

BASE = {"variant": "ningbo-3baida", "seat": "E", "round": "E", "indicator": "1s"}
ROUND = ["S draw", "S discard 2z", "W draw", "W discard 3z", "N draw", "N discard 4z"]
# East holds two wilds (1s): discarding 9m leaves it ready; with the third
# wild drawn the hand is complete (three wilds 3 tai + self-drawn 1: legal)
BEST = {**BASE, "hand": "123m456p78s11z59m1s1s",
        "play": ["E discard 9m", *ROUND, "E draw 1s", "E win"]}
# the same deal with the win passed (2m thrown), then one of three wilds thrown
WILD = {**BASE, "hand": "123m456p78s11z59m1s1s",
        "play": ["E discard 9m", *ROUND, "E draw 1s", "E discard 2m", "S draw",
                 "S discard 6z", "W draw", "W discard 7z", "N draw", "N discard 9p",
                 "E draw 2z", "E discard 1s"]}
# a full flush ready on 5m/8m: the self-drawn 5m win passed (5m thrown), the
# ready hand broken for nothing (2m thrown, the 1p drawn kept), a wild thrown
BLUNDERS = {**BASE, "hand": "123m456m789m22m67m9s",
            "play": ["E discard 9s", *ROUND, "E draw 5m", "E discard 5m",
                     "S draw", "S discard 6z", "W draw", "W discard 7z", "N draw", "N discard 9p",
                     "E draw 1p", "E discard 2m",
                     "S draw", "S discard 5z", "W draw", "W discard 1z", "N draw", "N discard 9p",
                     "E draw 1s", "E discard 1s"]}
FAST = dict(samples=100, seed=0, progress=False)


def _rated(rv):
    return {r.made.label: r for r in rv.ratings}


def test_best_moves_review_within_the_noise():
    rv = review(BEST, **FAST)
    assert [r.made.label for r in rv.ratings] == ["discard 9m", "win"]
    assert not rv.flagged
    assert all(r.low <= 0 for r in rv.ratings)
    loss, lo, hi = rv.total_loss
    assert lo <= 0 <= hi + 1e-9
    assert rv.agreement == 1.0


def test_planted_blunders_are_flagged_among_the_costliest():
    rv = review(BLUNDERS, seed=0, progress=False)           # the default precision
    kept, passed, broke, thrown = rv.ratings
    assert kept.made == kept.best and not kept.flagged
    assert passed.made.label == "discard 5m" and passed.best.action == "win"   # a win passed
    assert broke.made.label == "discard 2m" and broke.best.label == "discard 1p"  # ready broken
    assert thrown.made.label == "discard 1s" and thrown.best.label != "discard 1s"  # a wild
    assert passed.flagged and broke.flagged and thrown.flagged
    assert sorted(r.number for r in rv.costliest()) == [2, 3, 4]
    assert passed.low > 0 and passed.deals == 200              # paired on fresh sampled deals
    text = format_review(rv)
    assert "the costliest decisions:" in text and "discard 2m" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    wild = _rated(review(WILD, **FAST))["discard 1s"]          # three wilds: one thrown
    assert wild.flagged and wild.best.label == "discard 2z"


@pytest.mark.parametrize("change,message", [
    ({"hand": "123m456p78s11z59m1s"}, "a tile count that does not add up"),
    ({"play": ["E discard 9m", "S discard 2z"]}, "out of turn: S is to draw"),
    ({"play": ["E discard 9m", "S draw", "S discard 1s", "W draw", "W discard 1s"]},
     "a fifth copy of 1s"),
    ({"play": ["E discard 9m", "S draw", "S discard 5m", "N chow 456m"]},
     "a claim that was not possible: only W"),
    ({"play": ["E discard 9m", "S draw", "S discard 2z", "E pung"]},
     "a claim that was not possible: E holds 0 2z"),
    ({"play": ["E discard 9m", "S draw", "S discard 2z", "W draw", "W discard 3z", "N draw",
               "N discard 4z", "E draw 1p", "E win"]}, "the hand is not complete"),
    ({"play": ["E throw 9m"]}, "unknown action 'throw'"),
    ({"colour": "red"}, "unknown keys colour"),
])
def test_bad_records_are_refused_with_the_right_message(change, message):
    data = {**BEST, **change}
    with pytest.raises(HandError, match=message.replace("(", r"\(")):
        review(data, **FAST)


def test_a_draw_after_the_wall_ran_out_is_refused(game_run):
    import polars as pl
    rows = pl.read_parquet(next(game_run.glob("shard-*.parquet")))
    deal = rows.filter(pl.col("outcome") == "wall_exhausted")["deal"][0]
    rs, rec = RV.load_record(game_run, deal=int(deal), seat="E")
    data = record_json(rec)
    last = rec.play[-1]
    nxt = "ESWN"[(last.seat + 1) % 4]
    data["play"].append(f"{nxt} draw 1z" if nxt == "E" else f"{nxt} draw")
    with pytest.raises(HandError, match="a draw after the wall ran out"):
        review(data, **FAST)


@pytest.fixture(scope="module")
def game_run(tmp_path_factory):
    from nbsim.run import simulate as SIM
    out = tmp_path_factory.mktemp("review") / "run"
    SIM.simulate("ningbo-3baida", mode="game", deals=30, seed=3, out=out, events=True,
                 policies=("defend",) * 4)
    return out


def test_run_and_replay_give_the_same_record_and_every_decision(game_run):
    rs, rec = RV.load_record(game_run, deal=2, seat="S")
    _, again = RV.load_record("ningbo-3baida", deal=2, seat="S", replay_seed=3,
                              policies="defend")
    assert rec.play == again.play and rec.hand == again.hand
    assert RV.load_record(game_run, deal=2, seat="1")[1] == rec        # --seat 1: S
    # deal 2 of seed 1: W wins on a discard with four melds declared
    _, four = RV.load_record("ningbo-3baida", deal=2, seat="W", replay_seed=1,
                             policies="defend")
    assert four.play[-1].action == "win" and RV.decisions(rs, four)
    own = sum(a.seat == 1 and a.action in ("discard", "ckong", "add") for a in rec.play)
    found = RV.decisions(rs, rec)
    assert own <= sum(d.kind == "turn" for d in found) <= own + 1
    assert [d.number for d in found] == list(range(1, len(found) + 1))
    # the seat's view only: no other seat's drawn tile is in the record
    assert all(a.tile < 0 for a in rec.play if a.action == "draw" and a.seat != 1)


def test_json_round_trip_and_command_line(tmp_path):
    path = tmp_path / "best.json"
    path.write_text(json.dumps(BEST), encoding="utf-8")
    res = CliRunner().invoke(cli, ["review", str(path), "--samples", "100", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    back = review_from_json(data)
    api = review(BEST, **FAST)
    assert back.ratings == api.ratings and back.record == api.record
    assert parse_record(data["record"]) == api.record
    assert review_json(back)["decisions"] == data["decisions"]
    bad = CliRunner().invoke(cli, ["review", str(tmp_path / "none.json")])
    assert bad.exit_code == 2 and "does not exist" in bad.output and "Traceback" not in bad.output


def test_ctrl_c_keeps_what_was_reviewed(monkeypatch, tmp_path):
    from nbsim.play.advice import advise as ADV
    real = ADV.advise
    calls = []

    def stop_at_second(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)
    monkeypatch.setattr(ADV, "advise", stop_at_second)
    rv = review(WILD, **FAST)
    assert rv.interrupted and len(rv.ratings) == 1 and rv.found == 3
    path = tmp_path / "wild.json"
    path.write_text(json.dumps(WILD), encoding="utf-8")
    calls.clear()
    res = CliRunner().invoke(cli, ["review", str(path), "--samples", "100"])
    assert res.exit_code == 130 and "1 decisions rated (3 in the record" in res.output


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium: install Debian's chromium package "
                                             "(make browser) to render the HTML page")
def test_html_page_opens_in_chromium(tmp_path):
    path = tmp_path / "wild.json"
    path.write_text(json.dumps(WILD), encoding="utf-8")
    page = tmp_path / "review.html"
    res = CliRunner().invoke(cli, ["review", str(path), "--samples", "100", "--html",
                                   str(page)])
    assert res.exit_code == 0, res.output
    html = page.read_text(encoding="utf-8")
    _offline(html)
    assert "135m456p11178s112z" in html and "discards E" in html      # hand and ponds
    tables, images, broken = browser_probe(html, tmp_path)
    assert tables == html.count('class="nbsim-table"') and tables >= 2
    assert images == 1 and broken == ""


def test_bad_sources_are_refused(game_run):
    with pytest.raises(RunError, match="give the deal"):
        review(game_run, **FAST)
    with pytest.raises(RunError, match="no finished deal 99"):
        review(game_run, deal=99, seat="E", **FAST)
    with pytest.raises(RunError, match="--run-seed"):
        review("ningbo-3baida", deal=1, seat="E", **FAST)
    with pytest.raises(RunError, match="samples"):
        review(BEST, samples=1)
    with pytest.raises(RunError, match="no run folder, .json record or TOML file"):
        review("no-such-run", deal=0, seat="E", **FAST)


@pytest.mark.parametrize("variant,policy", [("ningbo-tongchengyou", "greedy"),
                                            ("ningbo-3baida", "defend"), ("ninghai", "defend")])
def test_every_seat_of_played_deals_reads_as_a_record(variant, policy):
    """Played deals (a win on a wild discard, with four melds, a robbed
    kong, Ninghai's reserve) read as records of each seat, the wall counted
    as the engine counts it (tiles_left at the end)."""
    import polars as pl

    from nbsim.play.review.record import Table
    from nbsim.policy_specs import as_policies
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import as_rules
    from nbsim.run.game_mode import game_frame
    rs = as_rules(variant)
    df, ev = game_frame(rs, 11, 0, 40, as_policies(policy), load_tables(), with_events=True)
    for d in range(40):
        row = df.filter(pl.col("deal") == d).row(0, named=True)
        events = ev.filter(pl.col("deal") == d).sort("step").drop("deal").to_dicts()
        for seat in "ESWN":
            rec = RV.record_from_events(variant, row, events, seat)
            table = Table(rs, rec)
            for act in rec.play:
                table.apply(act)
            assert table.left == row["tiles_left"]
            assert all(x.state["seat"] == seat for x in RV.decisions(rs, rec))


def test_guide_record_example():
    """The record of the players' guide ("Writing a deal down") reads and
    replays: East's discard and its self-drawn win with the third wild."""
    from pathlib import Path

    from nbsim.rules.ruleset import as_rules
    guide = Path(__file__).resolve().parent.parent / "docs" / "guide" / "players.md"
    section = guide.read_text(encoding="utf-8").split("### Writing a deal down", 1)[1]
    data = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    rec = parse_record(data)
    made = [d.made.label for d in RV.decisions(as_rules(rec.variant), rec)]
    assert made == ["discard 9m", "win"] and rec.flowers[1] == (34 + 1,)
