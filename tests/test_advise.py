"""nbsim advise: the table state in notation -> Position (round trips, every
check with its message), the candidates' shanten and acceptance, the
merge with the lookahead (a fake Evaluation and the real one, few samples),
the text, JSON and plot outputs, and the command line."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from nbsim.cli import cli
from nbsim.errors import HandError, NbsimError, RunError, TileError
from nbsim.kernels import codes as C
from nbsim.kernels.policies.view import MAX_POND
from nbsim.play.advice.advise import advise, build_advice
from nbsim.play.advice.state import (
    max_wall_left,
    position_from_json,
    position_from_options,
    position_from_state,
    position_to_state,
    table_state,
)
from nbsim.play.advice.text import advice_json, format_advice, plot_advice, plot_path
from nbsim.rules.ruleset import load_rules
from nbsim.rules.tiles import parse_tile, parse_tiles

SAMPLES = 32
# E to discard after drawing 3p: discarding 3p or 6p leaves it ready on 1z 5z (and the
# wild 9m); W has punged 7z from N
READY = dict(hand="123m456p789s1155z3p", indicator="9m", drawn="3p",
             discards=["E:19m", "S:9s1z", "W:5p", "N:2z(7z)"], melds=["W:pung:777z"])
FIELDS = ("hand", "melds", "n_melds", "flowers", "pond", "pond_flags", "n_pond")


@pytest.fixture(scope="module")
def rs():
    return load_rules("ningbo-3baida")


def _same(a, b):
    for f in FIELDS:
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    for f in ("seat", "to_play", "round_wind", "indicator", "tiles_left", "drawn", "offered",
              "replacement"):
        assert getattr(a, f) == getattr(b, f), f


def _error(rs, match, exc=HandError, config=None, **state):
    base = {"hand": "123m456p789s1155z3p", "indicator": "9m"}
    base.update(state)
    with pytest.raises(exc, match=match):
        position_from_state(config or rs, {k: v for k, v in base.items() if v is not None})


# ---------------------------------------------------------------- parsing
def test_position_of_the_options(rs):
    pos = position_from_options(rs, **READY)
    assert pos.seat == pos.to_play == 0 and pos.offered == -1
    assert pos.drawn == parse_tile("3p") and pos.indicator == parse_tile("9m")
    assert pos.hand.sum() == 14 and pos.hand[parse_tile("5z")] == 2
    # W's pung was claimed from N, whose pond marks the 7z claimed
    assert tuple(pos.melds[2, 0]) == (C.MELD_PUNG, parse_tile("7z"), 3)
    assert list(pos.n_melds) == [0, 0, 1, 0]
    assert list(pos.pond[3, :2]) == parse_tiles("2z7z") and pos.pond_flags[3, 1] == 2
    # 144 - 14 (hand) - 13 - 10 - 13 (others) - 3 (meld) - 6 (discards) - 1 (indicator)
    assert pos.tiles_left == 84


def test_round_trip_through_the_state(rs):
    pos = position_from_options(
        rs, hand="23m456p789s55z", seat="S", round_wind="W", indicator="9m", wall_left=50,
        melds=["ckong:1111s", "N:chow:345s,pung:222p@W", "E:ckong", "W:kong:6666m"],
        discards=["E:19m*5z", "S:1z", "W:(2p)7p(3s)", "N:8p*(6m)"], flowers=["S:2f", "N:4f"],
        offered="5p", offered_from="E")
    state = position_to_state(pos)
    assert state["melds"] == {"S": ["ckong:1111s"], "N": ["chow:345s@W", "pung:222p@W"],
                              "E": ["ckong"], "W": ["kong:6666m@N"]}
    assert state["discards"]["W"] == "(2p)7p(3s)" and state["offered"] == "5p"
    assert state["discards"]["E"] == "19m*5z"
    again = position_from_state(rs, state)
    _same(pos, again)
    assert position_to_state(again) == state
    # the own concealed kong keeps its kind, another seat's lies face down
    assert pos.melds[1, 0, 1] == parse_tile("1s") and pos.melds[0, 0, 1] == -1
    assert pos.pond_flags[0, 1] == 1 and pos.to_play == 0
    # the offered tile is the discarder's last discard
    assert pos.pond[0, pos.n_pond[0] - 1] == parse_tile("5p")


def test_the_kinds_let_go_by(rs):
    """``passed``: per seat, kinds another seat discarded that it let go by;
    into the Position and the View, back to the same state."""
    from nbsim.play.evaluation import view_of
    pos = position_from_options(rs, **READY, passed=["W:2z1z", "S:9m"])
    want = np.zeros((4, C.N_KINDS), np.bool_)
    want[2, parse_tiles("12z")] = True
    want[1, parse_tile("9m")] = True
    assert np.array_equal(pos.passed, want)
    assert np.array_equal(view_of(rs, pos).passed, want)
    state = position_to_state(pos)
    assert state["passed"] == {"S": "9m", "W": "12z"}
    assert np.array_equal(position_from_state(rs, state).passed, want)
    # none given: none known, and the View's marks are all False
    plain = position_from_options(rs, **READY)
    assert plain.passed is None and "passed" not in position_to_state(plain)
    assert not view_of(rs, plain).passed.any()


def test_error_passed_kinds(rs):
    ponds = {"E": "19m", "S": "9s1z", "W": "5p", "N": "2z(7z)"}
    melds = {"W": ["pung:777z"]}
    for passed, words in (({"W": "3s"}, "no other seat has discarded a 3s"),
                          ({"W": "5p"}, "no other seat has discarded a 5p"),
                          ({"W": "1z1z"}, "1z is given twice"),
                          ({"W": 5}, "passed of W: expected tile notation"),
                          ({"X": "1z"}, "unknown seat"),
                          ("1z", "passed: expected an object")):
        _error(rs, words, discards=ponds, melds=melds, passed=passed)


def test_claimed_tiles_are_matched_or_added(rs):
    # no marked tile: the claimed 7z is added to the end of the source's pond
    pos = position_from_options(rs, hand="123m456p789s1155z3p", indicator="9m",
                                melds=["W:pung:777z@N"], discards=["N:2z"])
    assert list(pos.pond[3, :2]) == parse_tiles("2z7z") and pos.pond_flags[3, 1] == 2
    # a chow comes from the seat before: S's chow from E
    pos = position_from_options(rs, hand="123m456p789s1155z3p", indicator="9m",
                                melds=["S:chow:345s"])
    assert pos.melds[1, 0, 2] == 0 and pos.pond_flags[0, 0] == 2


def test_table_state_and_json_file(rs, tmp_path):
    state = table_state({"hand": "1m", "seat": "W", "round": "S"}, hand=READY["hand"],
                        melds=["pung:555p@E", "N:ckong"], discards=["E:19m"], flowers=["2f"],
                        indicator="9m")
    assert state == {"hand": READY["hand"], "seat": "W", "round": "S", "indicator": "9m",
                     "melds": {"W": ["pung:555p@E"], "N": ["ckong"]},
                     "discards": {"E": "19m"}, "flowers": {"W": "2f"}}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(position_to_state(position_from_options(rs, **READY))))
    _same(position_from_json(rs, path), position_from_options(rs, **READY))
    _same(position_from_json(rs, json.loads(path.read_text())),
          position_from_options(rs, **READY))
    with pytest.raises(HandError, match="bad JSON"):
        (tmp_path / "bad.json").write_text("{")
        position_from_json(rs, tmp_path / "bad.json")
    for bad in (None, b"{}", 3):
        with pytest.raises(HandError, match="table state: expected a JSON file's path or a "
                                            "dict"):
            position_from_json(rs, bad)


# ---------------------------------------------------------------- every check
def test_error_fifth_copy(rs):
    _error(rs, r"5 copies of 1z on the table \(hand 2, discards 3\)",
           discards={"E": "1z", "S": "1z1z"})


def test_error_fifth_copy_counts_the_indicator(rs):
    _error(rs, r"5 copies of 9m .*indicator 1", hand="999m456p789s1155z3p",
           discards={"S": "9m"})


def test_error_tile_count_discard(rs):
    _error(rs, r"hand holds 13 tiles with 0 melds: to discard, the hand holds 14 - 3 x 0 = 14",
           hand="123m456p789s1155z")


def test_error_tile_count_offered(rs):
    _error(rs, r"when a discard is offered the hand holds 13 - 3 x 1 = 10 tiles",
           hand="123m456p789s5z3p", melds={"E": ["pung:777z@S"]}, offered="4s", **{"from": "N"})


def test_error_flower_in_meld(rs):
    _error(rs, r"flowers are set aside .*never part of a chow, pung or kong",
           melds={"S": ["pung:111f"]})


def test_error_wild_in_meld(rs):
    _error(rs, r"holds 9m, a wild tile .*wilds cannot be part of a chow, pung or kong",
           melds={"S": ["chow:789m"]})


def test_error_chow_where_the_rules_forbid_it():
    _error(load_rules("ningbo-7baida"), r"chow melds are not allowed in ningbo-7baida",
           melds={"S": ["chow:345s"]})


def test_error_indicator_without_wilds():
    _error(load_rules("ninghai"), r"ninghai has no wilds .* give none")


def test_error_no_indicator_with_wilds(rs):
    _error(rs, r"plays with wilds \(3baida\): give the indicator", indicator=None)


def test_error_unknown_seat(rs):
    _error(rs, r"unknown seat 'X'; seats are E S W N", discards={"X": "19m"})
    _error(rs, r"seat: unknown seat 'Q'", seat="Q")


def test_error_wall_left_negative(rs):
    _error(rs, r"wall_left -1: the tiles left to draw cannot be negative", wall_left=-1)


def test_error_wall_left_too_many(rs):
    _error(rs, r"wall_left 100: at most 90 tiles can still be drawn", wall_left=100)


def test_error_wall_left_counts_ninghai_reserve():
    # 144 - 14 - 39 (hands) = 91, less 9 stacks kept back
    _error(load_rules("ninghai"), r"at most 73 tiles .* and the reserve", indicator=None,
           wall_left=74)


def test_error_chow_of_honours(rs):
    _error(rs, r"winds and dragons \(z tiles\) form no chows", melds={"S": ["chow:123z"]})


def test_error_more_than_four_melds(rs):
    _error(rs, r"melds of S: 5 melds given; a player declares at most 4",
           melds={"S": ["pung:111p", "pung:222p", "pung:333p", "pung:444p", "pung:555p"]})


def test_error_pond_too_long(rs):
    pond = "123456789p" * 4 + "12345s"       # 41 discards, no kind 5 times with the hand
    assert len(parse_tiles(pond, max_copies=None)) == MAX_POND + 1
    _error(rs, rf"discards of S: 41 tiles; a pond holds at most {MAX_POND} discards",
           hand="123m456m789m1155z3z", discards={"S": pond})


def test_error_flower_held(rs):
    _error(rs, r"hand holds 2f: flowers are set aside", hand="123m456p789s1155z2f")


def test_error_wild_flower_set_aside(rs):
    _error(rs, r"flowers of S: 2f is a wild; wild flowers are held", indicator="1f",
           flowers={"S": "2f"})


def test_error_unmatched_claimed_tile(rs):
    _error(rs, r"discards of E: \(5p\) is marked as claimed, but no meld of S W N claims a 5p",
           discards={"E": "1m(5p)"})


def test_error_drawn_not_held(rs):
    _error(rs, r"drawn 4s: .* the hand holds no 4s", drawn="4s")


def test_error_face_down_kong(rs):
    _error(rs, r"another player's concealed kong lies face down; write 'S:ckong'",
           melds={"S": ["ckong:1111s"]})
    _error(rs, r"your own concealed kong: give its tiles", hand="123m456p1155z3p",
           melds={"E": ["ckong"]})


def test_error_chow_from_another_seat(rs):
    _error(rs, r"a chow is claimed from the player before S, E .*not W",
           melds={"S": ["chow:345s@W"]})


def test_error_offered_from_the_seat_itself(rs):
    _error(rs, r"from E: the offered tile is another player's discard",
           hand="123m456p789s1155z", offered="4s", **{"from": "E"})


def test_error_unknown_key_and_bad_notation(rs):
    _error(rs, r"unknown key 'wall'; allowed: seat, round", wall=3)
    _error(rs, r"bad rank", TileError, hand="0m23m456p789s1155z3p")
    _error(rs, r"'\(' is not closed", discards={"E": "1m(5p"})
    _error(rs, r"'\*' marks the tile before it as just drawn, and no tile", discards={"E": "*1m"})
    _error(rs, r"'\*\*': one '\*' marks the tile before it", discards={"E": "1m*2m*3m**"})


# ---------------------------------------------------------------- targets
def test_candidates_targets_without_simulation(rs):
    pos = position_from_options(rs, **READY)
    adv = advise(rs, pos, samples=0)
    assert adv.ranked_by == "shanten" and not adv.simulated
    held = {k for k in range(C.N_KINDS) if pos.hand[k]}
    assert {c.kind for c in adv.candidates} == held and len(adv.candidates) == len(held)
    best = adv.recommended
    assert best.label in ("3p", "6p")
    opened = {f.target: f for f in best.targets}["open"]
    # ready on 1z (1 unseen: S discarded one) and 5z (2), and the wild 9m (2 unseen)
    assert (opened.shanten, opened.acceptance) == (0, 5)
    assert opened.accepted == tuple(parse_tiles("9m1z5z"))
    # W's pung shows; all 8 targets fit the own (no) melds
    assert len(best.targets) == 8
    text = format_advice(adv)
    assert "ranked by shanten and tile acceptance" in text and "recommended by shanten" in text


def test_claim_candidates(rs):
    pos = position_from_options(rs, hand="12m456p789s1155z3p", indicator="9m", seat="S",
                                offered="3m")
    adv = advise(rs, pos, samples=0)
    assert adv.decision == "claim"
    assert {c.label for c in adv.candidates} == {"pass", "chow 123m"}
    chow = next(c for c in adv.candidates if c.action == "chow")
    assert chow.code == 3 + 2 and chow.then_discard == parse_tile("3p")
    assert "all_pungs" not in {f.target for f in chow.targets}     # a chow rules it out
    # the seat after W cannot chow E's discard; a pair makes a pung, three a kong too
    pos = position_from_options(rs, hand="12m456p789s1555z3p", indicator="9m", seat="W",
                                offered="5z", offered_from="E")
    labels = [c.label for c in advise(rs, pos, samples=0).candidates]
    assert sorted(labels) == ["kong 5z", "pass", "pung 5z"]


def test_a_win_on_the_offered_tile_is_a_candidate(rs):
    """An offered tile that completes the hand offers "win": scored as
    ``score_hand`` scores it, first when it is a legal win, last (with the
    reason in a note) when it is not."""
    from nbsim.rules.scorer import score_hand
    pos = position_from_options(rs, hand="1112345678999m", indicator="9p", seat="S",
                                offered="9m", offered_from="E", discards=["E:1z"])
    for samples in (0, SAMPLES):
        adv = advise(rs, pos, samples=samples, seed=1)
        win = adv.recommended
        assert win.action == "win" and win.code == -1 and win.kind == parse_tile("9m")
        assert win.score == score_hand(rs, "1112345678999m", "9m", seat="S", discarder="E",
                                       indicator="9p")
        assert win.score.win and win.label == f"win on 9m ({win.score.tai} tai)"
        assert {c.action for c in adv.candidates[1:]} == {"pass", "pung", "kong", "chow"}
    # on the dealer's first discard it is an earthly hand (earthly_hand_rule)
    first = position_from_options(rs, hand="1112345678999m", indicator="9p", seat="S",
                                  offered="9m", offered_from="E")
    assert advise(rs, first, samples=0).recommended.score == score_hand(
        rs, "1112345678999m", "9m", seat="S", discarder="E", indicator="9p",
        context=["earthly"])
    unlisted = position_from_options(rs, hand="1112345678999m", indicator="9p", seat="S",
                                     offered="9m", offered_from="E",
                                     wall_left=max_wall_left(rs, first) - 8)
    assert advise(rs, unlisted, samples=0).recommended.score == score_hand(
        rs, "1112345678999m", "9m", seat="S", discarder="E", indicator="9p")
    text = format_advice(adv)
    assert "recommended: win on 9m" in text and "a legal win on this discard" in text
    data = advice_json(adv)
    assert data["recommended"].startswith("win on 9m")
    assert data["candidates"][0]["win"]["legal"] is True
    assert data["candidates"][0]["win"]["payments"]["S"] > 0
    # complete but below the minimum tai: offered, ranked last, the reason noted
    pos = position_from_options(rs, hand="123m456p78s11z234m", indicator="9p", seat="S",
                                offered="9s", offered_from="E", discards=["E:1z"])
    adv = advise(rs, pos, samples=0)
    last = adv.candidates[-1]
    assert last.action == "win" and not last.score.win and last.score.why == "below_min_tai"
    assert adv.recommended.action != "win" and last.label == "win on 9s (not legal)"
    assert any("not legal: below the minimum" in n for n in adv.notes)


def test_complete_hand_is_noted(rs):
    pos = position_from_options(rs, hand="123m456p789s11555z", indicator="9m")
    assert any("the hand is complete" in n for n in advise(rs, pos, samples=0).notes)


# a complete hand of S after an exposed kong of 1p claimed from N's discard, drawing 1m
KONGED = dict(hand="11m456p789s555z", melds=["S:kong:1111p@N"], indicator="8m", seat="S",
              discards=["E:2s", "S:3s", "W:4s", "N:9s(1p)"], drawn="1m")


def test_a_complete_hand_offers_the_self_drawn_win(rs):
    """A complete hand at a discard offers "win", scored as ``score_hand``
    scores the self-draw of the drawn tile, ranked first when legal and
    above the simulated discards (which keep their own noise flags)."""
    from nbsim.rules.scorer import score_hand
    pos = position_from_options(rs, **KONGED)
    plain = dict(seat="S", indicator="8m", melds=["kong:1111p"], fed={"N": 1})
    for samples in (0, SAMPLES):
        adv = advise(rs, pos, samples=samples, seed=1)
        win = adv.recommended
        assert win.action == "win" and win.kind == parse_tile("1m")
        assert win.score == score_hand(rs, "1m456p789s555z", "1m", win_by="self_draw", **plain)
        assert win.score.win and win.label == f"self-drawn win ({win.score.tai} tai)"
        assert {c.action for c in adv.candidates[1:]} == {"discard"}
        assert not any(c.within_noise for c in adv.candidates[:2])   # the win, the best discard
        assert adv.close == () and advice_json(adv)["within_noise"] == []
    assert any("a legal self-drawn win" in n for n in adv.notes)
    assert "8 discard candidates, a self-drawn win" in format_advice(adv)
    # the win stands above the simulated rows: their reference is the best simulated one
    table = format_advice(adv)
    assert "best simulated" in table and "best    " not in table
    # the drawn tile replaced the kong claimed from N: out with a replacement, N pays for it
    rep = position_from_options(rs, **KONGED, replacement=True)
    won = advise(rs, rep, samples=0).recommended.score
    assert won == score_hand(rs, "1m456p789s555z", "1m", win_by="self_draw",
                             context=["after_kong"], kong_from="N", **plain)
    assert won.tai == win.score.tai + 1 and won.payments["N"] < win.score.payments["N"]
    assert position_to_state(rep)["replacement"] is True
    _same(position_from_state(rs, position_to_state(rep)), rep)
    # the dealer before any discard: a heavenly hand; without the drawn tile, the least
    heaven = advise(rs, position_from_options(rs, hand="123m456p789s11555z", indicator="9m"),
                    samples=0).recommended
    assert heaven.score.win and "heavenly_hand" in heaven.score.items
    assert heaven.label.startswith("self-drawn win, drawn tile not given")
    # fewer tiles left than the table as given holds: tiles left the wall unlisted,
    # discards among them, so the deal is past its first go-around: no heavenly hand
    whole = max_wall_left(rs, position_from_options(rs, hand="123m456p789s11555z",
                                                    indicator="9m"))
    later = advise(rs, position_from_options(rs, hand="123m456p789s11555z", indicator="9m",
                                             wall_left=whole - 4), samples=0)
    win = next(c for c in later.candidates if c.action == "win")
    assert "heavenly_hand" not in win.score.items and win.score.tai < heaven.score.tai


def test_replacement_needs_a_drawn_tile_and_a_boolean(rs):
    _error(rs, "give the drawn tile too", replacement=True)
    _error(rs, 'replacement: true or false .*got "yes"', replacement="yes", drawn="3p")
    _error(rs, "offered makes this a claim", hand="123m456p789s1155z", replacement=True,
           offered="3p")
    # null is "not given", as for the other optional keys
    assert not position_from_state(rs, {"hand": "123m456p789s1155z3p", "indicator": "9m",
                                        "replacement": None}).replacement


def test_replacement_needs_a_kong_or_a_flower_of_the_seat(rs):
    """A replacement is drawn after the seat's own kong or flower: with
    neither shown, --replacement is refused; a flower set aside allows it."""
    _error(rs, "seat E shows neither; give its kong", drawn="3p", replacement=True)
    _error(rs, "seat E shows neither", drawn="3p", replacement=True, flowers={"S": "1f"})
    pos = position_from_state(rs, {"hand": "123m456p789s1155z3p", "indicator": "9m",
                                   "drawn": "3p", "replacement": True, "flowers": {"E": "1f"}})
    assert pos.replacement and pos.flowers[0] == 1


def _scored_by_the_command(note: str):
    """The ScoreResult of the ``nbsim score`` command a note gives."""
    import shlex

    from click.testing import CliRunner
    args = shlex.split(note.split("the items: ")[1])[1:] + ["--json"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_the_note_gives_the_score_command_of_the_win(rs):
    """The note's ``nbsim score`` command scores the very win advised:
    contexts, feeds and the kong's feeder included."""
    for pos in (position_from_options(rs, **KONGED, replacement=True),
                position_from_options(rs, hand="1112345678999m", indicator="9p", seat="S",
                                      offered="9m", offered_from="E", discards=["E:1z"])):
        adv = advise(rs, pos, samples=0)
        note = next(n for n in adv.notes if "the items: nbsim score" in n)
        got = _scored_by_the_command(note)
        assert got["tai"] == adv.recommended.score.tai
        assert got["payments"] == adv.recommended.score.payments


