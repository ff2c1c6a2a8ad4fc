"""docs/rules.md: every section the code, configs and README cite exists,
and its tables agree with the shipped configs and the names table. Every
dotted ``nbsim.*`` name in the docs, notebooks and wrappers exists, and
docs/layout.md maps every module."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from nbsim.kernels import codes as C
from nbsim.rules import names as N

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
VARIANTS = {"3baida": "ningbo-3baida", "tianyi": "ningbo-3baida-tianyi",
            "7baida": "ningbo-7baida", "tcy": "ningbo-tongchengyou", "ninghai": "ninghai"}
CONFIGS = {short: tomllib.loads((ROOT / "configs" / f"{name}.toml").read_text(encoding="utf-8"))
           for short, name in VARIANTS.items()}


def _sections() -> set[str]:
    top = set(re.findall(r"^## (\d+)\. ", DOC, re.M))
    sub = set(re.findall(r"^### (\d+\.\d+) ", DOC, re.M))
    return top | sub


def _cited_files():
    files = list((ROOT / "nbsim").rglob("*.py")) + list((ROOT / "configs").glob("*.toml"))
    return files + [ROOT / "README.md"]


def _citations(text: str) -> list[str]:
    """Section numbers cited as 'docs/rules.md §6', '§7-§8', '§10.3', and the
    older 'RULES.md section 6' / 'sections 5-8 and 10' (same numbering)."""
    out = []
    for m in re.finditer(r"docs/rules\.md((?:[ ,/and-]*§\d+(?:\.\d+)?)+)", text):
        out += re.findall(r"§(\d+(?:\.\d+)?)", m.group(1))
    for m in re.finditer(r"RULES\.md,? sections? ([\d ,\-and]+)", text):
        for part in re.findall(r"\d+(?:-\d+)?", m.group(1)):
            lo, _, hi = part.partition("-")
            out += [str(i) for i in range(int(lo), int(hi or lo) + 1)]
    return out


def test_cited_sections_exist():
    sections = _sections()
    assert {str(i) for i in range(1, 11)} <= sections
    missing = []
    n = 0
    for f in _cited_files():
        for sec in _citations(f.read_text(encoding="utf-8")):
            n += 1
            if sec not in sections:
                missing.append(f"{f.relative_to(ROOT)}: §{sec}")
    assert n > 20                              # the scan finds the citations
    assert not missing, missing


def test_citation_parser():
    assert _citations("see docs/rules.md §4-§5 and docs/rules.md §10.3") == ["4", "5", "10.3"]
    assert _citations("(RULES.md sections 5-8 and 10)") == ["5", "6", "7", "8", "10"]
    assert "12" not in _sections()


def _table(heading: str, first_col: str) -> list[list[str]]:
    """Rows of the first Markdown table after ``heading`` whose header starts
    with ``first_col``."""
    part = DOC[DOC.index(heading):]
    lines = part.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"| {first_col} |"))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        rows.append([c.strip() for c in ln.strip().strip("|").split("|")])
    return rows


def test_tai_table_matches_configs():
    rows = _table("## 6. Ningbo tai", "id")
    assert [r[0].strip("`") for r in rows] == list(C.TAI_ITEMS)
    for r in rows:
        item = r[0].strip("`")
        assert r[1] == N.TAI_NAMES[item], item
        for short, cell in zip(("3baida", "tianyi", "7baida", "tcy"), r[2:6], strict=False):
            value = CONFIGS[short]["scoring"]["tai"].get(item)
            assert cell == ("-" if value is None else str(value)), (item, short)
        assert re.fullmatch(r"[0-9 ,();a-z]+", r[6]), r[6]          # source numbers


def test_fan_fu_tables_match_ninghai():
    fan = _table("## 8. Ninghai scoring", "id")
    assert [r[0].strip("`") for r in fan] == list(C.FAN_ITEMS)
    for r in fan:
        item = r[0].strip("`")
        assert r[1] == N.FAN_NAMES[item]
        assert r[2].split()[0] == str(CONFIGS["ninghai"]["scoring"]["fan"][item])
    part = DOC[DOC.index("The fu (`[scoring.fu]`"):]
    lines = part.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| id |"))
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")]
            for ln in lines[start + 2:] if ln.startswith("|")]
    rows = rows[:len(C.FU_ITEMS)]
    assert [r[0].strip("`") for r in rows] == list(C.FU_ITEMS)
    for r in rows:
        item = r[0].strip("`")
        assert r[1] == N.FU_NAMES[item]
        assert r[2] == str(CONFIGS["ninghai"]["scoring"]["fu"][item])


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return str(v)


def test_option_table_matches_configs():
    rows = _table("## 9. Variants and options", "option")
    seen = set()
    for r in rows:
        key = r[0].strip("`")
        seen.add(key)
        *tables, name = key.split(".")
        for short, cell in zip(VARIANTS, r[1:6], strict=False):
            node = CONFIGS[short]
            for t in tables:
                node = node[t]
            assert cell == _toml_value(node[name]), (key, short)
    # every scalar option of the configs is in the table
    cfg = CONFIGS["3baida"]
    expected = {f"{t}.{k}" for t in ("wall", "wilds", "claims", "win", "payments")
                for k in cfg[t]}
    expected |= {f"scoring.{k}" for k, v in cfg["scoring"].items() if not isinstance(v, dict)}
    expected |= {f"scoring.points.{k}" for k in cfg["scoring"]["points"]}
    assert expected == seen


@pytest.mark.parametrize("short", list(VARIANTS))
def test_seat_flowers_described(short):
    sf = CONFIGS[short]["flowers"]["seat_flowers"]
    text = ", ".join(f"{seat} {' '.join(sf[seat])}" for seat in "ESWN")
    words = {"E": "East", "S": "South", "W": "West", "N": "North"}
    want = ", ".join(f"{words[s]} {' '.join(sf[s])}" for s in "ESWN")
    assert want in " ".join(DOC.split()), text


# ---------------------------------------------------------------- dotted names
_DOTTED = re.compile(r"(?<![\w/.-])nbsim(?:\.[A-Za-z_]\w*)+")


def _resolves(name: str) -> bool:
    """``nbsim.a.b.c`` names a module, or an attribute (a dataclass field
    too) reached from the longest module prefix."""
    import dataclasses
    import importlib
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for a in parts[i:]:
            if hasattr(obj, a):
                obj = getattr(obj, a)
            elif dataclasses.is_dataclass(obj) and a in {f.name for f in dataclasses.fields(obj)}:
                obj = None
            else:
                return False
        return True
    return False


def _current_text(path: Path) -> str:
    """The text of ``path`` less the sections of docs/layout.md that record
    what moved where (they name the modules as they were)."""
    text = path.read_text(encoding="utf-8")
    if path.name != "layout.md":
        return text
    parts = re.split(r"^(?=## )", text, flags=re.M)
    return "".join(p for p in parts if not p.startswith("## What moved where"))


def test_dotted_names_resolve():
    """Every ``nbsim.<module>[.<name>]`` written in the README, docs/,
    notebooks, benchmarks and the wrappers' docstrings and comments names a
    module or an attribute that exists (modules that moved leave no stale
    name behind)."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "notebooks").glob("*.*")), *sorted((ROOT / "benchmarks").glob("*.py")),
             *sorted(p for p in (ROOT / "nbsim").rglob("*.py") if "kernels" not in p.parts)]
    stale = sorted({(str(f.relative_to(ROOT)), m) for f in files
                    for m in _DOTTED.findall(_current_text(f)) if not _resolves(m)})
    assert not stale, stale
    assert not _resolves("nbsim.tables") and _resolves("nbsim.rules.lookups.load_tables")
    assert _resolves("nbsim.analysis.compare.compare.Comparison.diff")          # a field
    assert _DOTTED.findall("see nbsim.run.files, not nbsim/run.py or x.nbsim.y") == [
        "nbsim.run.files"]


