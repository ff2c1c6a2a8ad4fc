"""Every ``nbsim`` command in the README and the guides runs.

The commands are read from the fenced ``console`` and ``sh`` blocks of
README.md, docs/guide/*.md and docs/variants.md (``$ nbsim ...`` lines, or
every ``nbsim ...`` line of a ``sh`` block, with their ``\\`` continuations),
run in a fresh folder in the order of their page, so that a command reads
the runs the ones before it wrote (``runs/...``), with their sizes shrunk:
``--deals``, ``--first``, ``--duel-deals``, ``--expert-deals``,
``--samples``, ``--trials``, ``--budget`` (and a small size added where a
command's default is large). Each must exit 0 and print something; a
documented command or option that does not exist fails its page's test.
``make`` lines, pip and jupyter are left out (``make docs`` is
tests/test_docs_site.py's)."""
from __future__ import annotations

import math
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from nbsim.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md",
         *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "guide").glob("*.md")),
         "docs/variants.md"]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
SHELL_BLOCKS = {"console", "sh", "shell", "bash"}
NBSIM = re.compile(r"^(?:\.venv/bin/)?nbsim\s")
# A search policy plays about one deal per second per core: its sizes are smaller.
SEARCH = re.compile(r"\blookahead\b")


@dataclass
class Command:
    page: str
    line: int
    text: str                  # as documented
    args: list[str]            # shrunk, without the program name
    stdout_to: str | None      # `> FILE`
    written: list[str]         # as documented, without the program name


def _lines(block: str, lang: str) -> list[tuple[int, str]]:
    """(offset, command line) of a block: continuation lines joined; in a
    console block only the lines after ``$ ``."""
    out: list[tuple[int, str]] = []
    raw = block.splitlines()
    i = 0
    while i < len(raw):
        line, start = raw[i].rstrip(), i
        i += 1
        if lang == "console":
            if not line.startswith("$ "):
                continue
            line = line[2:]
        while line.endswith("\\") and i < len(raw):
            line = line[:-1] + " " + raw[i].strip()
            i += 1
        out.append((start, line.strip()))
    return out


def _small(n: int, search: bool) -> int:
    """A size of the same leading digit, so that sizes keep their order
    where a command extends a run (10,000,000 then 20,000,000) or starts a
    part where another ends (--first)."""
    if n <= 1:
        return n
    lead = n // 10 ** int(math.log10(n))
    return lead * (2 if search else 40)


SIZES = {"--deals", "--first", "--duel-deals", "--expert-deals", "--confirm-deals",
         "--style-deals"}
# what a command gets when its page does not give a size (its default is large)
ADDED = {"ladder": {"--deals": "40"}, "band": {"--deals": "40", "--duel-deals": "4"},
         "tune": {"--trials": "2", "--deals": "40"}, "advise": {"--budget": "0.2"}}


def shrink(args: list[str]) -> list[str]:
    """``args`` (after ``nbsim``) at small sizes."""
    search = any(SEARCH.search(a) for a in args)
    out = list(args)
    for i, a in enumerate(out[:-1]):
        v = out[i + 1]
        if a in SIZES and v.isdigit():
            out[i + 1] = str(_small(int(v), search or a == "--duel-deals"))
        elif a == "--samples":
            out[i + 1] = str(min(int(v), 50))
        elif a == "--trials":
            out[i + 1] = str(min(int(v), 2))
        elif a == "--budget":
            out[i + 1] = str(min(float(v), 0.2))
        elif a == "--styles" and "@" in v:      # a search style's own deals
            out[i + 1] = re.sub(r"@\d+", "@2", v)
    for opt, value in ADDED.get(out[0] if out else "", {}).items():
        if opt not in out:
            out += [opt, value]
    return out


def commands(page: str, text: str) -> list[Command]:
    """The ``nbsim`` commands of a page's shell blocks, in order."""
    found = []
    for m in FENCE.finditer(text):
        lang = m.group(1)
        if lang not in SHELL_BLOCKS:
            continue
        first = text.count("\n", 0, m.start(2)) + 1
        for offset, line in _lines(m.group(2), lang):
            if not NBSIM.match(line):
                continue
            words = shlex.split(line, comments=True)
            stdout_to = None
            if ">" in words:
                k = words.index(">")
                stdout_to, words = words[k + 1], words[:k]
            found.append(Command(page, first + offset, line, shrink(words[1:]), stdout_to,
                                 words[1:]))
    return found