def test_self_drawn_win_edge_cases():
    """Earthly needs the seat's first draw with no kong of its own; without
    the drawn tile the least a win is worth may be a win that is not legal;
    just after a claim there is no self-drawn win and no kong."""
    tianyi = load_rules("ningbo-3baida-tianyi")
    after_ckong = position_from_options(tianyi, hand="456p789s11z555z", melds=["ckong:2222m"],
                                        indicator="9p", seat="S", drawn="5z", replacement=True,
                                        discards=["E:9m"])
    win = advise(tianyi, after_ckong, samples=0).recommended
    assert win.action == "win" and win.score.win
    assert "earthly_hand" not in win.score.items and "out_with_replacement" in win.score.items
    first = position_from_options(tianyi, hand="123m456p789s11z555z", indicator="9p", seat="S",
                                  drawn="5z", discards=["E:9m"])
    assert "earthly_hand" in advise(tianyi, first, samples=0).recommended.score.items
    later = position_from_options(tianyi, hand="123m456p789s11z555z", indicator="9p", seat="S",
                                  drawn="5z", discards=["E:9m"],
                                  wall_left=max_wall_left(tianyi, first) - 4)
    win = next(c for c in advise(tianyi, later, samples=0).candidates if c.action == "win")
    assert win.score is not None and "earthly_hand" not in win.score.items
    rs = load_rules("ningbo-3baida")
    unsure = position_from_options(rs, hand="123m456p789s11z555z", indicator="9p",
                                   discards=["E:9m"])
    adv = advise(rs, unsure, samples=0)
    win = next(c for c in adv.candidates if c.action == "win")
    assert not win.score.win and win.label.startswith("self-drawn win, drawn tile not given")
    assert adv.recommended.action != "win"
    claimed = position_from_options(rs, hand="1111m456p789s2z", melds=["pung:777z@N"],
                                    indicator="9p", discards=["E:9m", "S:8m", "W:8p", "N:(7z)"])
    adv = advise(rs, claimed, samples=0)
    assert {c.action for c in adv.candidates} == {"discard"}
    assert any("a discard after a claim" in n for n in adv.notes)
    complete = position_from_options(rs, hand="123m456p789s11z", melds=["pung:777z@N"],
                                     indicator="9p",
                                     discards=["E:9m", "S:8m", "W:8p", "N:(7z)"])
    assert {c.action for c in advise(rs, complete, samples=0).candidates} == {"discard"}


