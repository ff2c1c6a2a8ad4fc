"""The benchmark modules import, and the game benchmark's engine call runs
(a smoke test: rates are measured by `make bench`, never asserted here)."""
import importlib
import pkgutil

import benchmarks
from nbsim.rules.ruleset import load_rules


def test_every_benchmark_module_imports():
    names = [m.name for m in pkgutil.iter_modules(benchmarks.__path__)]
    assert "bench_game" in names and "run" in names
    for name in names:
        mod = importlib.import_module(f"benchmarks.{name}")
        if name.startswith("bench_"):
            assert callable(getattr(mod, "bench", None)), name


def test_game_benchmark_plays_every_policy(tables):
    from benchmarks.bench_game import _engine_rate
    from nbsim.kernels.policies.catalog import NAMES, SEARCH
    rs = load_rules("ningbo-3baida")
    for pol in NAMES:
        # a search policy (slow by design) plays few deals and searches little
        spec = f"{pol}:samples=4" if pol in SEARCH else pol
        assert _engine_rate(rs, tables, spec, 2 if pol in SEARCH else 20) > 0
