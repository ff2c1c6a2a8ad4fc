"""One version number: pyproject.toml, ``nbsim.__version__``, the heading
of its CHANGELOG.md entry and ``nbsim --version`` agree (semantic
versioning, CHANGELOG.md)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from click.testing import CliRunner

import nbsim
from nbsim.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def test_one_version_everywhere():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert nbsim.__version__ == version
    headings = re.findall(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings and headings[0] == version       # the newest entry is this version
    out = CliRunner().invoke(cli, ["--version"])
    assert out.exit_code == 0 and version in out.output