def test_kongs_at_a_discard_are_candidates(rs):
    """Four held copies offer a concealed kong, an own pung with the fourth
    copy an added kong; never a wild, and never with no replacement left."""
    pos = position_from_options(rs, hand="1111m456p789s1555z", indicator="9m",
                                discards=["E:3s", "S:4s"], drawn="5z")
    kongs = [c for c in advise(rs, pos, samples=0).candidates if c.action == "kong"]
    assert [(c.label, c.code) for c in kongs] == [("concealed kong 1m", -2)]
    assert kongs[0].best_target.shanten == 0     # 456p 789s 555z and 1z: ready after it
    assert advise(rs, pos, samples=0).candidates[-1].action == "kong"   # after the discards
    four = position_from_options(rs, hand="7z5p", drawn="5p", indicator="9p",
                                 melds=["pung:777z@S,pung:111m@W,pung:222p@N,pung:333s@S"])
    assert [c.label for c in advise(rs, four, samples=0).candidates
            if c.action == "kong"] == ["add kong 7z"]              # adds no meld
    added = position_from_options(rs, hand="1m456p789s1555z", melds=["pung:111m@N"],
                                  indicator="9m", discards=["E:3s", "S:4s", "N:(1m)"],
                                  drawn="1m")
    adv = advise(rs, added, samples=SAMPLES, seed=1)
    assert [c.label for c in adv.candidates if c.action == "kong"] == ["add kong 1m"]
    kong = next(c for c in adv.candidates if c.action == "kong")
    assert kong.mean_pay is not None and kong.diff_se is not None   # played out, paired
    assert all(c.mean_pay is not None for c in adv.candidates)
    pays = [c.mean_pay for c in adv.candidates]
    assert pays == sorted(pays, reverse=True)     # ranked with the discards by the lookahead
    assert any("a kong is played out on the same sampled deals" in n for n in adv.notes)
    seven = load_rules("ningbo-7baida")          # indicator 8m: 8m and 9m are wild
    wild = position_from_options(seven, hand="9999m456p789s1555z", indicator="8m",
                                 discards=["E:3s", "S:4s"], drawn="5z")
    assert not [c for c in advise(seven, wild, samples=0).candidates if c.action == "kong"]
    empty = position_from_options(rs, hand="1111m456p789s1555z", indicator="9m",
                                  discards=["E:3s", "S:4s"], drawn="5z", wall_left=0)
    assert not [c for c in advise(rs, empty, samples=0).candidates if c.action == "kong"]


