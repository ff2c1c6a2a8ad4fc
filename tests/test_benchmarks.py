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


def test_duel_benchmark_plays_a_duel_on_one_worker_and_on_every_core(tables):
    """bench_lookahead's duel figure (item 7: duels use every core) runs
    both ways; its rates are what `make bench` compares."""
    from benchmarks.bench_lookahead import _duel_rate
    from nbsim.rules.ruleset import load_rules
    rs = load_rules("ningbo-3baida")
    assert _duel_rate(rs, tables, 4, 1) > 0 and _duel_rate(rs, tables, 4, None) > 0


def test_playout_benchmark_measures_both_players_on_the_same_position():
    """bench_lookahead's playout figures (item 7): defend's and greedy's
    playouts of one position, every candidate on the same worlds."""
    from benchmarks.bench_lookahead import _playout_rate, _positions
    from nbsim.rules.ruleset import load_rules
    rs = load_rules("ningbo-3baida")
    pos = _positions()[2]
    for base in ("defend", "greedy"):
        rate, n_cands = _playout_rate(rs, pos, 4, base)
        assert rate > 0
        assert n_cands == int((pos.hand > 0).sum())


def test_bench_table_shows_times_below_a_second_in_their_own_unit():
    """The exact own-draw answer takes under a millisecond: `make bench`
    must not print it as "0.00 s"."""
    from benchmarks.run import _fmt
    assert _fmt(2.345, "s") == "2.35 s"
    assert _fmt(0.47, "s") == "470 ms"
    assert _fmt(0.0004123, "s") == "412 us"
    assert _fmt(26806.2, "playouts/s") == "26,806"
    assert _fmt(float("nan"), "s") == "-"


def test_bench_page_has_the_machine_every_figure_and_its_ratio(tmp_path):
    """`make bench` publishes its table (docs/results/bench.md): each figure
    with its baseline and ratio under a line naming the machine, and a
    warning when a module failed."""
    from benchmarks.common import Result
    from benchmarks.run import table_lines, write_page
    rows = [Result("compile: game", 36.0, "s", "before", 165.0, "69 CPU s"),
            Result("deals/s, x", 5000.0, "deals/s")]
    table = table_lines(rows)
    assert table[2] == "| compile: game | 36.00 s | s | before | 165.00 s | 4.6x | 69 CPU s |"
    assert table[3] == "| deals/s, x | 5,000 | deals/s | - | - | - |  |"
    page = tmp_path / "new" / "bench.md"
    write_page(page, table, failed=0)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("Measured on ") and "cores" in text and "numba " in text
    assert text.rstrip().endswith(table[-1]) and "failed" not in text
    write_page(page, table, failed=2)
    assert "2 benchmark module(s) failed" in page.read_text(encoding="utf-8")


def test_time_per_discard_counts_the_deals_real_discards(tables):
    """bench_lookahead's cost split (item 7): the discards it divides by
    are those of the same deals played by game mode (seed 1, deals 0..n-1),
    and the time per discard is the deals' time over them."""
    from benchmarks.bench_game import _engine_run
    from benchmarks.bench_lookahead import _seconds_per_discard
    from nbsim.run.game_mode import game_frame
    rs = load_rules("ningbo-3baida")
    for pol in ("random", "defend"):
        rate, discards = _engine_run(rs, tables, pol, 12)
        df = game_frame(rs, 1, 0, 12, (pol,) * 4, tables)[0]
        assert discards == int(df["turns"].sum()) > 12
        rate2, per = _seconds_per_discard(rs, tables, pol, 12)
        assert rate > 0 and rate2 > 0
        assert abs(per - 12 / rate2 / discards) < 1e-12


def test_compile_benchmark_reports_each_group_and_its_costliest_functions():
    """bench_compile's quick mode compiles the deal group from an empty
    cache folder in a fresh process: its row in the table names the
    costliest kernel; ``top_spans`` sums a function's specialisations
    (seconds are measured by `make bench`, never asserted here)."""
    from benchmarks import bench_compile
    from benchmarks.run import _fmt
    recs = bench_compile.compile_all(bench_compile.QUICK)
    rows = bench_compile.rows(recs, quick=True)
    assert [r.name for r in rows] == ["compile from empty cache: deal (subprocess)"]
    assert rows[0].unit == "s" and rows[0].rate > 0 and "specialisations compiled" in rows[0].note
    assert "costliest nbsim.kernels." in rows[0].note and ", LLVM " in rows[0].note
    rec = recs["deal"]
    assert 0 < rec["llvm"] < rec["seconds"]
    stages = bench_compile.top_stages(rec, 3)
    assert len(stages) == 3 and stages[0][1] >= stages[2][1] > 0
    assert {"nopython_type_inference", "native_lowering"} & {name for name, _ in stages}
    assert _fmt(rows[0].rate, rows[0].unit).endswith("s")
    spans = [("f", "(int64,)", 3.0, 1.0), ("g", "(int64,)", 2.0, 2.0), ("f", "(bool,)", 1.5, 1.5)]
    assert bench_compile.top_spans({"spans": spans}) == [
        ("f", "(bool,)", 2.5, 1.5, 2), ("g", "(int64,)", 2.0, 2.0, 1)]
