"""Compile time of the Numba kernels, from an empty cache, group by group.

Each kernel group of ``nbsim.warmup`` (``GROUPS``) is compiled in a fresh
subprocess as the first command that needs it compiles it
(``nbsim.warmup.ensure_compiled``), one after the other in one cache folder
that starts empty (``NBSIM_NUMBA_CACHE`` set to a new temporary folder), in
the order a new user meets them: the game engine (the first game-mode
run), then the evaluator (the first advice, which loads the game engine
from the cache), the search policy in play, then the rest. Every figure is
the wall-clock seconds of the child process (imports included; its CPU
seconds in the note, steadier on a shared machine), beside the reference
figures of a cold compile on an idle 2-core machine before the compile
work (``REFERENCE_S``: the game engine, the lookahead group that held both
the evaluator and the search policy, the rest): the ratio is reference /
today. Compare figures of one run, or of runs made in the same period.

Inside each child, numba's compile events (``numba.core.event``, kind
``numba:compile``) give the seconds of every compiled specialisation
(dispatcher and argument types): inclusive (its callees compiled while it
was typed included) and exclusive (without them). Numba's pass
events (``numba:run_pass``) give the seconds of each compiler pass (type
inference, inlining, lowering, ...) and its LLVM-lock events
(``numba:llvm_lock``) the seconds spent in LLVM. ``python -m
benchmarks.bench_compile [GROUP ...]`` prints the ten costliest
specialisations per group and the split by stage;
``make bench`` shows the group totals and the costliest specialisation of
each group.

Quick mode (``bench(quick=True)``) compiles only the ``deal`` group.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Result

# seconds of a cold compile on an idle 2-core machine before the compile
# work: the game engine, the lookahead after it (the evaluator and the
# search policy in one group), and the rest
REFERENCE_S = {"game": 165.0, "lookahead": 164.0, "rest": 20.0}
# the order a new user meets the groups in (those of ``nbsim.warmup.GROUPS``
# are compiled); "rest" is every group after the lookahead's
ORDER = ("game", "advice", "lookahead", "deal", "score", "match", "wall")
SEARCH = ("advice", "lookahead")
REST = ("deal", "score", "match", "wall")
QUICK = ("deal",)

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
from numba.core import event
spans = []
stack = []
stages = {}
pass_stack = []
llvm = [0, 0.0, 0.0]      # depth, start, seconds
class L(event.Listener):
    def on_start(self, ev):
        stack.append([ev.data, time.perf_counter(), 0.0])
    def on_end(self, ev):
        data, t, child = stack.pop()
        dt = time.perf_counter() - t
        if stack:
            stack[-1][2] += dt
        d = data["dispatcher"]
        name = getattr(d, "py_func", d)
        name = getattr(name, "__module__", "?") + "." + getattr(name, "__qualname__", str(name))
        spans.append((name, str(data["args"]), dt, dt - child))
class P(event.Listener):      # compiler passes, exclusive of the passes nested in them
    def on_start(self, ev):
        pass_stack.append([ev.data["name"].split(" [")[0], time.perf_counter(), 0.0])
    def on_end(self, ev):
        name, t, child = pass_stack.pop()
        dt = time.perf_counter() - t
        if pass_stack:
            pass_stack[-1][2] += dt
        stages[name] = stages.get(name, 0.0) + dt - child
class V(event.Listener):      # the LLVM lock, outermost holds only
    def on_start(self, ev):
        llvm[0] += 1
        if llvm[0] == 1:
            llvm[1] = time.perf_counter()
    def on_end(self, ev):
        llvm[0] -= 1
        if llvm[0] == 0:
            llvm[2] += time.perf_counter() - llvm[1]
event.register("numba:compile", L())
event.register("numba:run_pass", P())
event.register("numba:llvm_lock", V())
from nbsim import warmup
from nbsim.cli.warm import exercise
group = sys.argv[1]
helper = warmup.HELPERS.get(group)
if sys.argv[2] == "alone" or helper is None or warmup.is_compiled(helper):
    exercise(group)
else:      # as ensure_compiled: the helper group in a process of its own, at the same time
    import subprocess
    proc = subprocess.Popen([sys.executable, "-c",
                             f"from nbsim.cli.warm import exercise; exercise({helper!r})"])
    exercise(group, helper)
    proc.wait()
print(json.dumps({"seconds": time.perf_counter() - t0, "spans": spans, "stages": stages,
                  "llvm": llvm[2]}))
"""


def compile_group(group: str, cache: Path, alone: bool = False) -> dict:
    """Compile ``group`` (one of ``nbsim.warmup.GROUPS``) in a fresh Python
    process with the numba cache folder parent ``cache``, as the first
    command that needs it does (``warmup.ensure_compiled``: a helper group
    compiled at the same time in a process of its own, whose compiles the
    spans leave out), or with ``alone`` all in that process
    (``nbsim.cli.warm.exercise``, every compile in the spans). Returns
    {"wall": wall-clock seconds of the process, "cpu": CPU seconds of it and
    of the helper process it waited for (less sensitive to a loaded
    machine than the wall clock), "seconds": seconds from its
    first import to the end of the warm-up call, "spans": [(function,
    argument types, inclusive s, exclusive s), ...] per compiled
    specialisation, "stages": {compiler pass name: seconds}, exclusive of
    the passes nested in it (a callee's compile inside a caller's type
    inference), "llvm": seconds the process held numba's LLVM lock
    (LLVM's optimization and code emission)}. Raises
    subprocess.CalledProcessError when it fails."""
    env = dict(os.environ, NBSIM_NUMBA_CACHE=str(cache))
    env.pop("NUMBA_CACHE_DIR", None)
    import resource
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, group, "alone" if alone else "ensure"],
                          env=env, check=True,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    rec["wall"] = wall
    rec["cpu"] = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return rec


