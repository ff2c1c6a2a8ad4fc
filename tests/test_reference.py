"""What the generated references of the docs site read (docs/gen/*.py):
every Parquet column of every mode and shipped variant has a unit and a
meaning (nbsim.run.columns), and every config key of the schema has a
description citing the section of docs/rules.md it implements
(nbsim.rules.ruleset), so no reference page can leave one out."""
from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from nbsim.errors import NbsimError
from nbsim.rules import ruleset as RS
from nbsim.run import columns as COL
from nbsim.run import schema as S

UNITS = {"", "tai", "fan", "fu", "points", "tiles", "count", "pips"}


@pytest.mark.parametrize("config", RS.shipped_configs())
def test_every_column_has_a_description(config):
    rules = RS.load_rules(config)
    seen = 0
    for mode in ("deal", "game", "match"):
        for name in S.column_order(mode, rules):
            c = COL.describe(name)
            assert c.meaning and c.unit in UNITS, (mode, name, c)
            seen += 1
    for name in S.column_order("events"):
        assert COL.describe(name, "events").meaning, name
    assert seen > 150


def test_families_name_their_columns():
    assert COL.describe("tai_full_flush").name == "tai_<item>"
    assert COL.describe("has_chicken_hand").unit == ""
    assert COL.describe("pay_n").unit == "points"
    assert COL.describe("fu_e").name == "fu_<seat>"            # a seat, not an item
    assert COL.describe("fu_self_drawn").name == "fu_<item>"
    assert COL.describe("points_tui_dao_ba").unit == "points"
    assert COL.describe("step", "events").name == "step"


@pytest.mark.parametrize("name, table", [("tai_no_such_item", "deals"), ("pay_x", "deals"),
                                         ("step", "deals"), ("deal", "matches")])
def test_unknown_columns_are_refused(name, table):
    with pytest.raises(NbsimError, match=re.escape(repr(name if table != "matches"
                                                        else table))):
        COL.describe(name, table)


def _keys(model: type[BaseModel], prefix: str = ""):
    for name, f in model.model_fields.items():
        if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel):
            yield from _keys(f.annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", f


def test_every_config_key_has_a_description():
    keys = dict(_keys(RS.RuleConfig))
    assert {"win.min_tai", "payments.payment_rule", "scoring.points.fan_cap",
            "scoring.tai"} <= set(keys)
    for key, f in keys.items():
        assert f.description, key
        if key not in ("name", "description", "sources"):
            assert re.search(r"§\d+", f.description), key            # the rule it implements
