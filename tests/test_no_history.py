"""What a user reads describes nbsim as it is: no work history ("stop 32",
"issue 23", "since stop 38", "the old default", "was renamed") and no path
of a file that is not in the repository.

What a user reads: README.md, docs/**/*.md, notebooks (their README and
every cell), the shipped configs (configs/*.toml), the targets' help in the
Makefile (``## target: ...``, which ``make help`` prints), the help of every
command and option of ``nbsim.cli.cli`` and the output of ``nbsim
policies``, and the docstrings (module, class, function) of nbsim/ and
benchmarks/. The changelog is the one place for history (CHANGELOG.md,
and docs/changelog.md, which includes it)."""
from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent

# Phrases that tell how the product was made rather than what it is.
HISTORY = re.compile(
    r"""\bstops?\s+\d+                          # stop 32, stops 33-35
      | \bissues?\s+\#?\d+                      # issue 23, (issue 10)
      | \b(?:since|before|until|after)\s+(?:stop|issue)\b
      | \b(?:this|an?\s+earlier)\s+stop\b
      | \b(?:was|were|has\s+been|have\s+been)\s+renamed\b
      | (?<!\bis\s)(?<!\bare\s)(?<!\bbe\s)(?<!\bbeen\s)(?<!\bwas\s)(?<!\bwere\s)\bused\s+to\b
      | \b(?:is|are)\s+now\b
      | \bnow\s+(?:defaults?|uses?|plays?|reads?|holds?|measures?|loads?|replays?|takes?
                 |gives?|prints?|writes?|says?|shows?|follows?|keeps?|runs?|only)\b
      | \bnow\b[^.]{0,80}\bno\s+longer\b
      | \btoday's\b
      | \bthe\s+(?:new|old)\s+(?:default|one|lookahead|defend|policy|side)\b
      | \b(?:default|it)\s+became\b | \bbecame\s+the\s+default\b
      | \ban?\s+earlier\s+(?:version|note)\b
      | \buntil\s+then\b
      | \bformerly\b
    """,
    re.I | re.X,
)

# A path in the repository: a top-level folder and a file or folder below it,
# or a top-level file. Run outputs (runs/, site/) are made by the commands.
PATH = re.compile(
    r"(?<![\w./~:-])((?:docs|benchmarks|tests|nbsim|configs|notebooks|\.ci)/[\w./*-]*[\w/*]"
    r"|(?:README|CHANGELOG|RULES|DESIGN|LAYOUT)\.md|pyproject\.toml|mkdocs\.yml)")
# placeholders a reader fills in: configs/NAME.toml, tests/test_x.py
PLACEHOLDER = re.compile(r"[A-Z]{3,}|/test_x\.py$|/x\.py$")
# files outside the repository: the shared source folders, absolute paths
OUTSIDE = re.compile(r"\bseeds?\s+0\d\d\b|/work/|\bshared/(?:seeds|cases|RULES|DESIGN)")


def _text_lines(path: Path) -> Iterator[tuple[str, str]]:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        yield f"{path.relative_to(ROOT)}:{i}", line