def _layout_tree() -> dict[str, str]:
    """docs/layout.md's tree (its ```text block): folder path under nbsim/
    ('' for nbsim/ itself) -> the text of its lines (its own line, and for
    nbsim/ and kernels/ the lines up to their first subfolder)."""
    text = _current_text(ROOT / "docs" / "layout.md")
    block = text.split("```text", 1)[1].split("```", 1)[0].splitlines()
    tree: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    current = None
    for line in block:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        head = line.strip().split()[0]
        if head.endswith("/"):
            while stack and stack[-1][0] >= indent:
                stack.pop()
            path = "/".join([s for _, s in stack] + [head.rstrip("/")])
            stack.append((indent, head.rstrip("/")))
            current = path.removeprefix("nbsim").lstrip("/") if path.startswith("nbsim") else None
            if current is not None:
                tree[current] = line
        elif current is not None:
            tree[current] += " " + line
    return tree


def test_layout_maps_every_module():
    """docs/layout.md's tree names every package folder of nbsim, each on a
    line of its own at its place, and every module on its folder's lines."""
    import re
    tree = _layout_tree()
    pkg = ROOT / "nbsim"
    missing = []
    for path in sorted(pkg.rglob("*.py")):
        folder = path.parent.relative_to(pkg).as_posix().removeprefix(".")
        if folder not in tree:
            missing.append(f"nbsim/{folder}/")
        elif path.name not in ("__init__.py", "__main__.py") and not re.search(
                rf"(?<![\w.]){re.escape(path.stem)}(?![\w])", tree[folder]):
            missing.append(str(path.relative_to(ROOT)))
    assert "kernels/engine" in tree and "play/advice" in tree
    assert not missing, f"docs/layout.md does not map: {sorted(set(missing))}"