# ---------------------------------------------------------------- merging an evaluation
def _value(kind, mean, diff, diff_se, se=1.0):
    return SimpleNamespace(kind=kind, mean_pay=mean, se_pay=se, p_win=0.5, se_win=0.05,
                           p_deal_in=0.1, p_deal_in_to=(0.0, 0.05, 0.03, 0.02),
                           p_exhausted=0.1, diff=diff, diff_se=diff_se, n=SAMPLES)


def test_build_advice_from_a_fake_evaluation(rs):
    pos = position_from_options(rs, **READY)
    held = [k for k in range(C.N_KINDS) if pos.hand[k]]
    k5z, k3p, k1m = parse_tile("5z"), parse_tile("3p"), parse_tile("1m")
    order = [k5z, k3p, k1m] + [k for k in held if k not in (k5z, k3p, k1m)]
    values = [_value(k5z, 5.0, 0.0, 0.0), _value(k3p, 4.5, -0.5, 0.4),
              _value(k1m, 2.0, -3.0, 0.5)] + [_value(k, 1.0, -4.0, 0.5) for k in order[3:]]
    ev = SimpleNamespace(candidates=tuple(values), samples=SAMPLES, seed=7, base="value",
                         opponents=1)
    exact = {k3p: SimpleNamespace(p_win=0.64, draws=21)}
    adv = build_advice(rs, pos, ev, exact)
    assert [c.kind for c in adv.candidates] == order and adv.ranked_by == "lookahead"
    assert adv.recommended.label == "5z" and [c.label for c in adv.close] == ["3p"]
    three = adv.candidates[1]
    assert three.within_noise and three.exact_p_win == 0.64 and three.exact_draws == 21
    assert three.pay_low == pytest.approx(4.5 - 1.96 * 1.0, abs=1e-3)
    assert three.diff_high == pytest.approx(-0.5 + 1.96 * 0.4, abs=1e-3)
    assert not adv.candidates[2].within_noise
    text = format_advice(adv)
    assert "recommended: discard 5z (expected +5.00 points per deal" in text
    assert "within the noise of it" in text and "discard 3p" in text
    assert "0.640 (21 draws)" in text and "exact (own draws, no opponents)" in text
    data = advice_json(adv)
    assert data["recommended"] == "discard 5z" and data["within_noise"] == ["discard 3p"]
    assert data["candidates"][1]["p_deal_in_to"] == {"E": 0.0, "S": 0.05, "W": 0.03, "N": 0.02}
    assert data["seed"] == 7 and data["base"] == "value" and data["opponents"] == 1
    json.dumps(data)


