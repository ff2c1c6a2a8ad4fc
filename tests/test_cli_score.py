"""`nbsim score` through click's CliRunner: help, a single hand (table and
JSON), --cases with malformed lines, --check exit codes."""
import json
import re
from pathlib import Path

import pytest

from nbsim.cli import cli

CASES = Path(__file__).parent / "data" / "scoring_cases.jsonl"


def test_help(runner):
    r = runner.invoke(cli, ["score", "--help"])
    assert r.exit_code == 0
    for opt in ("--cases", "--check", "--hand", "--win-tile", "--self-draw", "--meld",
                "--context", "--fed", "--kong-from", "--set", "--json"):
        assert opt in r.output


def test_single_hand_table(runner):
    r = runner.invoke(cli, ["score", "ningbo-3baida", "--hand", "234m567p345s67s55m",
                            "--win-tile", "8s", "--self-draw", "--seat", "S", "--round", "E",
                            "--indicator", "9m", "--flowers", "2f"])
    assert r.exit_code == 0, r.output
    out = r.output
    for line in ("all_chows", "self_drawn", "no_wilds", "seat_flower"):
        assert line in out
    assert re.search(r"^total +4$", out, re.M)
    assert "legal win: yes" in out
    assert "S +15" in out


def test_single_hand_below_minimum_gives_reason(runner):
    r = runner.invoke(cli, ["score", "ningbo-3baida", "--hand", "234m567p345s67s55m",
                            "--win-tile", "8s", "--self-draw", "--seat", "S", "--indicator", "9m"])
    assert r.exit_code == 0
    assert "legal win: no (below the minimum: 3 < 4 tai)" in r.output


