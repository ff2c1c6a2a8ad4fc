"""The package around the kernels: ``import nbsim`` stays free of numba,
every kernel caches where ``numba_cache`` says, no import cycle joins the
package's modules, every CLI command is documented, and the tai item names
agree with their ``T_*`` codes."""
from __future__ import annotations

import ast
import collections
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest

import nbsim
from nbsim.cli import cli
from nbsim.kernels import codes as C
from nbsim.kernels import numba_cache

ROOT = Path(__file__).resolve().parent.parent
KERNEL_MODULES = sorted(
    "nbsim.kernels." + ".".join(p.relative_to(numba_cache.KERNELS_DIR).with_suffix("").parts)
    for p in numba_cache.KERNELS_DIR.rglob("*.py") if p.name != "__init__.py")


def _python(code: str, **env: str) -> str:
    """Run ``code`` in a fresh interpreter; returns its stdout (fails on an error)."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, env={**os.environ, **env}, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


# ---------------------------------------------------------------- lazy numba
def test_import_nbsim_does_not_import_numba():
    out = _python("""
        import sys
        import nbsim
        import nbsim.kernels.codes
        nbsim.load_rules("ninghai")
        print("numba" in sys.modules)
    """)
    assert out.strip() == "False"


def test_rules_command_does_not_import_numba():
    out = _python("""
        import sys
        from nbsim.cli import main
        try:
            main(["rules", "ningbo-3baida"])
        except SystemExit as e:
            assert e.code == 0, e.code
        print("numba" in sys.modules)
    """)
    assert out.rstrip().splitlines()[-1] == "False"
    assert out.startswith("# ningbo-3baida from ")


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_every_kernel_caches_in_the_nbsim_folder(module, tmp_path):
    """Imported alone in a fresh interpreter, every cached kernel of a module
    caches in numba_cache's folder (the module imports its decorators from
    nbsim.kernels.jit, directly or through another kernel module)."""
    out = _python(f"""
        import importlib
        from numba.core.caching import NullCache
        from numba.core.dispatcher import Dispatcher
        mod = importlib.import_module({module!r})
        n = 0
        for name, obj in vars(mod).items():
            if isinstance(obj, Dispatcher) and obj.__module__ == mod.__name__:
                if not isinstance(obj._cache, NullCache):
                    n += 1
                    print(name, obj._cache._cache_path)
        print(n)
    """, NBSIM_NUMBA_CACHE=str(tmp_path))
    *lines, n = out.strip().splitlines()
    src = (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    n_decorated = src.count("\n@njit(cache=True") + src.count("\n@nrt_free")
    assert int(n) == n_decorated
    for line in lines:
        name, path = line.split(" ", 1)
        assert Path(path).is_relative_to(tmp_path), (name, path)


def test_cache_folder_hash_covers_every_kernel_file(tmp_path, monkeypatch):
    """Any edit to any .py file under nbsim/kernels, in a subpackage too,
    names a new cache folder; other files and the numba version as documented."""
    (tmp_path / "policies").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "policies" / "b.py").write_text("y = 1\n")
    (tmp_path / "notes.txt").write_text("not a source\n")
    monkeypatch.setattr(numba_cache, "KERNELS_DIR", tmp_path)
    monkeypatch.delenv("NBSIM_NUMBA_CACHE", raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    first = numba_cache.cache_folder("0.1")
    assert first.parent == tmp_path / "cache" and first.name.startswith("numba-")
    (tmp_path / "notes.txt").write_text("changed\n")
    assert numba_cache.cache_folder("0.1") == first
    (tmp_path / "policies" / "b.py").write_text("y = 2\n")
    second = numba_cache.cache_folder("0.1")
    assert second != first
    assert numba_cache.cache_folder("0.2") != second
    assert numba_cache.compiler_versions().split()[::2] == ["numba", "llvmlite", "numpy"]
    # an explicit folder is a parent too: a kernel edit names a new subfolder
    monkeypatch.setenv("NBSIM_NUMBA_CACHE", str(tmp_path / "explicit"))
    explicit = numba_cache.cache_folder("0.1")
    assert explicit.parent == tmp_path / "explicit" and explicit.name == second.name
    (tmp_path / "a.py").write_text("x = 2\n")
    assert numba_cache.cache_folder("0.1").parent == tmp_path / "explicit"
    assert numba_cache.cache_folder("0.1") != explicit


def test_cache_folder_of_a_clone_elsewhere_is_the_same(tmp_path, monkeypatch):
    """The same kernel sources at another path (a second clone, a worktree,
    a moved checkout) name the same cache folder, and a changed source in
    one of them a folder of its own."""
    for clone in ("one", "two"):
        (tmp_path / clone / "kernels").mkdir(parents=True)
        (tmp_path / clone / "kernels" / "a.py").write_text("x = 1\n")
    monkeypatch.delenv("NBSIM_NUMBA_CACHE", raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(numba_cache, "KERNELS_DIR", tmp_path / "one" / "kernels")
    one = numba_cache.cache_folder("0.1")
    monkeypatch.setattr(numba_cache, "KERNELS_DIR", tmp_path / "two" / "kernels")
    assert numba_cache.cache_folder("0.1") == one
    (tmp_path / "two" / "kernels" / "a.py").write_text("x = 2\n")
    assert numba_cache.cache_folder("0.1") != one


def test_a_second_clone_loads_the_compiled_kernels(tmp_path):
    """A kernel compiled from one copy of the package is loaded, not
    compiled, by a copy of the same package elsewhere (numba_cache's
    locator files compiled code by its folder inside nbsim/kernels)."""
    for clone in ("one", "two"):
        shutil.copytree(ROOT / "nbsim", tmp_path / clone / "nbsim",
                        ignore=shutil.ignore_patterns("__pycache__"))
    code = """
        import numpy as np
        from nbsim.kernels import rng
        rng.deal_key(np.uint64(5), np.int64(3))
        s = rng.deal_key.stats
        print(rng.__file__, sum(s.cache_hits.values()), sum(s.cache_misses.values()))
    """
    runs = []
    for clone in ("one", "one", "two"):
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                           text=True, cwd=tmp_path / clone, timeout=300,
                           env={**os.environ, "NBSIM_NUMBA_CACHE": str(tmp_path / "cache"),
                                "PYTHONPATH": str(tmp_path / clone)})
        assert r.returncode == 0, r.stderr
        runs.append(r.stdout.split())
    assert [Path(r[0]).parts[-4] for r in runs] == ["one", "one", "two"]
    assert runs[0][1:] == ["0", "1"]          # compiled in the first copy
    assert runs[1][1:] == ["1", "0"]          # loaded there again
    assert runs[2][1:] == ["1", "0"]          # and loaded by the second copy


# ---------------------------------------------------------------- the CLI
COMMANDS = sorted(cli.commands)


def test_the_cli_has_commands():
    assert {"rules", "score", "simulate", "report", "compare", "replay", "duel"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_and_is_in_the_readme(name, runner):
    cmd = cli.commands[name]
    assert (cmd.help or "").strip(), f"nbsim {name} has no help text"
    assert cmd.get_short_help_str().strip()
    for param in cmd.params:
        if isinstance(param, click.Option):
            assert (param.help or "").strip(), f"nbsim {name} {param.opts[0]} has no help text"
    r = runner.invoke(cli, [name, "--help"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("Usage: ") and f" {name} " in r.output.splitlines()[0]
    # the README shows one example per kind of user; the guides show every command
    pages = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
    shown = re.compile(rf"\bnbsim {re.escape(name)}\b")
    assert any(shown.search(p.read_text(encoding="utf-8")) for p in pages), \
        f"neither README.md nor docs/guide/ shows `nbsim {name}`"


# ---------------------------------------------------------------- imports
def _import_graph(package: Path) -> dict[str, set[str]]:
    """module -> the modules of ``package`` it imports, for every module of
    the package but those of its ``kernels`` folder: every ``import`` and
    ``from ... import`` statement read with ast, at module level, inside
    functions and under ``if TYPE_CHECKING`` alike (relative imports
    resolved). ``from P import X`` counts as importing P.X when P.X is a
    module, else P. Importing a submodule does not count as importing its
    parent packages (Python runs those first, whatever they import), and
    dynamic imports (importlib) are not seen."""
    files = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    checked = {m for m, p in files.items() if "kernels" not in p.relative_to(package).parts}
    graph: dict[str, set[str]] = {}
    for mod in sorted(checked):
        path = files[mod]
        here = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                deps.update(f"{target}.{a.name}" if f"{target}.{a.name}" in files else target
                            for a in node.names)
        graph[mod] = {d for d in deps if d in checked and d != mod}
    return graph


def _import_cycles(graph: dict[str, set[str]]) -> list[tuple[list[str], list[str]]]:
    """For every group of modules that import each other, directly or
    through others (a strongly connected component of ``graph`` with two
    modules or more; Tarjan's algorithm): one shortest cycle through its
    first module (the first module repeated at the end) and the group."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for group in groups:                 # a shortest way back to its first module
        start = min(group)
        came_from: dict[str, str] = {}
        queue = collections.deque([start])
        while start not in came_from:
            v = queue.popleft()
            for w in sorted(graph[v] & group):
                if w not in came_from:
                    came_from[w] = v
                    queue.append(w)
        back = [came_from[start]]
        while back[-1] != start:
            back.append(came_from[back[-1]])
        cycles.append(([*reversed(back), start], sorted(group)))
    return sorted(cycles)


def test_no_import_cycle_in_the_package():
    """No two modules of nbsim (nbsim/kernels aside) import each other,
    directly or through others, counting the imports inside functions."""
    graph = _import_graph(ROOT / "nbsim")
    assert {"nbsim", "nbsim.cli", "nbsim.run.simulate", "nbsim.analysis.report.report",
            "nbsim.play.advice.advise", "nbsim.rules.scorer"} <= set(graph)
    assert "nbsim.run.simulate" in graph["nbsim.analysis.tune.tune"]     # inside a function
    assert not any(m.startswith("nbsim.kernels") for m in graph)
    cycles = _import_cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(
        f"{' -> '.join(cycle)} (all of {', '.join(group)} import each other)"
        for cycle, group in cycles)


def test_the_cycle_check_finds_cycles(tmp_path):
    """The check above names a cycle through an import inside a function
    and a relative import, and leaves the kernels and parent packages out."""
    pkg = tmp_path / "pkg"
    (pkg / "kernels").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg import a\n")
    (pkg / "a.py").write_text("from pkg import b\nfrom pkg.kernels import k\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    (pkg / "d.py").write_text("from pkg.a import name\n")
    (pkg / "kernels" / "__init__.py").write_text("")
    (pkg / "kernels" / "k.py").write_text("from pkg import d\n")
    graph = _import_graph(pkg)
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"},
                     "pkg.c": {"pkg.a"}, "pkg.d": {"pkg.a"}}
    assert _import_cycles(graph) == [(["pkg.a", "pkg.b", "pkg.c", "pkg.a"],
                                      ["pkg.a", "pkg.b", "pkg.c"])]


def test_the_cycle_check_finds_cycles_through_subpackages(tmp_path):
    """Modules of subpackages count: a cycle through ``from pkg.sub import
    m`` (the module m), a relative import from a sibling subpackage and an
    import inside a function is found, and a subpackage's ``__init__`` that
    re-exports its modules closes no cycle with them."""
    pkg = tmp_path / "pkg"
    for sub in ("run", "play"):
        (pkg / sub).mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "run" / "__init__.py").write_text("from pkg.run.files import x\n")
    (pkg / "run" / "files.py").write_text("x = 1\n")
    (pkg / "run" / "simulate.py").write_text("from pkg.play import duel\n")
    (pkg / "play" / "__init__.py").write_text("")
    (pkg / "play" / "duel.py").write_text("def f():\n    from ..run import files\n")
    graph = _import_graph(pkg)
    assert graph == {"pkg": set(), "pkg.run": {"pkg.run.files"}, "pkg.run.files": set(),
                     "pkg.run.simulate": {"pkg.play.duel"}, "pkg.play": set(),
                     "pkg.play.duel": {"pkg.run.files"}}
    assert _import_cycles(graph) == []
    (pkg / "run" / "files.py").write_text("import pkg.run.simulate\nx = 1\n")
    assert _import_cycles(_import_graph(pkg)) == [(
        ["pkg.play.duel", "pkg.run.files", "pkg.run.simulate", "pkg.play.duel"],
        ["pkg.play.duel", "pkg.run.files", "pkg.run.simulate"])]