def _notebook_lines(path: Path) -> Iterator[tuple[str, str]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for k, cell in enumerate(cells, 1):
        for i, line in enumerate("".join(cell["source"]).splitlines(), 1):
            yield f"{path.relative_to(ROOT)}: cell {k} line {i}", line


def _docstring_lines(path: Path) -> Iterator[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node, clean=False)
        if doc is None:
            continue
        start = node.body[0].lineno
        for j, line in enumerate(doc.splitlines()):
            yield f"{path.relative_to(ROOT)}:{start + j}", line


def _help_lines() -> Iterator[tuple[str, str]]:
    """The help of every command and option of ``nbsim`` (recursively),
    and the output of ``nbsim policies`` (the parameters' texts)."""
    from nbsim.cli import cli

    def walk(cmd: click.Command, name: str) -> Iterator[tuple[str, str]]:
        for text in (cmd.help, cmd.short_help, cmd.epilog):
            for line in (text or "").splitlines():
                yield f"help of `{name}`", line
        for p in cmd.params:
            for line in (getattr(p, "help", None) or "").splitlines():
                yield f"help of `{name} {'/'.join(p.opts)}`", line
        if isinstance(cmd, click.Group):
            for sub_name, sub in cmd.commands.items():
                yield from walk(sub, f"{name} {sub_name}")

    yield from walk(cli, "nbsim")
    out = CliRunner().invoke(cli, ["policies"])
    assert out.exit_code == 0, out.output
    for i, line in enumerate(out.output.splitlines(), 1):
        yield f"`nbsim policies` line {i}", line


def _page_files() -> list[Path]:
    pages = [ROOT / "README.md", ROOT / "notebooks" / "README.md",
             *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for p in pages if p.name != "changelog.md"]


def user_text() -> Iterator[tuple[str, str]]:
    """(where, line) for every line a user reads."""
    for path in _page_files():
        yield from _text_lines(path)
    for path in sorted((ROOT / "configs").glob("*.toml")):
        yield from _text_lines(path)
    for where, line in _text_lines(ROOT / "Makefile"):          # `make help` prints these
        if line.startswith("## "):
            yield where, line
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        yield from _notebook_lines(path)
    for folder in ("nbsim", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield from _docstring_lines(path)


def _history(lines) -> list[str]:
    return [f"{where}: {line.strip()}" for where, line in lines if HISTORY.search(line)]


def _missing_paths(lines) -> list[str]:
    bad = []
    for where, line in lines:
        if OUTSIDE.search(line):
            bad.append(f"{where}: {line.strip()}")
        for m in PATH.findall(line):
            rel = m.rstrip("/.")
            if PLACEHOLDER.search(rel):
                continue
            if not ((ROOT / rel).exists() or "*" in rel and any(ROOT.glob(rel))):
                bad.append(f"{where}: {rel}")
    return bad


def test_history_pattern():
    hits = ["since stop 32", "(issue 10)", "before stop 34", "until issue 23",
            "the option was renamed", "it used to print", "defend now holds at 0.15",
            "it is now the default and no longer folds", "today's defend", "stops 33-35",
            "the new default against the old", "Stop 41 played", "the default became 0.15"]
    misses = ["the seed is used to draw the walls", "a flower is no longer a flower once wild",
              "if East discarded it now", "from now on write no file", "safe for now",
              "the next stop of the wall", "Ctrl-C stops the run", "issues a warning",
              "renamed over the old file with os.replace", "version 0.5.0 (2026-12-06)"]
    assert [h for h in hits if not HISTORY.search(h)] == []
    assert [m for m in misses if HISTORY.search(m)] == []


def test_path_pattern():
    lines = [("a", "see docs/rules.md §6 and benchmarks/bench_game.py, runs/demo/report.md"),
             ("b", "configs/NAME.toml; docs/nothing-here.md; nbsim/cli/runs.py."),
             ("e", "benchmarks/world_*.py, benchmarks/nothing_*.py"),
             ("c", "Sources: seeds 000 and 001"), ("d", "README.md and site/index.html")]
    assert _missing_paths(lines) == ["b: docs/nothing-here.md", "e: benchmarks/nothing_*.py",
                                     "c: Sources: seeds 000 and 001"]


def test_pages_configs_notebooks_docstrings_have_no_history():
    lines = list(user_text())
    assert len(lines) > 10_000                         # the scan reads them all
    found = _history(lines)
    assert not found, f"{len(found)} lines of work history:\n" + "\n".join(found)


@pytest.mark.slow
def test_help_has_no_history():
    lines = list(_help_lines())
    assert any("caution" in line for _, line in lines)   # the policies' parameters
    found = _history(lines)
    assert not found, "\n".join(found)


def test_mentioned_paths_exist():
    bad = _missing_paths(user_text())
    assert not bad, f"{len(bad)} paths not in the repository:\n" + "\n".join(bad)


@pytest.mark.slow
def test_help_paths_exist():
    bad = _missing_paths(_help_lines())
    assert not bad, "\n".join(bad)