def test_plot_is_written(rs, tmp_path):
    pos = position_from_options(rs, **READY)
    held = [k for k in range(C.N_KINDS) if pos.hand[k]]
    ev = SimpleNamespace(candidates=tuple(_value(k, 3.0 - i, -float(i), 0.5)
                                          for i, k in enumerate(held)),
                         samples=SAMPLES, seed=0, base="defend", opponents=3)
    path = plot_advice(build_advice(rs, pos, ev), tmp_path / "advice.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(RunError, match="not simulated"):
        plot_advice(advise(rs, pos, samples=0), tmp_path / "none.png")


# ---------------------------------------------------------------- the real lookahead
def test_ready_discards_carry_the_exact_answer(rs):
    from nbsim.play.evaluation import exact_own_draws
    pos = position_from_options(rs, **READY)
    adv = advise(rs, pos, samples=SAMPLES, seed=1)
    held = {k for k in range(C.N_KINDS) if pos.hand[k]}
    assert {c.kind for c in adv.candidates} == held          # every legal discard
    assert adv.ranked_by == "lookahead" and adv.samples == SAMPLES
    exact = exact_own_draws(rs, pos)
    assert set(exact) == {parse_tile("3p"), parse_tile("6p")}
    for c in adv.candidates:
        if c.kind in exact:
            assert c.exact_p_win == pytest.approx(exact[c.kind].p_win) and c.exact_p_win > 0
        else:
            assert c.exact_p_win is None
        assert c.mean_pay is not None and c.pay_low <= c.mean_pay <= c.pay_high
        assert c.p_deal_in_to is not None and c.p_deal_in_to[pos.seat] == 0.0
    means = [c.mean_pay for c in adv.candidates]
    assert means == sorted(means, reverse=True)


def test_samples_and_seed_reproduce(rs):
    pos = position_from_options(rs, **READY)
    a = format_advice(advise(rs, pos, samples=SAMPLES, seed=3))
    assert format_advice(advise(rs, pos, samples=SAMPLES, seed=3)) == a
    assert format_advice(advise(rs, pos, samples=SAMPLES, seed=4)) != a


def test_every_claim_answer_is_simulated_on_the_same_deals(rs):
    pos = position_from_options(rs, hand="123m456p789s155z3p", indicator="9m", seat="S",
                                discards=["E:19m"], offered="5z", offered_from="E")
    adv = advise(rs, pos, samples=SAMPLES, seed=1)
    assert adv.ranked_by == "lookahead"
    assert {c.action for c in adv.candidates} == {"pass", "pung"}
    best, other = adv.candidates
    assert best.diff == 0.0 and other.diff is not None and other.mean_pay is not None
    # the paired difference is the difference of the two means (same deals)
    assert other.diff == pytest.approx(other.mean_pay - best.mean_pay)
    assert next(c for c in adv.candidates if c.action == "pung").then_discard >= 0
    assert any("pass lets every claim of the seat go" in n for n in adv.notes)
    assert format_advice(advise(rs, pos, samples=SAMPLES, seed=1)) == format_advice(adv)
    # three copies: the kong is played out too
    pos = position_from_options(rs, hand="12m456p789s1555z3p", indicator="9m", seat="W",
                                offered="5z", offered_from="E")
    adv = advise(rs, pos, samples=SAMPLES, seed=1)
    assert {c.action for c in adv.candidates} == {"pass", "pung", "kong"}
    assert all(c.mean_pay is not None and c.diff is not None for c in adv.candidates)


def test_bad_settings(rs):
    pos = position_from_options(rs, **READY)
    with pytest.raises(RunError, match="base policy 'nope'"):
        advise(rs, pos, samples=SAMPLES, base="nope")
    with pytest.raises(RunError, match="samples must be 0..100000"):
        advise(rs, pos, samples=-1)
    for bad in (4, -1, True, "2"):
        with pytest.raises(RunError, match=r"opponents .*: allowed 0 .* 3 "):
            advise(rs, pos, samples=SAMPLES, opponents=bad)


# ---------------------------------------------------------------- the command line
ARGS = ["advise", "ningbo-3baida", "--hand", READY["hand"], "--indicator", "9m", "--drawn", "3p",
        "--discards", "E:19m", "--discards", "S:9s1z", "--discards", "W:5p",
        "--discards", "N:2z(7z)", "--melds", "W:pung:777z"]


def test_cli_table(runner):
    r = runner.invoke(cli, [*ARGS, "--samples", str(SAMPLES), "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "12 discard candidates, 32 sampled deals each from seed 1" in r.output
    assert "played by defend, opponents model 3" in " ".join(r.output.split())   # wrapped
    assert "E[pay] [95% CI]" in r.output and "recommended: discard" in r.output
    assert "W: melds pung:777z@N  discards 5p" in r.output


def test_cli_json_and_plot(runner, tmp_path):
    png = tmp_path / "advice.png"
    r = runner.invoke(cli, [*ARGS, "--samples", str(SAMPLES), "--json", "--plot", str(png)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["decision"] == "discard" and len(data["candidates"]) == 12
    assert data["state"]["melds"] == {"W": ["pung:777z@N"]}
    assert data["units"]["pay"] == "points per deal for the seat"
    assert png.stat().st_size > 0 and f"wrote {png}" in r.stderr


def test_cli_state_file_and_options(runner, tmp_path, rs):
    state = tmp_path / "table.json"
    state.write_text(json.dumps({"hand": "123m456p789s155z3p", "indicator": "9m",
                                 "seat": "S", "discards": {"E": "19m"}}))
    r = runner.invoke(cli, ["advise", "ningbo-3baida", "--state", str(state), "--offered", "5z",
                            "--from", "E", "--samples", "0"])
    assert r.exit_code == 0, r.output
    assert "offered 5z discarded by E: pass or claim" in r.output
    assert "recommended by shanten and acceptance: pung 5z, then discard 1z" in r.output


def test_cli_passed(runner):
    r = runner.invoke(cli, [*ARGS, "--passed", "W:2z1z", "--passed", "S:9m", "--samples", "0",
                            "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["state"]["passed"] == {"S": "9m", "W": "12z"}
    r = runner.invoke(cli, [*ARGS, "--passed", "W:2z1z", "--samples", "0"])
    assert r.exit_code == 0 and "W: melds pung:777z@N  discards 5p  let go by 12z" in r.output
    r = runner.invoke(cli, [*ARGS, "--passed", "W:3s", "--samples", "0"])
    assert r.exit_code == 2 and "no other seat has discarded a 3s" in r.output


def test_cli_errors_are_one_line(runner):
    for extra, words in ((["--discards", "X:19m"], "unknown seat 'X'"),
                         (["--wall-left", "200"], "wall_left 200: at most"),
                         (["--wall-left", "0", "--samples", "8"],
                          "wall_left 0: the lookahead simulates the rest of the deal, so it needs "
                          "a tile left to draw: give wall_left 1 .. 84 (--wall-left), or "
                          "--samples 0"),
                         (["--samples", "0", "--plot", "x.png"], "not simulated")):
        r = runner.invoke(cli, [*ARGS, *extra])
        assert r.exit_code == 2, r.output
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0]
    r = runner.invoke(cli, ["advise", "ningbo-3baida", "--indicator", "9m"])
    assert r.exit_code == 2 and "hand: give the concealed tiles" in r.output


def test_cli_checks_the_plot_path_before_simulating(runner, tmp_path):
    """A bad --plot fails at once with one line, before the lookahead runs
    (no advice is lost after a long simulation)."""
    for path, words in ((tmp_path / "advice.txt", "must end in an image format: .avif"),
                        (tmp_path / "advice", "must end in an image format"),
                        (tmp_path / "nodir" / "a.png", "nodir' does not exist"),
                        (tmp_path / "a.png" / "b.png", "a.png' does not exist")):
        r = runner.invoke(cli, [*ARGS, "--samples", "100000", "--plot", str(path)])
        assert r.exit_code == 2, r.output
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: --plot ") and words in lines[0]
    (tmp_path / "dir.png").mkdir()
    with pytest.raises(RunError, match="is a folder"):
        plot_path(tmp_path / "dir.png")
    (tmp_path / "afile").write_text("x")
    with pytest.raises(RunError, match="'.*afile' is a file, not a folder"):
        plot_path(tmp_path / "afile" / "x.png")
    # a folder nothing can be created in (root may "access" /proc, but not write it)
    with pytest.raises(RunError, match="cannot write there"):
        plot_path("/proc/advice.png")
    # the check leaves no file behind, and an existing file as it was
    assert plot_path(tmp_path / "advice.SVG") == tmp_path / "advice.SVG"
    assert not (tmp_path / "advice.SVG").exists()
    (tmp_path / "old.png").write_bytes(b"keep")
    assert plot_path(tmp_path / "old.png") == tmp_path / "old.png"
    assert (tmp_path / "old.png").read_bytes() == b"keep"


def test_one_sample_gives_no_interval(rs):
    """An interval needs two sampled deals: samples 1 is refused (advise and
    evaluate), and the base policy is checked even when nothing is simulated."""
    from nbsim.play.evaluation import evaluate
    pos = position_from_options(rs, **READY)
    with pytest.raises(RunError, match=r"samples 1: an interval needs two .* 2\.\.100000"):
        advise(rs, pos, samples=1)
    with pytest.raises(RunError, match=r"samples must be 2 \.\. 100,000"):
        evaluate(rs, pos, samples=1)
    with pytest.raises(RunError, match="base policy 'nonsense': allowed greedy, value, defend"):
        advise(rs, pos, samples=0, base="nonsense")


def test_no_chow_swap_discard_after_a_chow(rs):
    """Right after chowing 3m with 4m5m (claims.forbid_chow_swap), 3m and 6m
    may not go: neither is a candidate or simulated, a note says why, and the
    claim's own advice (chow, then a discard) agrees. Rules: docs/rules.md §4."""
    after = dict(indicator="9m", melds=["chow:345m"], discards=["N:(3m)"])
    for hand, gone in (("6m456p789s1155z", "6m"), ("3m456p789s1155z", "3m")):
        pos = position_from_options(rs, hand=hand, **after)
        for samples in (0, SAMPLES):
            adv = advise(rs, pos, samples=samples, seed=1)
            kinds = {c.kind for c in adv.candidates if c.action == "discard"}
            assert parse_tile(gone) not in kinds and len(kinds) == 8
            assert any(f"after chowing 3m the seat may not discard {gone} this turn" in n
                       for n in adv.notes)
    # without the rule the tile may go
    free = load_rules("ningbo-3baida", ["claims.forbid_chow_swap=false"])
    pos = position_from_options(free, hand="6m456p789s1155z", **after)
    assert parse_tile("6m") in {c.kind for c in advise(free, pos, samples=0).candidates}
    # the claim's own advice: chow 345m on N's 3m, then never 3m or 6m
    claim = position_from_options(rs, hand="456m456p789s1155z", indicator="9m", offered="3m",
                                  offered_from="N")
    chow = next(c for c in advise(rs, claim, samples=0).candidates if c.action == "chow")
    assert chow.then_discard not in (parse_tile("3m"), parse_tile("6m"))


def test_round_wind_errors_name_the_wind(rs):
    _error(rs, "round: unknown wind 'Q'; the round wind is E, S, W or N", round="Q")


def test_an_empty_wall_is_advised_without_the_lookahead(rs):
    """With no tile left to draw the lookahead has no deal to play out: one
    message with the range; --samples 0 still ranks by shanten."""
    pos = position_from_options(rs, **READY, wall_left=0)
    with pytest.raises(RunError, match=r"^wall_left 0: .* give wall_left 1 \.\. 84 "):
        advise(rs, pos, samples=SAMPLES)
    assert advise(rs, pos, samples=0).recommended.action == "discard"


def test_errors_are_nbsim_errors(rs):
    with pytest.raises(NbsimError):
        position_from_state(rs, {"hand": 3})


def test_guide_state_example(rs):
    """The JSON state of the players' guide ("Writing the table down") is a
    valid position."""
    from pathlib import Path
    guide = Path(__file__).resolve().parent.parent / "docs" / "guide" / "players.md"
    section = guide.read_text(encoding="utf-8").split("## Writing the table down", 1)[1]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    state = json.loads(block)
    pos = position_from_state(rs, state)
    assert pos.seat == 1 and pos.to_play == 0 and pos.offered == parse_tile("4s")
    # W's (7z) went to S's pung, its (4s) to N's chow
    assert tuple(pos.melds[3, 0]) == (C.MELD_CHOW, parse_tile("3s"), 2)
    assert position_to_state(pos)["discards"]["W"] == "5p(7z)(4s)"
    # S holds no 3s 5s or pair of 4s: passing is all it can do
    assert [c.label for c in advise(rs, pos, samples=0).candidates] == ["pass"]


def test_advise_checks_the_position_against_its_variant(rs):
    """A Position is checked against the variant it is advised in: one built
    for another variant, or not a Position at all, is refused by name."""
    from nbsim.play.advice.state import check_position
    pos = position_from_options(rs, hand="123m456p789s1155z3p", indicator="9m")
    assert check_position(rs, pos) is pos
    with pytest.raises(HandError, match="does not fit ninghai: indicator 9m: ninghai has no "
                                        "wilds.*built for another variant"):
        advise("ninghai", pos, samples=0)
    ninghai = position_from_options("ninghai", hand="123m456p789s1155z3p")
    with pytest.raises(HandError, match="does not fit ningbo-3baida: .*give the indicator"):
        advise(rs, ninghai, samples=20)
    with pytest.raises(HandError, match="expected a Position .* got NoneType"):
        advise(rs, None, samples=0)
    for show in (format_advice, advice_json):
        with pytest.raises(RunError, match=f"{show.__name__}: expected an Advice"):
            show(None)


def test_options_take_one_value_as_a_plain_string(rs):
    """As the JSON state does, the API takes one meld or pond as a string."""
    one = position_from_options(rs, hand="123m456p789s1155z3p", indicator="9m",
                                melds="W:pung:777z", discards="N:2z(7z)")
    listed = position_from_options(rs, hand="123m456p789s1155z3p", indicator="9m",
                                   melds=["W:pung:777z"], discards=["N:2z(7z)"])
    _same(one, listed)
    assert one.n_melds[2] == 1 and one.n_pond[3] == 2


def test_melds_of_one_value_may_repeat_its_seat_only(rs):
    assert table_state(melds=["S:pung:777z,S:pung:666z"])["melds"] == {
        "S": ["pung:777z", "pung:666z"]}
    with pytest.raises(HandError, match="one value holds the melds of one seat \\(S\\); give "
                                        "W's melds as a value of their own, e.g. W:pung:666z"):
        table_state(melds=["S:pung:777z,W:pung:666z"])


def test_ranks_are_ascii_digits():
    """Other digits (superscripts, Arabic-Indic) are no ranks: refused as
    the characters they are, not read as ranks."""
    for text in ("\u00b9\u00b2\u00b3m456p", "\u0661\u0662\u0663m"):
        with pytest.raises(TileError, match="unexpected"):
            parse_tiles(text)
    with pytest.raises(TileError, match="have no suit letter"):
        parse_tiles("123m45")


def test_a_legal_win_shows_its_certain_payment(rs):
    """The win row of a simulated advice shows the win's payment as certain
    (P(win) 1, no deal-in), and the recommendation names it."""
    adv = advise(rs, position_from_options(rs, **KONGED), samples=SAMPLES, seed=1)
    pay = adv.recommended.score.payments["S"]
    text = format_advice(adv)
    # the main table, then the detail table (deal-in to each opponent, exact own-draw)
    # (stacked in blocks when it is wider than the terminal)
    row, *detail = (line for line in text.splitlines() if line.startswith("self-drawn win"))
    assert f"{pay:+.2f} (certain)" in row and row.split()[-2:] == ["-", "0"]
    assert detail[0].split()[-3:] == ["0", "0", "0"] and detail[-1].endswith(" -")
    assert f"a legal win ({pay:+.2f} points to the seat, certain)" in text


def test_runner_up_is_a_simulated_move_never_an_illegal_win(runner):
    """With a pass and an illegal win on the offered tile only, there is no
    simulated runner-up: the text must not call the illegal win (listed,
    never played, no interval) "behind by more than the noise"."""
    r = runner.invoke(cli, ["advise", "ningbo-3baida", "--seat", "S", "--hand",
                            "123m456p789s1115z", "--offered", "5z", "--from", "E",
                            "--indicator", "9m", "--discards", "E:1s", "--samples", "20",
                            "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "win on 5z (not legal)" in r.output
    assert "recommended: pass" in r.output
    assert "runner-up" not in r.output
    # a ready hand after throwing the lone 7z: the runner-up is a simulated
    # discard, clearly behind
    r = runner.invoke(cli, ["advise", "ningbo-3baida", "--hand", "123m456p789s1155z7z",
                            "--indicator", "9m", "--discards", "E:19m", "--samples", "200",
                            "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "recommended: discard 7z" in r.output
    assert "the runner-up, discard 9s, is behind by more than the noise" in r.output


def test_singular_counts_read_as_singular(runner):
    """One tile left to draw, not "1 tiles"."""
    r = runner.invoke(cli, ["advise", "ningbo-3baida", "--hand", "123m456p789s1155z3p",
                            "--indicator", "9m", "--wall-left", "1", "--samples", "0"])
    assert r.exit_code == 0, r.output
    assert "1 tile left to draw" in r.output and "1 tiles" not in r.output


# ---------------------------------------------------------------- legal waits and the race
PLAIN = dict(hand="123m456p789s34s55z1z", drawn="1z", indicator="9m")   # 1z away: 2s 5s


def test_a_ready_hand_without_a_legal_win_is_not_ready(rs):
    """Discarding 1z leaves 123m456p789s34s55z waiting on 2s 5s (and the wild
    9m), but every such win is under 3-baida's 4 tai: the open hand shows
    0*, the waits 'no legal win', and the move ranks as one from ready."""
    from nbsim.rules.scorer import score_hand
    pos = position_from_options(rs, **PLAIN)
    adv = advise(rs, pos, samples=0)
    one = next(c for c in adv.candidates if c.label == "1z")
    open_fit = next(f for f in one.targets if f.target == "open")
    assert open_fit.shanten == 0 and open_fit.legal_ready is False
    assert open_fit.legal_shanten == 1 and one.legal_waits == ()
    assert {k for k, _, _ in one.waits} >= {parse_tile("2s"), parse_tile("5s")}
    for win_by in ("self_draw", "discard"):
        res = score_hand(rs, "123m456p789s34s55z", "2s", win_by=win_by, indicator="9m",
                         discarder="S" if win_by == "discard" else None)
        assert res.complete and not res.win                   # the scorer agrees
    assert adv.recommended.label != "1z"
    text = format_advice(adv)
    row = next(line for line in text.splitlines() if line.startswith("1z "))
    assert "0*/" in row and row.endswith("no legal win") and "0*: ready, but" in text
    data = advice_json(adv)
    c1z = next(c for c in data["candidates"] if c["tile"] == "1z")
    assert next(t for t in c1z["targets"] if t["target"] == "open")["legal_ready"] is False
    assert not any(w["self_drawn"] or w["discard"] for w in c1z["waits"])


def test_waits_mark_self_drawn_and_discard_wins(rs):
    """After 3p of the README hand, 1z wins both ways; 5z and the wild 9m only
    self-drawn (on a discard each is under the minimum or a wild discard the
    rules refuse): the scorer's decision, shown in the waits column."""
    from nbsim.rules.scorer import score_hand
    adv = advise(rs, position_from_options(rs, **READY), samples=0)
    three = next(c for c in adv.candidates if c.label == "3p")
    assert set(three.waits) == {(parse_tile("1z"), True, True), (parse_tile("5z"), True, False),
                                (parse_tile("9m"), True, False)}
    assert next(f for f in three.targets if f.target == "open").legal_ready is True
    on_5z = score_hand(rs, "123m456p789s1155z", "5z", win_by="discard", indicator="9m",
                       discarder="S")
    assert on_5z.complete and not on_5z.win
    row = next(line for line in format_advice(adv).splitlines() if line.startswith("3p "))
    assert row.endswith("9m(s) 1z 5z(s)") and "0/5" in row


def test_the_race_drops_clear_losers_on_common_deals(rs):
    pos = position_from_options(rs, **READY)
    adv = advise(rs, pos, samples=160, first=40, seed=2)
    assert adv.rounds >= 2 and adv.stopped in ("decided", "samples") and adv.cap == 160
    sim = [c for c in adv.candidates if c.mean_pay is not None]
    assert sim[0].deals == adv.samples == (160 if adv.stopped == "samples" else sim[0].deals)
    dropped = [c for c in sim if c.deals < adv.samples]
    assert dropped and all(c.deals in (40, 80) and c.dropped in (1, 2) for c in dropped)
    assert not any(c.within_noise for c in dropped)
    # a move left the race only once its paired interval to the best lay below 0
    assert all(c.diff < 0 for c in dropped)
    assert len(adv.close) < len(sim) - 1
    again = advise(rs, pos, samples=160, first=40, seed=2)
    assert format_advice(again) == format_advice(adv)         # same seed, same answer
    head = next(line for line in format_advice(adv).splitlines() if line.startswith("move"))
    assert head.split()[:3] == ["move", "waits", "deals"]


def test_no_race_when_first_is_the_cap(rs):
    """first = samples plays every candidate on the same deals (evaluate's
    default): one round, every row on every deal."""
    from nbsim.play.evaluation import evaluate
    pos = position_from_options(rs, **READY)
    adv = advise(rs, pos, samples=SAMPLES, first=SAMPLES, seed=1)
    assert adv.rounds == 1 and all(c.deals == SAMPLES for c in adv.candidates)
    ev = evaluate(rs, pos, samples=SAMPLES, seed=1)
    assert ev.rounds == 1 and all(c.deals == SAMPLES for c in ev.candidates)
    assert [c.mean_pay for c in ev.candidates] == [c.mean_pay for c in adv.candidates]


def test_the_budget_ends_the_race_and_samples_replay_it(rs):
    pos = position_from_options(rs, **READY)
    adv = advise(rs, pos, budget=1e-6, seed=3, first=40)
    assert adv.stopped == "budget" and adv.rounds == 1 and adv.samples == 40
    text = format_advice(adv)
    assert "budget ended the race: --samples 40" in text
    replay = advise(rs, pos, samples=adv.samples, seed=3, first=40)
    assert [(c.label, c.mean_pay) for c in replay.candidates] == \
        [(c.label, c.mean_pay) for c in adv.candidates]
    for bad in (-1, float("nan"), "2", True):
        with pytest.raises(RunError, match="budget .*: seconds, a number >= 0"):
            advise(rs, pos, budget=bad)


def test_the_reason_names_the_largest_part_of_the_gap():
    from nbsim.play.evaluation import why_best

    def row(mean, p_win, win_pay, p_deal_in):
        return SimpleNamespace(mean_pay=mean, p_win=p_win, win_pay=win_pay,
                               p_deal_in=p_deal_in)
    # more wins of the same value
    assert "higher chance to win (P(win) 0.600 vs 0.400)" in why_best(
        row(6.0, 0.6, 10.0, 0.1), row(4.0, 0.4, 10.0, 0.1), "discard 3p", "discard 6p")
    # the same wins, worth more
    text = why_best(row(8.0, 0.4, 20.0, 0.1), row(4.0, 0.4, 10.0, 0.1), "a", "b")
    assert text.startswith("a beats b by +4.00 points per deal") and "more valuable" in text
    # the same wins, fewer losses
    text = why_best(row(3.0, 0.4, 10.0, 0.05), row(1.0, 0.4, 10.0, 0.2), "a", "b")
    assert "smaller losses when it does not win (P(deal in) 0.050 vs 0.200)" in text


def test_advice_and_evaluation_carry_the_reason(rs):
    from nbsim.play.evaluation import evaluate
    pos = position_from_options(rs, **READY)
    adv = advise(rs, pos, samples=SAMPLES, seed=1)
    best, runner = [c for c in adv.candidates if c.mean_pay is not None][:2]
    assert adv.reason.startswith(f"discard {best.label} beats discard {runner.label} by ")
    assert f"why: {adv.reason[:40]}" in format_advice(adv).replace("\n  ", " ")
    data = advice_json(adv)
    assert data["reason"] == adv.reason and data["rounds"] == 1
    assert data["candidates"][0]["deals"] == SAMPLES and "win_pay" in data["candidates"][0]
    ev = evaluate(rs, pos, samples=SAMPLES, seed=1)
    assert ev.reason.startswith("discard ") and " beats discard " in ev.reason
    claim = position_from_options(rs, hand="123m456p789s155z3p", indicator="9m", seat="S",
                                  discards=["E:19m"], offered="5z", offered_from="E")
    adv = advise(rs, claim, samples=SAMPLES, seed=1)
    assert adv.reason.startswith(("pass beats", "pung 5z, then discard"))
    assert advise(rs, pos, samples=0).reason.startswith("discard ")


def test_cli_budget_and_json(runner):
    r = runner.invoke(cli, [*ARGS, "--samples", "80", "--budget", "30", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["budget"] == 30.0 and data["cap"] == 80 and data["rounds"] >= 1
    assert data["stopped"] in ("decided", "samples") and data["reason"]
    r = runner.invoke(cli, [*ARGS, "--budget", "-1"])
    assert r.exit_code == 2 and "budget -1.0: seconds, a number >= 0" in r.output


def test_the_race_plan_of_samples_and_budget():
    from nbsim.play.advice.advise import DEFAULT_BUDGET, DEFAULT_CAP, race_plan
    from nbsim.play.evaluation import RACE_FIRST
    assert race_plan(None, None) == (DEFAULT_CAP, RACE_FIRST, DEFAULT_BUDGET)
    assert race_plan(400, None) == (400, RACE_FIRST, None)        # no clock: the seed decides
    assert race_plan(None, 5) == (100_000, RACE_FIRST, 5.0)
    assert race_plan(None, 0) == (DEFAULT_CAP, RACE_FIRST, None)
    assert race_plan(32, 1.5) == (32, 32, 1.5)                     # one round: no race
    assert race_plan(800, None, 800) == (800, 800, None)
