"""The item registry (nbsim/kernels/items.py, docs/items.md): the item
numbers of ``codes``, the names of ``nbsim.rules.names``, the readings the rows
name and the sections of docs/rules.md they cite."""
import importlib
import inspect
import re
from pathlib import Path

import pytest

from nbsim.kernels import codes as C
from nbsim.kernels import items as TI
from nbsim.rules import names as N

ROOT = Path(__file__).resolve().parent.parent
TABLES = {"tai": (TI.TAI_ITEM_TABLE, C.TAI_ITEMS, C.N_TAI, N.TAI_NAMES),
          "fan": (TI.FAN_ITEM_TABLE, C.FAN_ITEMS, C.N_FAN, N.FAN_NAMES),
          "fu": (TI.FU_ITEM_TABLE, C.FU_ITEMS, C.N_FU, N.FU_NAMES)}


@pytest.mark.parametrize("family", sorted(TABLES))
def test_codes_and_names_follow_the_rows(family):
    rows, ids, n, names = TABLES[family]
    assert ids == tuple(r.id for r in rows)
    assert n == len(rows)
    assert len(set(ids)) == len(ids)
    for i, r in enumerate(rows):
        assert getattr(C, r.const) == i, r.const
        assert names[r.id] == r.name
        assert r.level in (TI.HAND, TI.READING), r.id
        assert re.fullmatch(r"§\d+(\.\d+)?(, §\d+(\.\d+)?)*", r.section), r.section


def test_item_numbers_have_no_gaps():
    """Every T_* constant of codes is a row (a constant with no row would be
    an item the kernels score but no config can name)."""
    consts = {k for k in vars(C) if re.fullmatch(r"T_[A-Z_]+", k)}
    assert consts == {r.const for r in TI.TAI_ITEM_TABLE}


def test_every_hand_item_has_its_reading():
    """A hand-level row names a function of tai_hand with the dispatch's
    signature (rules, h); the dispatch calls exactly these, in table order."""
    from nbsim.kernels.scoring import hand_items as tai_hand
    hand_rows = [r for r in TI.TAI_ITEM_TABLE if r.level == TI.HAND]
    assert hand_rows == list(TI.HAND_TAI_ITEMS)
    for r in hand_rows:
        fn = getattr(tai_hand, r.reading)
        assert list(inspect.signature(fn.py_func).parameters) == ["rules", "h"], r.id
        assert f"``{r.id}``" in fn.__doc__, r.id
    assert tuple(getattr(C, r.const) for r in hand_rows) == tai_hand._ITEMS
    assert [f.py_func.__name__ for f in tai_hand._READINGS] == [r.reading for r in hand_rows]


@pytest.mark.parametrize("row", [r for t in (TI.TAI_ITEM_TABLE, TI.FAN_ITEM_TABLE,
                                             TI.FU_ITEM_TABLE)
                                 for r in t if r.level == TI.READING or "." in r.reading],
                         ids=lambda r: r.id)
def test_other_readings_name_kernels(row):
    """Every ``module.function`` a row cites exists in nbsim/kernels."""
    for module, name in re.findall(r"([\w.]+)\.(\w+)", row.reading):
        mod = importlib.import_module(f"nbsim.kernels.{module}")
        assert hasattr(mod, name), f"{module}.{name}"


def test_sections_exist_in_the_rules():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^#+ (\d+(?:\.\d+)?)\.? ", text, re.M))
    for table in (TI.TAI_ITEM_TABLE, TI.FAN_ITEM_TABLE, TI.FU_ITEM_TABLE):
        for r in table:
            for sec in re.findall(r"§(\d+(?:\.\d+)?)", r.section):
                assert sec in headings, (r.id, sec)


def test_items_doc_names_the_files():
    """docs/items.md points at the files a new item touches."""
    text = (ROOT / "docs" / "items.md").read_text(encoding="utf-8")
    for path in ("nbsim/kernels/items.py", "nbsim/kernels/scoring/hand_items.py",
                 "nbsim/kernels/codes.py", "configs/*.toml", "docs/rules.md",
                 "tests/data/scoring_cases.jsonl", "tests/reference_scorer.py"):
        assert path in text, path