def run_page(page: str, text: str, folder: Path) -> list[str]:
    """Run every command of ``text`` in ``folder``; the failures, as text."""
    shutil.copytree(ROOT / "tests" / "data", folder / "tests" / "data")
    (folder / "docs" / "results").mkdir(parents=True)
    runner = CliRunner()
    failures = []
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        for cmd in commands(page, text):
            res = runner.invoke(cli, cmd.args, catch_exceptions=True)
            if cmd.stdout_to:
                Path(cmd.stdout_to).write_text(res.stdout, encoding="utf-8")
            if res.exit_code != 0 or not res.output.strip():
                why = res.output.strip()[-600:] or repr(res.exception)
                failures.append(f"{cmd.page}:{cmd.line}: {cmd.text}\n  ran: nbsim "
                                f"{shlex.join(cmd.args)}\n  exit {res.exit_code}: {why}")
    finally:
        os.chdir(cwd)
    return failures


def test_commands_are_read():
    text = """intro
```console
$ nbsim simulate ningbo-3baida --mode game --deals 20000 --seed 1 \\
    --out runs/a   # a comment
20,000 deals in 2.0 s
$ make test
```
```sh
.venv/bin/nbsim duel ningbo-3baida --a lookahead --b defend --seating 1v3 --deals 1000 \\
  --first 1000 --seed 1 --json > p2.json
nbsim advise ningbo-3baida --hand 123m --samples 400
```
```python
nbsim.simulate("x")
```
"""
    cmds = commands("page.md", text)
    assert [c.line for c in cmds] == [3, 9, 11]
    assert cmds[0].args == ["simulate", "ningbo-3baida", "--mode", "game", "--deals", "80",
                            "--seed", "1", "--out", "runs/a"]
    assert cmds[1].args[-7:] == ["--deals", "2", "--first", "2", "--seed", "1", "--json"]
    assert cmds[1].stdout_to == "p2.json"
    assert cmds[2].args[-4:] == ["--samples", "50", "--budget", "0.2"]
    assert shrink(["simulate", "x", "--deals", "10000000"]) < ["simulate", "x", "--deals", "9"]
    assert _small(10_000_000, False) < _small(20_000_000, False)


def test_wrong_command_fails(tmp_path):
    text = ("```console\n$ nbsim rules ningbo-3baida\n"
            "$ nbsim rules ningbo-3baida --no-such-option\n"
            "$ nbsim report runs/never-made\n```\n")
    failures = run_page("page.md", text, tmp_path)
    assert len(failures) == 2, failures
    assert "page.md:3" in failures[0] and "no-such-option" in failures[0]
    assert "page.md:4" in failures[1]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_page_commands_run(page, tmp_path):
    text = (ROOT / page).read_text(encoding="utf-8")
    cmds = commands(page, text)
    if not cmds:
        pytest.skip(f"{page} shows no nbsim command")
    failures = run_page(page, text, tmp_path)
    assert not failures, f"{len(failures)} of {len(cmds)} commands failed:\n" + "\n".join(failures)


# What a run's statistics do not depend on: where it is written and how it is played out.
NOT_A_DIFFERENCE = {"out", "workers", "shard_size", "overwrite", "resume", "cluster",
                    "progress", "events"}


def _run_request(args: list[str]) -> dict:
    """The parameters of ``nbsim simulate ARGS`` that a run's statistics
    depend on (click's own parse of the command line)."""
    ctx = cli.commands["simulate"].make_context("simulate", list(args), resilient_parsing=True)
    return {k: v for k, v in ctx.params.items() if k not in NOT_A_DIFFERENCE}


def compared_differences(cmds: list[Command]) -> list[str]:
    """For every ``nbsim compare RUN1 RUN2 ...`` whose runs a ``simulate``
    before it on the page wrote: each run that differs from RUN1 in other
    than exactly one parameter (config, --set, policies, mode, deals, seed,
    format), as text."""
    made: dict[str, dict] = {}
    bad = []
    for cmd in cmds:
        args = cmd.written
        if args[:1] == ["simulate"]:
            out = args[args.index("--out") + 1] if "--out" in args else None
            made[str(out).rstrip("/")] = _run_request(args[1:])
        elif args[:1] == ["compare"]:
            runs = [a.rstrip("/") for i, a in enumerate(args[1:], 1)
                    if not a.startswith("--") and args[i - 1] != "--out"]
            known = [r for r in runs if r in made]
            if len(known) < 2 or known[0] != runs[0]:
                continue
            first = made[runs[0]]
            for r in known[1:]:
                diff = sorted(k for k in first if first[k] != made[r].get(k))
                if len(diff) != 1:
                    bad.append(f"{cmd.page}:{cmd.line}: {runs[0]} and {r} differ in "
                               f"{', '.join(diff) or 'nothing'}")
    return bad


