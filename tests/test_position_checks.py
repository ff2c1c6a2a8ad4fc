"""Tables that cannot exist are refused with one message each, wherever a
position comes in: ``nbsim advise`` (options or ``--state``), the JSON
state (``position_from_state``) and the Python API (``check_position``,
``evaluate``, ``exact_own_draws``) given a ``Position`` built by hand.

* More unseen flowers than the wall's tiles can hold: a drawn flower is
  set aside at once, so the unseen ones are never in a hand.
* A face-down kong of another seat when every kind (not a wild) has a
  copy in sight.
* A Position whose fields are out of range or of the wrong type or shape
  (a negative count, a seat 7, tiles_left 2.5, a float hand), each named.
"""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from test_exact_own_draw import FOUR_MELDS, late_state

from nbsim.cli import cli
from nbsim.errors import HandError
from nbsim.play.advice.state import check_position, position_from_state
from nbsim.play.evaluation import evaluate, exact_own_draws
from nbsim.play.position import example_position

RULES = "ningbo-3baida"

# every tile but one 5m and the 8 flowers on the table: the others' three
# concealed tiles cannot all be non-flowers, so 8 flowers cannot hide
FLOWERS_HIDDEN = late_state(hand="1112345678999m5z", drawn="5z", indicator="9p",
                            melds=FOUR_MELDS, unseen="5m12345678f", flowers={})
FLOWERS_MSG = r"8 flowers unseen \(12345678f\), but a drawn flower is set aside"
# every kind in sight: South's face-down kong cannot be
KONG_HIDDEN = {"hand": "1112345678999m5z", "drawn": "5z", "indicator": "9p",
               "discards": {"E": "123456789p", "S": "123456789s", "W": "1234567z"},
               "melds": {"S": ["ckong"]}}
KONG_MSG = r"1 face-down kong of the other seats, but only 0 kinds"


@pytest.mark.parametrize("state, msg", [(FLOWERS_HIDDEN, FLOWERS_MSG), (KONG_HIDDEN, KONG_MSG)])
def test_a_table_that_cannot_exist_is_refused(state, msg, tmp_path, runner):
    with pytest.raises(HandError, match=msg):
        position_from_state(RULES, state)
    path = tmp_path / "table.json"
    path.write_text(json.dumps(state))
    r = runner.invoke(cli, ["advise", RULES, "--state", str(path), "--samples", "0"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    first = msg.split(r"\(")[0].split(",")[0]
    assert first in r.output.replace("\n", " ")


def test_the_same_tables_with_room_pass():
    # the same late table with every flower set aside fits (no tile left)
    ok = late_state(hand="1112345678999m5z", drawn="5z", indicator="9p", melds=FOUR_MELDS,
                    unseen="5m6m7m", flowers={"S": "1234f", "N": "5678f"})
    assert position_from_state(RULES, ok).tiles_left == 0
    # a kind with no copy in sight (5s) can be the face-down kong
    fits = {**KONG_HIDDEN, "discards": {"E": "123456789p", "S": "12346789s", "W": "1234567z"}}
    assert position_from_state(RULES, fits).n_melds[1] == 1


BAD_FIELDS = [
    ("hand", lambda p: _with(p.hand, 0, -1), r"hand \(copies held by kind\) holds -1"),
    ("hand", lambda p: p.hand.astype(float), r"hand .*integer array of shape \(42,\), got float64"),
    ("hand", lambda p: p.hand[:34], r"hand .*shape \(42,\), got int8 array of shape \(34,\)"),
    ("seat", lambda p: 7, r"seat 7: allowed a whole number 0..3"),
    ("to_play", lambda p: 9, r"to_play 9: allowed a whole number 0..3"),
    ("tiles_left", lambda p: 2.5, r"tiles_left 2.5: allowed a whole number of tiles"),
    ("drawn", lambda p: 50, r"drawn 50: allowed a kind 0..41, or -1"),
    ("n_melds", lambda p: _with(p.n_melds, 1, 7), r"n_melds \(melds per seat\) holds 0 .. 7"),
    ("replacement", lambda p: "yes", r"replacement 'yes': allowed True or False"),
    ("passed", lambda p: np.zeros((3, 3), bool), r"passed: allowed None or a bool array"),
]


def _with(a: np.ndarray, i: int, v: int) -> np.ndarray:
    b = a.copy()
    b[i] = v
    return b


@pytest.mark.parametrize("field, value, msg", BAD_FIELDS)
def test_a_position_built_by_hand_is_checked_field_by_field(field, value, msg):
    pos = example_position()
    bad = dataclasses.replace(pos, **{field: value(pos)})
    for call in (lambda: check_position(RULES, bad), lambda: exact_own_draws(RULES, bad),
                 lambda: evaluate(RULES, bad, samples=2)):
        with pytest.raises(HandError, match=f"position: {msg}"):
            call()
