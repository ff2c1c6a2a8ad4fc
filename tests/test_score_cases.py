"""Every shared scoring case (tests/data/scoring_cases.jsonl, a copy of
cases/scoring.jsonl) through ``nbsim.rules.cases``, one test id per case."""
import json
from pathlib import Path

import pytest

from nbsim.errors import NbsimError
from nbsim.rules.cases import case_output, check_case, score_case
from nbsim.rules.scorer import score_hand

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "data" / "scoring_cases.jsonl").read_text().splitlines()
         if line.strip()]
_RULES: dict = {}


def test_fifty_cases_present():
    assert len(CASES) == 50
    assert len({c["id"] for c in CASES}) == 50


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    expect = case["expect"]
    try:
        out = case_output(case["id"], score_case(case, _RULES))
    except NbsimError as e:
        out = {"id": case["id"], "error": str(e)}
        assert str(e) and "\n" not in str(e)
    bad = check_case(expect, out)
    assert not bad, f"{case['id']}: {bad}; got {out}"
    if not expect.get("error"):
        # the output lists every non-zero item and the total is their sum
        if out.get("tai") is not None:
            assert sum(out["items"].values()) == out["tai"]
            assert all(v != 0 for v in out["items"].values())
        if out.get("payments") is not None:
            assert sum(out["payments"].values()) == 0


# ---------------------------------------------------------------- hand-computed extras
# The pay-* hand (docs/rules.md §7): S wins 23m88m + pung 777z, 444p, 888s on 4m,
# flowers 2f 6f (both S seat flowers). Discard: tai 4 (seat_flower 2, dragon_pung 1,
# no_wilds 1), T = 4 + base 1 = 5 in ningbo-3baida.
PAY = dict(hand="23m88m", melds=["pung:777z", "pung:444p", "pung:888s"], win_tile="4m",
           seat="S", round_wind="E", indicator="9m", flowers="2f6f")


def test_public_api_result_type():
    import nbsim
    r = nbsim.score_hand("ningbo-3baida", **PAY, win_by="discard", discarder="N")
    assert isinstance(r, nbsim.ScoreResult)
    assert r.to_dict()["payments"] == {"E": 0, "S": 10, "W": 0, "N": -10}
    assert r.fan is None and r.points is None and r.wilds == 0


def test_cap_scales_shares_and_hands_out_the_rest_in_turn_order():
    # discarder E pays 2T = 10, bound W pays 2T = 10: total 20 > cap 15.
    # floor(10 * 15 / 20) = 7 each, the 1 left goes to the first payer after S: W.
    r = score_hand("ningbo-3baida", **PAY, win_by="discard", discarder="E", fed={"W": 3},
                   overrides=("payments.cap=15",))
    assert r.payments == {"E": -7, "S": 15, "W": -8, "N": 0}
    # one payer: just capped
    r = score_hand("ningbo-3baida", **PAY, win_by="self_draw", fed={"W": 3},
                   overrides=("payments.cap=20",))
    assert r.payments == {"E": 0, "S": 20, "W": -20, "N": 0}


KONG = dict(hand="45p99s", melds=["kong:7777z", "pung:111m", "pung:999p"], win_tile="3p",
            win_by="self_draw", seat="S", round_wind="E", indicator="9m",
            context=["after_kong"], kong_from="W")


def test_kong_feeder_pays_ten_times_on_the_third_meld():
    # tai: self_drawn, out_with_replacement, dragon_pung, no_wilds = 4; T = 5.
    r = score_hand("ningbo-3baida", **KONG, fed={"W": 3})
    assert r.tai == 4 and r.win
    assert r.payments == {"E": 0, "S": 50, "W": -50, "N": 0}     # 10T, not 5T + 10T
    r = score_hand("ningbo-3baida", **KONG, fed={"W": 1})
    assert r.payments == {"E": 0, "S": 25, "W": -25, "N": 0}     # 5T
    # ningbo_5x (tianyi): no base point, T = 4; the feeder 5T, the others T
    r = score_hand("ningbo-3baida-tianyi", **KONG, fed={"W": 1})
    assert r.payments == {"E": -4, "S": 28, "W": -20, "N": -4}


def test_ningbo_5x_discard_bound_and_mutual():
    # tianyi: tai 4 (seat flowers 2, dragon 1, no_wilds 1), T = 4
    r = score_hand("ningbo-3baida-tianyi", **PAY, win_by="discard", discarder="W",
                   fed={"W": 3}, fed_by_winner={"W": 3, "E": 3})
    # bound discarder 4T (mutual adds nothing), bound E 2T, N nothing
    assert r.payments == {"E": -8, "S": 24, "W": -16, "N": 0}
    # ningbo rule: bound discarder 4T + 2T mutual, bound E (fed_by_winner) 2T
    r = score_hand("ningbo-3baida", **PAY, win_by="discard", discarder="W",
                   fed={"W": 3}, fed_by_winner={"W": 3, "E": 3})
    assert r.payments == {"E": -10, "S": 40, "W": -30, "N": 0}


def test_no_payments_without_discarder_and_for_illegal_wins():
    r = score_hand("ningbo-3baida", **PAY, win_by="discard")
    assert r.win and r.payments is None
    r = score_hand("ningbo-3baida", hand="234m567p345s67s55m", win_tile="8s", seat="S",
                   indicator="9m", win_by="discard", discarder="E")
    assert not r.win and r.payments is None and r.why == "below_min_tai"


def test_check_cases_library_function():
    """``check_cases`` (what ``nbsim score --cases`` calls): every shared case
    passes, results arrive in order, and a mismatch and an unscorable line
    are counted with the exit codes of the command."""
    from nbsim.rules.cases import check_cases
    lines = (Path(__file__).parent / "data" / "scoring_cases.jsonl").read_text().splitlines()
    seen = []
    tally = check_cases(lines, check=True, on_case=seen.append)
    assert [c.case_id for c in seen] == [c["id"] for c in CASES]
    assert not any(c.mismatches for c in seen)
    assert (tally.lines, tally.passed, tally.failed) == (50, 50, 0)
    assert tally.summary() == "50 passed, 0 failed" and tally.exit_code() == 0
    assert seen[0].json_line() == json.dumps(seen[0].output, ensure_ascii=False)
    assert seen[0].mismatch_line() is None
    wrong = dict(CASES[0], expect=dict(CASES[0]["expect"], tai=99))
    bad = [json.dumps(wrong), "", "{not json"]
    got = []
    tally = check_cases(bad, check=True, on_case=got.append)
    assert (tally.lines, tally.errors, tally.passed, tally.failed) == (2, 1, 0, 2)
    assert tally.summary() == "0 passed, 2 failed" and tally.exit_code() == 1
    assert got[0].mismatch_line().startswith(f"MISMATCH {CASES[0]['id']}: tai: expected 99")
    assert got[1].error and got[1].case_id == "line 3" and "bad JSON" in got[1].output["error"]
    tally = check_cases(bad)
    assert (tally.passed, tally.failed) == (0, 0)
    assert tally.summary() == "1 scored, 1 errors" and tally.exit_code() == 2