def test_single_hand_json_melds_and_context(runner):
    r = runner.invoke(cli, ["score", "ningbo-3baida", "--hand", "234m678s45p99s",
                            "--meld", "kong:7777z", "--win-tile", "3p", "--self-draw",
                            "--seat", "S", "--indicator", "9m", "--context", "after_kong",
                            "--kong-from", "W", "--fed", "W=1", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["win"] and d["tai"] == 4
    assert d["items"]["out_with_replacement"] == 1
    # kong feeder W pays 5T alone (ningbo payment rule), T = 4 + base 1
    assert d["payments"] == {"E": 0, "S": 25, "W": -25, "N": 0}


def test_single_hand_ninghai_and_set(runner):
    r = runner.invoke(cli, ["score", "ninghai", "--hand", "13s66m888m", "--meld", "kong:9999m",
                            "--meld", "pung:555m", "--win-tile", "2s", "--self-draw", "--seat",
                            "S", "--set", "scoring.points.points_scheme=yao_ban_liu", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert (d["fan"], d["fu"], d["silver"]) == (0, 26, 100)   # 90 points -> 100 silver
    assert d["payments"]["S"] == 300


def test_cases_take_no_hand_option_and_need_a_case(runner, tmp_path):
    """Each line of --cases gives its hand and settings: a single-hand
    option with it would be ignored, so it is refused; a file with no case
    is an error, not "0 passed"."""
    one = tmp_path / "one.jsonl"
    one.write_text(CASES.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    for extra, named in ((["--set", "win.min_tai=9"], "--set"),
                         (["--self-draw", "--seat", "S"], "--self-draw, --seat"),
                         (["ningbo-3baida"], "CONFIG"), (["--indicator", "1m"], "--indicator")):
        r = runner.invoke(cli, ["score", "--cases", str(one), *extra])
        assert r.exit_code == 2 and f"give no {named} with it" in r.output, r.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n \n", encoding="utf-8")
    r = runner.invoke(cli, ["score", "--cases", str(empty), "--check"])
    assert r.exit_code == 2 and "holds no case" in r.output and "Traceback" not in r.output
    r = runner.invoke(cli, ["score", "--cases", str(one), "--check", "--json"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("args,msg", [
    (["ningbo-3baida", "--hand", "123m", "--win-tile", "5s", "--indicator", "9m"], "holds 3 tiles"),
    (["ningbo-3baida", "--hand", "0m", "--win-tile", "5s"], "bad rank"),
    (["nope", "--hand", "123m", "--win-tile", "5s"], "no such file or shipped config"),
    (["ningbo-3baida", "--hand", "234m567p345s67s55m", "--win-tile", "8s", "--indicator", "9m",
      "--fed", "W3"], "expected SEAT=N"),
    (["ningbo-3baida", "--hand", "234m567p345s67s55m"], "needs CONFIG, --hand and --win-tile"),
    (["--check"], "--check needs --cases"),
])
def test_bad_input_exit_2(runner, args, msg):
    r = runner.invoke(cli, ["score"] + args)
    assert r.exit_code == 2
    assert msg in r.output
    assert "Traceback" not in r.output


def test_cases_check_passes_all_shared_cases(runner):
    r = runner.invoke(cli, ["score", "--cases", str(CASES), "--check"])
    assert r.exit_code == 0, r.output
    assert "50 passed, 0 failed" in r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["id"] for x in lines] == [json.loads(x)["id"] for x in CASES.read_text().splitlines()]


def test_cases_malformed_lines_keep_going(runner, tmp_path):
    good = {"id": "good", "config": "ningbo-3baida", "hand": "234m567p345s67s55m",
            "win_tile": "8s", "win_by": "self_draw", "seat": "S", "round": "E",
            "indicator": "9m", "flowers": "2f"}
    lines = [
        json.dumps(good),
        '{"id": "broken", "config": ',
        json.dumps(dict(good, id="field", colour="red")),
        json.dumps(dict(good, id="tile", hand="234m567p345s67s55q")),
        json.dumps(dict(good, id="situation", hand="234m567p345s67s5m1f")),
        json.dumps(dict(good, id="last")),
    ]
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(lines) + "\n")
    r = runner.invoke(cli, ["score", "--cases", str(f)])
    assert r.exit_code == 2
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["id"] for o in out] == ["good", "line 2", "field", "tile", "situation", "last"]
    assert out[0]["win"] is True and out[0]["tai"] == 4 and out[-1] == dict(out[0], id="last")
    assert "bad JSON" in out[1]["error"]
    assert "unknown field 'colour'" in out[2]["error"]
    assert "unknown suit letter 'q'" in out[3]["error"]
    assert "flower 1f" in out[4]["error"]
    assert "4 scored, 4 errors" not in r.stderr and "2 scored, 4 errors" in r.stderr


def test_cases_check_mismatch_exit_1(runner, tmp_path):
    case = json.loads(CASES.read_text().splitlines()[0])
    case["expect"]["tai"] = 6
    err_case = json.loads(CASES.read_text().splitlines()[28])     # bad-rank-zero
    err_case["expect"] = {"win": True}
    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps(case) + "\n" + json.dumps(err_case) + "\n")
    r = runner.invoke(cli, ["score", "--cases", str(f), "--check"])
    assert r.exit_code == 1
    assert "MISMATCH nb3-chicken-full-flush: tai: expected 6, got 5" in r.stderr
    assert "MISMATCH bad-rank-zero: error: expected a result" in r.stderr
    assert "0 passed, 2 failed" in r.stderr


def test_cases_unreadable_file(runner, tmp_path):
    r = runner.invoke(cli, ["score", "--cases", str(tmp_path / "missing.jsonl")])
    assert r.exit_code == 2
    assert "cannot read" in r.output


@pytest.mark.parametrize("flags", [["--self-draw", "--discard"], ["--self-draw", "--robbing-kong"],
                                   ["--discard", "--robbing-kong"]])
def test_win_flags_exclude_each_other(runner, flags):
    r = runner.invoke(cli, ["score", "ningbo-3baida", "--hand", "234m567p345s67s55m",
                            "--win-tile", "8s", "--indicator", "9m"] + flags)
    assert r.exit_code == 2
    assert "--self-draw, --discard and --robbing-kong exclude each other" in r.output


def test_fed_seat_given_twice(runner):
    r = runner.invoke(cli, ["score", "ningbo-3baida", "--hand", "234m567p345s67s55m",
                            "--win-tile", "8s", "--indicator", "9m", "--fed", "W=1",
                            "--fed", "w=2"])
    assert r.exit_code == 2
    assert "seat W given twice" in r.output


@pytest.mark.parametrize("expect,needle", [
    ("yes", "expect: expected an object"),
    ([], "expect: expected an object"),
    ({"items": 3}, "expect.items: expected an object item id -> tai, got 3"),
    ({"foo": 1}, "expect.foo: unknown field; allowed: win, why, tai"),
    ({"error": "yes"}, "expect.error: expected true or false"),
    ({"tai": True}, "expect.tai: expected an integer or null, got True"),
])
def test_cases_malformed_expect_is_a_line_error(runner, tmp_path, expect, needle):
    """A bad "expect" never crashes --check: the line gets an error object,
    counts as a mismatch, and the next line is still scored and checked."""
    case = json.loads(CASES.read_text().splitlines()[0])
    bad = dict(case, id="bad", expect=expect)
    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps(bad) + "\n" + json.dumps(case) + "\n")
    r = runner.invoke(cli, ["score", "--cases", str(f), "--check"])
    assert r.exit_code == 1
    assert "Traceback" not in r.output
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert out[0] == {"id": "bad", "error": out[0]["error"]} and needle in out[0]["error"]
    assert out[1]["id"] == case["id"] and out[1]["tai"] == 5
    assert "1 passed, 1 failed" in r.stderr