def compile_all(groups: tuple[str, ...] = ORDER, cache: Path | None = None,
                alone: bool = False) -> dict[str, dict]:
    """``compile_group`` of every group of ``groups`` known to
    ``nbsim.warmup.GROUPS`` in turn, in one cache folder (a new empty
    temporary one unless ``cache`` is given)."""
    from nbsim.warmup import GROUPS
    if cache is None:
        with tempfile.TemporaryDirectory(prefix="nbsim-compile-") as tmp:
            return compile_all(groups, Path(tmp), alone)
    return {g: compile_group(g, cache, alone) for g in groups if g in GROUPS}


def top_spans(rec: dict, n: int = 10) -> list[tuple[str, str, float, float, int]]:
    """The ``n`` functions with the most exclusive compile seconds in one
    group's record: (function, argument types of its costliest
    specialisation, exclusive s summed over its specialisations, inclusive
    s of the costliest, number of specialisations compiled)."""
    by: dict[str, list] = {}
    for name, args, incl, excl in rec["spans"]:
        e = by.setdefault(name, [name, args, 0.0, incl, 0, excl])
        e[2] += excl
        e[4] += 1
        if excl > e[5]:
            e[1], e[3], e[5] = args, incl, excl
    rows = sorted(by.values(), key=lambda e: -e[2])[:n]
    return [(e[0], e[1], e[2], e[3], e[4]) for e in rows]


def top_stages(rec: dict, n: int = 5) -> list[tuple[str, float]]:
    """The ``n`` compiler passes with the most seconds in one group's record
    (name, seconds exclusive of nested passes), costliest first. Numba's
    lowering pass includes the LLVM work on the function it lowers
    (``rec["llvm"]`` gives all the LLVM seconds)."""
    return sorted(rec.get("stages", {}).items(), key=lambda kv: -kv[1])[:n]


def bench(quick: bool = False) -> list[Result]:
    """Compile every group from an empty cache (only ``QUICK`` in quick
    mode) and tabulate it (``rows``)."""
    return rows(compile_all(QUICK if quick else ORDER), quick)


def rows(recs: dict[str, dict], quick: bool = False) -> list[Result]:
    """The table rows of ``compile_all``'s records: each group's seconds,
    beside the reference where there is one, with its CPU and LLVM
    seconds and costliest function in the note; then the sums (every
    group's unless ``quick``)."""
    out = []
    base = "before the compile work"
    search = [g for g in SEARCH if g in recs]
    for g, rec in recs.items():
        top = top_spans(rec, 1)
        note = (f"{rec['cpu']:.0f} CPU s, LLVM {rec['llvm']:.0f} s of it; "
                f"{len(rec['spans'])} specialisations compiled; "
                f"costliest {top[0][0]} {top[0][2]:.1f} s exclusive" if top
                else "loaded from the cache")
        ref = REFERENCE_S["game"] if g == "game" else (
            REFERENCE_S["lookahead"] if search == [g] else float("nan"))
        out.append(Result(f"compile from empty cache: {g} (subprocess)", rec["wall"], "s",
                          "" if ref != ref else base, ref, note))
    rest = [g for g in REST if g in recs]
    for got, ref in ((search, REFERENCE_S["lookahead"]), (rest, REFERENCE_S["rest"])):
        if len(got) > 1:
            t = sum(recs[g]["wall"] for g in got)
            out.append(Result(f"compile from empty cache: {' + '.join(got)}", t, "s", base, ref))
    if not quick:
        t = sum(r["wall"] for r in recs.values())
        out.append(Result("compile from empty cache: every group, one after the other", t, "s",
                          base, sum(REFERENCE_S.values())))
    return out


def main(argv: list[str] | None = None) -> int:
    """Print every group's compile seconds (each compiled in one process)
    and its costliest functions."""
    groups = tuple(argv if argv is not None else sys.argv[1:]) or ORDER
    recs = compile_all(groups, alone=True)
    for g, rec in recs.items():
        print(f"== {g}: {rec['wall']:.1f} s wall, {rec['cpu']:.1f} CPU s "
              f"({len(rec['spans'])} specialisations)")
        for name, args, excl, incl, n in top_spans(rec):
            print(f"  {excl:7.1f} s excl  {incl:7.1f} s incl  x{n}  {name}  {args[:100]}")
        print(f"  LLVM (optimization and code emission): {rec['llvm']:.1f} s; costliest passes: "
              + ", ".join(f"{name} {t:.1f} s" for name, t in top_stages(rec)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