def python_compared_differences(page: str, text: str) -> list[str]:
    """The same check for the ``python`` blocks: ``simulate(CONFIG, ...,
    out=...)`` calls and ``compare([RUN1, RUN2, ...])``."""
    import ast

    def value(node):
        try:
            return ast.literal_eval(node)
        except ValueError:
            return ast.unparse(node)

    def name(call):
        f = call.func
        return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")

    bad = []
    for m in FENCE.finditer(text):
        if m.group(1) != "python":
            continue
        first = text.count("\n", 0, m.start(2)) + 1
        try:
            tree = ast.parse(m.group(2))
        except SyntaxError:
            continue
        made: dict[str, dict] = {}
        calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)),
                       key=lambda n: (n.lineno, n.col_offset))
        for call in calls:
            kw = {k.arg: value(k.value) for k in call.keywords if k.arg}
            if name(call) == "simulate" and "out" in kw:
                req = {"config": value(call.args[0]) if call.args else kw.get("config"),
                       **{k: v for k, v in kw.items() if k not in NOT_A_DIFFERENCE}}
                made[str(kw["out"]).rstrip("/")] = req
            elif name(call) == "compare" and call.args:
                runs = value(call.args[0])
                if not isinstance(runs, (list, tuple)):
                    continue
                runs = [str(r).rstrip("/") for r in runs]
                if len(runs) < 2 or not all(r in made for r in runs):
                    continue
                base = made[runs[0]]
                for r in runs[1:]:
                    keys = set(base) | set(made[r])
                    diff = sorted(k for k in keys if base.get(k) != made[r].get(k))
                    if len(diff) != 1:
                        bad.append(f"{page}:{first + call.lineno - 1}: {runs[0]} and {r} "
                                   f"differ in {', '.join(diff) or 'nothing'}")
    return bad


def test_one_difference_check():
    text = """```console
$ nbsim simulate ningbo-3baida --mode game --deals 20000 --seed 1 --out runs/a
$ nbsim simulate ningbo-3baida --mode game --deals 20000 --seed 1 --set win.min_tai=5 --out runs/b
$ nbsim simulate ningbo-3baida --mode game --deals 20000 --seed 2 --policy value --out runs/c
$ nbsim simulate ningbo-7baida --mode game --deals 20000 --seed 1 --workers 2 --out runs/d
$ nbsim simulate ningbo-3baida --mode game --deals 2000 --seed 1 --out runs/e
$ nbsim compare runs/a runs/b runs/d --out runs/cmp
$ nbsim compare runs/a runs/c
$ nbsim compare runs/a runs/a
$ nbsim compare runs/a runs/e
```"""
    assert compared_differences(commands("p.md", text)) == [
        "p.md:8: runs/a and runs/c differ in policy, seed",
        "p.md:9: runs/a and runs/a differ in nothing"]
    text = """```python
nbsim.simulate("ningbo-3baida", mode="game", deals=10_000, seed=1, out="runs/g",
               policies=("value",) * 4)
nbsim.simulate("ningbo-3baida", mode="game", deals=10_000, seed=2, out="runs/g5",
               overrides=["win.min_tai=5"])
nbsim.simulate("ningbo-3baida", mode="game", deals=10_000, seed=1, out="runs/g6",
               policies=("value",) * 4, workers=2, overrides=["win.min_tai=6"])
cmp = nbsim.compare(["runs/g", "runs/g5"])
cmp = nbsim.compare(["runs/g", "runs/g6"])
```"""
    assert python_compared_differences("p.md", text) == [
        "p.md:8: runs/g and runs/g5 differ in overrides, policies, seed"]


@pytest.mark.parametrize("page", PAGES)
def test_compared_runs_differ_in_one_thing(page):
    """Every example that compares runs changes one thing between them."""
    text = (ROOT / page).read_text(encoding="utf-8")
    assert compared_differences(commands(page, text)) == []
    assert python_compared_differences(page, text) == []
