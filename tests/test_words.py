"""Words a player reads: Chinese names beside the ids in score, replay,
report and compare; reasons with the numbers; why expected items do not
apply; replay steps, wilds and final hands; rules --set descriptions."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from nbsim.cli import cli
from nbsim.kernels import codes as C
from nbsim.play.replays import final_hands, format_text, play_start, replay, show_hand
from nbsim.rules import names as N
from nbsim.rules.ruleset import load_rules
from nbsim.rules.tiles import parse_tiles


def test_every_item_has_a_name():
    assert list(N.TAI_NAMES) == list(C.TAI_ITEMS)
    assert list(N.FAN_NAMES) == list(C.FAN_ITEMS)
    assert list(N.FU_NAMES) == list(C.FU_ITEMS)
    assert list(N.SCHEME_NAMES) == list(C.SCHEME_NAMES)
    assert list(N.OUTCOME_NAMES) == list(C.OUTCOME_NAMES)
    assert N.tai_label("full_flush") == "清一色 full_flush"
    assert N.fan_label("all_pungs") == "对对胡 all_pungs" and N.tai_label("x") == "x"


def _score(*args):
    r = CliRunner().invoke(cli, ["score", *args])
    assert r.exit_code == 0, r.output
    return r.output


def test_score_text():
    out = _score("ningbo-3baida", "--hand", "234m567p345s67s55m", "--win-tile", "8s",
                 "--self-draw", "--seat", "S", "--indicator", "9m", "--flowers", "2f")
    assert "自摸 self_drawn" in out and "正花 seat_flower" in out
    assert "indicator 9m: wilds (百搭) are 9m" in out
    out = _score("ningbo-3baida", "--hand", "234m567p345s67s55m", "--win-tile", "8s",
                 "--seat", "S", "--indicator", "9m", "--discarder", "E")
    assert "legal win: no (below the minimum: 2 < 4 tai)" in out
    # three wilds on a discard win: the item a player expects, and why it is not there
    out = _score("ningbo-3baida", "--hand", "9m9m9m567p345s67s55m", "--win-tile", "8s",
                 "--seat", "S", "--indicator", "9m", "--discarder", "E")
    assert "wilds held: 3" in out
    assert "not counted: 三财神 three_wilds: needs a self-drawn win" in out
    out = _score("ningbo-3baida", "--hand", "9m9m9m567p345s67s55m", "--win-tile", "8s",
                 "--self-draw", "--seat", "S", "--indicator", "9m")
    assert "三财神 three_wilds" in out and "not counted: 三财神" not in out
    out = _score("ningbo-3baida", "--hand", "234m567p345s67s55m", "--win-tile", "8s",
                 "--seat", "S", "--indicator", "9m", "--discarder", "E", "--set",
                 "win.min_tai=1", "--context", "last_tile")
    assert "海底捞月 last_tile_draw: needs a self-draw" in out
    out = _score("ninghai", "--hand", "13s66m888m", "--win-tile", "2s", "--self-draw",
                 "--meld", "kong:9999m", "--meld", "pung:555m")
    assert "fan 0  fu 26" in out and "幺半三 yao_ban_san" in out and "60 points" in out
    out = _score("ningbo-tongchengyou", "--hand", "234m567p345s67s55m", "--win-tile", "8s",
                 "--self-draw", "--indicator", "9m")
    assert "only lets these patterns win: 清一色 full_flush, 混一色 half_flush" in out


@pytest.fixture(scope="module")
def record():
    rs = load_rules("ningbo-7baida")
    return rs, replay(rs, 1, 5)


def test_replay_text(record):
    rs, rec = record
    text = format_text(rs, rec)
    steps = [ln for ln in text.splitlines() if ln.startswith("     1  ")]
    assert len(steps) == 1                                  # numbered from 1
    assert "play (steps numbered from the deal):" in text
    assert rec.events[play_start(rec.events)]["action"] not in ("deal", "flower", "replace")
    wilds = rec.row["wild_kinds"]
    assert "[" + wilds[0] + "]" in text or "[" + wilds[1] + "]" in text
    assert text.count("\n  E: ") + text.count("\n  S: ") + text.count("\n  W: ") \
        + text.count("\n  N: ") == 4                        # every final hand
    assert "(winning hand)" in text and "自摸 self_drawn" in text


@pytest.mark.parametrize("config, deals", [("ningbo-3baida", range(6)), ("ninghai", range(4))])
def test_final_hands_add_up(config, deals):
    rs = load_rules(config)
    for d in deals:
        rec = replay(rs, 2, d)
        hands = final_hands(rec.row, rec.events)
        for s in C.SEAT_NAMES:
            melds = rec.row[f"melds_{s.lower()}"]
            size = len(hands[s]) + 3 * len(melds)
            assert size == (14 if rec.row["winner"] == s else 13), (d, s, hands[s], melds)


def test_show_hand_marks_wilds():
    assert show_hand(parse_tiles("123m9m9m55z"), frozenset({"9m"})) == "123m55z [9m][9m]"
    assert show_hand(parse_tiles("123m"), frozenset()) == "123m"


def test_rules_set_description():
    r = CliRunner().invoke(cli, ["rules", "ningbo-3baida", "--set", "win.min_tai=5"])
    assert r.exit_code == 0
    assert "4 tai to win" not in r.output and "changed by --set win.min_tai=5" in r.output
    assert "min_tai = 5" in r.output
    r = CliRunner().invoke(cli, ["rules", "ningbo-3baida"])
    assert "4 tai to win" in r.output
    r = CliRunner().invoke(cli, ["rules", "ningbo-3baida", "--set", "win.min_tai=5", "--json"])
    assert "4 tai to win" not in r.output