# The layers of docs/layout.md, lowest first: a module imports modules of
# its own layer or of lower ones only (imports inside functions included).
LAYERS = (
    ("kernels", ("nbsim.kernels",)),
    ("base", ("nbsim.errors", "nbsim.args", "nbsim.version", "nbsim.stats",
              "nbsim.policy_specs", "nbsim.warmup")),
    ("rules", ("nbsim.rules",)),
    ("run", ("nbsim.run",)),
    ("analysis", ("nbsim.analysis",)),
    ("play", ("nbsim.play",)),
    ("cli", ("nbsim.cli", "nbsim.__main__")),
    ("api", ("nbsim",)),
)


def _layer(module: str) -> int:
    """Index in LAYERS of ``module`` (the longest matching prefix)."""
    best, length = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > length:
                best, length = i, len(p)
    assert best is not None, f"{module} is in no layer of LAYERS"
    return best


def _imports(package: Path) -> list[tuple[str, str, list[str]]]:
    """(module, imported module, names imported from it) for every import
    statement of every module of ``package`` (kernels included), at module
    level and inside functions; ``from P import m`` of a module m counts as
    importing P.m."""
    files = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    out = []
    for mod, path in sorted(files.items()):
        here = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                out.extend((mod, a.name, []) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    out.append((mod, sub, []) if sub in files else (mod, target, [a.name]))
    return [(m, t, n) for m, t, n in out if t == package.name or t.startswith(package.name + ".")]


def _layer_violations(package: Path) -> list[str]:
    """Every import of ``package`` that goes up the layers, and every
    private name (``_x``) imported from another package."""
    bad = []
    for mod, target, names in _imports(package):
        if _layer(target) > _layer(mod):
            bad.append(f"{mod} ({LAYERS[_layer(mod)][0]}) imports {target} "
                       f"({LAYERS[_layer(target)][0]})")
        home, there = mod.rsplit(".", 1)[0], target.rsplit(".", 1)[0]
        for name in names:
            if name.startswith("_") and not name.startswith("__") and home != there:
                bad.append(f"{mod} imports the private name {target}.{name}")
    return bad


def test_the_layers_are_kept():
    """kernels < base (errors, args, stats, policy_specs, warmup) < rules <
    run < analysis < play < cli < the public API (docs/layout.md): no import
    goes up, and no module takes a private name from another package."""
    imports = _imports(ROOT / "nbsim")
    assert any(m == "nbsim.cli.hand" and t.startswith("nbsim.play") for m, t, _ in imports)
    assert not _layer_violations(ROOT / "nbsim"), "\n".join(_layer_violations(ROOT / "nbsim"))


def test_the_layer_check_finds_upward_and_private_imports(tmp_path):
    """The check above names an upward import inside a function and a
    private name taken across packages, and lets a downward import pass."""
    pkg = tmp_path / "nbsim"
    for sub in ("run", "play", "kernels"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "run" / "a.py").write_text("def f():\n    from nbsim.play import b\n")
    (pkg / "play" / "b.py").write_text("from nbsim.run.a import f, _g\n")
    (pkg / "kernels" / "k.py").write_text("from nbsim.kernels import j\n")
    (pkg / "kernels" / "j.py").write_text("")
    assert _layer_violations(pkg) == ["nbsim.play.b imports the private name nbsim.run.a._g",
                                      "nbsim.run.a (run) imports nbsim.play.b (play)"]


def test_no_module_family_shares_a_prefix():
    """A family of modules is a package, not a prefix: no folder of nbsim
    holds ``x.py`` beside ``x_*.py``, nor two modules ``x_a.py`` and
    ``x_b.py``."""
    families = []
    for folder in sorted({p.parent for p in (ROOT / "nbsim").rglob("*.py")}):
        stems = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
        heads = collections.Counter(s.split("_")[0] for s in stems if "_" in s)
        for head, n in heads.items():
            if n > 1 or head in stems:
                families.append(f"{folder.relative_to(ROOT)}: {head}*")
    assert not families, f"prefix families: {families}"


# ---------------------------------------------------------------- codes
@pytest.mark.parametrize("names,prefix,count", [
    (C.TAI_ITEMS, "T_", C.N_TAI), (C.FAN_ITEMS, "F_", C.N_FAN), (C.FU_ITEMS, "FU_", C.N_FU)])
def test_item_names_agree_with_their_codes(names, prefix, count):
    """TAI_ITEMS[i] is the item of T_<NAME> == i, and no T_* code lacks a
    name (the same for the Ninghai fan F_* and fu FU_* items)."""
    assert len(names) == count == len(set(names))
    for i, name in enumerate(names):
        assert getattr(C, prefix + name.upper()) == i, name
    codes = {k for k, v in vars(C).items() if k.startswith(prefix) and isinstance(v, int)}
    assert codes == {prefix + n.upper() for n in names}


def test_public_api_names_resolve():
    for name in nbsim.__all__:
        assert getattr(nbsim, name) is not None, name
