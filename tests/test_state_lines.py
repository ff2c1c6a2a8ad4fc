"""Many requests in one process: ``nbsim score --state -`` and ``nbsim
advise VARIANT --state -`` read one JSON object per line of standard input
and answer each with one JSON line, a refused line with an error line that
does not stop the next ones."""
from __future__ import annotations

import json

from click.testing import CliRunner

from nbsim.cli import cli

HAND = {"hand": "234m567p345s67s55m", "win_tile": "8s", "win_by": "self_draw", "seat": "S",
        "indicator": "9m", "flowers": "2f"}


def _lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_score_answers_every_line_of_standard_input():
    lines = [json.dumps(HAND), "{not json", "", json.dumps({**HAND, "flowers": ""}),
             json.dumps({**HAND, "config": "ninghai", "indicator": None})]
    r = CliRunner().invoke(cli, ["score", "ningbo-3baida", "--state", "-"],
                           input="\n".join(lines) + "\n")
    out = _lines(r.stdout)
    assert len(out) == 4, r.output
    assert out[0]["win"] is True and out[0]["tai"] == 4          # CONFIG applies to the line
    assert "bad JSON" in out[1]["error"] and out[1]["id"] == "line 2"
    assert out[2]["win"] is False and out[2]["tai"] == 3          # blank line skipped
    assert "fan" in out[3] or "points" in json.dumps(out[3])      # the line's own config
    assert r.exit_code == 2


def test_score_state_refuses_hand_options_and_cases_together(tmp_path):
    r = CliRunner().invoke(cli, ["score", "ningbo-3baida", "--state", "-", "--hand", "123m"])
    assert r.exit_code == 2 and "give no --hand" in r.output
    cases = tmp_path / "c.jsonl"
    cases.write_text(json.dumps({"config": "ningbo-3baida", **HAND}) + "\n")
    r = CliRunner().invoke(cli, ["score", "--cases", str(cases), "--state", "-"])
    assert r.exit_code == 2 and "exclude each other" in r.output


def test_advise_answers_every_table_state_of_standard_input():
    good = {"hand": "123m456p789s1155z3p", "indicator": "9m", "discards": {"E": "19m"}}
    fifth = {"hand": "1111m456p789s155z3p", "indicator": "1m"}
    text = "\n".join([json.dumps(good), "[1, 2]", json.dumps(fifth), json.dumps(good)]) + "\n"
    args = ["advise", "ningbo-3baida", "--state", "-", "--samples", "50", "--budget", "30"]
    r = CliRunner().invoke(cli, args, input=text)
    out = _lines(r.stdout)
    assert [o["line"] for o in out] == [1, 2, 3, 4], r.output
    assert out[0]["candidates"] and out[0]["decision"] and "error" not in out[0]
    assert "expected a JSON object" in out[1]["error"]
    assert "1m" in out[2]["error"]                                 # a fifth copy, named
    assert out[3]["candidates"] == out[0]["candidates"]            # same seed: same answer
    assert r.exit_code == 2
    single = CliRunner().invoke(cli, ["advise", "ningbo-3baida", "--hand", good["hand"],
                                      "--indicator", "9m", "--discards", "E:19m",
                                      "--samples", "50", "--budget", "30", "--json"])
    assert json.loads(single.stdout)["candidates"] == out[0]["candidates"]


def test_advise_state_stream_refuses_a_plot(tmp_path):
    r = CliRunner().invoke(cli, ["advise", "ningbo-3baida", "--state", "-", "--plot",
                                 str(tmp_path / "a.png")], input="{}\n")
    assert r.exit_code == 2 and "without --state -" in r.output
