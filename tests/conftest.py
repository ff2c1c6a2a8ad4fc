"""Fixtures shared by several test modules.

* ``tables``: the hand-kernel lookup tables (``nbsim.rules.lookups.load_tables()``),
  once per session.
* ``runner``: a click ``CliRunner`` for the command-line tests.
* ``shipped_config``: a test taking this argument runs once for every config
  file in configs/*.toml (``SHIPPED_CONFIGS``), so a new variant is tested
  without editing a list.

A module that defines a fixture of the same name uses its own (pytest's
usual override), e.g. tests/test_hand.py's tables in a temporary cache.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_CONFIGS = sorted(p.stem for p in (ROOT / "configs").glob("*.toml"))


def pytest_generate_tests(metafunc):
    """Parametrise ``shipped_config`` over configs/*.toml (ids: config names)."""
    if "shipped_config" in metafunc.fixturenames:
        metafunc.parametrize("shipped_config", SHIPPED_CONFIGS, ids=SHIPPED_CONFIGS)


@pytest.fixture(scope="session")
def tables():
    """The lookup tables of nbsim.rules.lookups (built or read from the cache once)."""
    from nbsim.rules.lookups import load_tables
    return load_tables()


@pytest.fixture()
def runner():
    """A click CliRunner for invoking nbsim.cli.cli."""
    from click.testing import CliRunner
    return CliRunner()
