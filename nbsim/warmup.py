"""Compiling the kernels once, in the open.

The Numba kernels are compiled on first use and cached on disk
(``nbsim.kernels.numba_cache``): the first game-mode call on a new checkout
or after a kernel edit compiles the game engine (minutes), every later call
loads it from the cache. ``ensure_compiled`` makes that first call say so
before it starts and show a clock while it runs, instead of looking stuck;
``python -m nbsim.warmup`` (run by ``make setup``) compiles the kernels of
game mode, deal mode and scoring ahead of time. Both compile in processes
of their own, in parallel where the groups allow (``AFTER``), each running
``nbsim.cli.warm.exercise``: this module, low in the layers (docs/layout.md),
imports none of the packages those calls go through. The game engine itself
is split over two processes: the engine calls its scorer and the policies'
decisions by their addresses (``nbsim.kernels.entry``), so one process
compiles the scorer (``engine.loop.scorer_entry``) and the default policy's
win and discard decisions (``engine.loop.compile_decisions``) while the
other compiles the turn loop with its parts (``engine.loop.engine_entry``),
the batch and the default policy's kong and claim decisions, then waits
for the first to load what it compiled from the cache and play (the two
take about as long).

A kernel group counts as compiled once a call through it finished in this
cache folder (a marker file ``compiled-<group>`` there): the folder is named
by a hash of the kernel sources, so an edit starts with no markers.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from nbsim.args import stderr_is_terminal

# wall-clock seconds of a cold compile on a 2-core machine (only used for the
# message)
ESTIMATE_S = {"game": 45, "scorer": 45, "match": 20, "wall": 15, "deal": 10, "score": 10,
              "lookahead": 22, "advice": 23}
GROUPS = tuple(ESTIMATE_S)
# groups compiled after another one: whole matches, given walls and the
# evaluator share the game engine's kernels and load them from the cache once
# the engine is compiled (compiled at the same time, each process would
# compile all of it again); the search policy's playouts share the
# evaluator's
LOADS = {"match": "game", "wall": "game", "advice": "game", "lookahead": "advice"}
# the groups each group starts after in the warm-up (those to be compiled
# too): the groups it loads; deal mode and the scorer's own entry wait for
# the engine's scorer, so that it has a core to itself; whole matches wait
# for the evaluator as well, so that the evaluator and then the search
# policy (the longest chain) share the cores only with the short groups
# (deal mode, the scorer's entry, given walls)
AFTER = {**{g: (before,) for g, before in LOADS.items()},
         "deal": ("scorer",), "score": ("scorer",),
         "match": ("game", "advice"), "wall": ("game",)}
# the game engine is compiled in two processes (the scorer and the default
# policy's win and discard decisions; the turn loop, the batch and its kong
# and claim decisions): "scorer" goes with
# "game" whenever the engine is compiled, by the warm-up and by
# ``ensure_compiled`` alike (both cores)
HELPERS = {"game": "scorer"}
# the first lines of a compiling process: numba's warning that the kernels'
# tuples of compiled functions are an experimental feature reaches the
# terminal highlighted (escape codes before the text), which the kernels'
# own filters (by the text's start) miss
_QUIET = ("import warnings; warnings.filterwarnings('ignore', "
          "message='.*First-class function type feature is experimental'); ")


def _folder() -> Path | None:
    from nbsim.kernels.jit import cache_folder_in_use
    return cache_folder_in_use()


def is_compiled(group: str) -> bool:
    """True when ``group`` (one of ``GROUPS``: 'game' independent deals,
    'match' whole matches, 'wall' a deal from a given wall, 'deal' deal mode,
    'score' the scorer, 'advice' the evaluator, 'lookahead' the search
    policy's decisions, 'scorer' the game engine's scorer) ran in this
    cache folder."""
    f = _folder()
    return f is not None and (f / f"compiled-{group}").is_file()


def mark_compiled(group: str) -> None:
    """Record that ``group`` compiled in this cache folder (its marker file)."""
    f = _folder()
    if f is not None:
        with contextlib.suppress(OSError):
            (f / f"compiled-{group}").write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))


def await_compiled(group: str, limit_s: float) -> None:
    """Wait until ``group`` is compiled (its marker), at most ``limit_s`` seconds."""
    t0 = time.perf_counter()
    while not is_compiled(group) and time.perf_counter() - t0 < limit_s:
        time.sleep(0.5)


def ensure_compiled(group: str, echo: Callable[[str], None] | None = None,
                    clock: bool | None = None) -> None:
    """Compile (or load) the kernels of ``group`` now, after the groups
    whose kernels it loads (``LOADS``) that are not compiled yet. When they are
    not yet compiled in this cache folder, first tell ``echo`` (default:
    stderr) "compiling the ... kernels, once, about N s", and show the
    seconds passing while it runs (``clock``; default: when stderr is a
    terminal). Raises RuntimeError when a compile process fails."""
    if is_compiled(group):
        return
    echo = echo or (lambda s: print(s, file=sys.stderr, flush=True))
    todo = _with_helpers(_chain(group))
    est = _wall_estimate(todo)
    first = [g for g in todo if g != group and g not in HELPERS.values()]
    echo(f"compiling the {group} kernels"
         + (f" (after the {', '.join(first)} kernels they load)" if first else "")
         + f", once, about {est} s on a 2-core machine (cached for later runs in {_folder()})")
    show = stderr_is_terminal() if clock is None else clock
    done = threading.Event()
    t0 = time.perf_counter()

    def tick():
        from tqdm import tqdm
        with tqdm(total=est, unit="s", desc="compiling", file=sys.stderr,
                  bar_format="{desc}: {n:.0f} s of about {total:.0f} s") as bar:
            while not done.wait(1.0):
                bar.n = time.perf_counter() - t0
                bar.refresh()

    th = threading.Thread(target=tick, daemon=True) if show else None
    if th is not None:
        th.start()
    try:
        rc = _compile_in_processes(todo, None)
    finally:
        done.set()
        if th is not None:
            th.join()
    if rc != 0 or not is_compiled(group):
        raise RuntimeError(f"compiling the {group} kernels failed (exit status {rc}); "
                           f"run `python -m nbsim.warmup {group}` to see why")
    echo(f"compiled in {time.perf_counter() - t0:.0f} s")


def main(argv=None) -> int:
    """``python -m nbsim.warmup [GROUP ...]``: compile the kernel groups
    (default: every group of ``GROUPS``), each in its own process, in
    parallel, except that the groups of ``AFTER`` start once the groups they
    wait for are compiled; the game engine's group takes longest
    (ESTIMATE_S). Returns
    the exit status (0: all compiled; 2: an unknown group)."""
    groups = list(argv if argv is not None else sys.argv[1:]) or list(GROUPS)
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        print(f"unknown kernel group {bad[0]!r}; allowed: {', '.join(GROUPS)}", file=sys.stderr)
        return 2
    todo = _with_helpers([g for g in groups if not is_compiled(g)])
    if not todo:
        print("kernels already compiled")
        return 0
    est = _wall_estimate(todo)
    print(f"compiling kernels ({', '.join(todo)}), once, about {est} s on a 2-core machine, "
          f"in parallel processes (cached for later runs in {_folder()})", flush=True)
    from tqdm import tqdm
    with tqdm(total=est, unit="s", desc="compiling", file=sys.stderr,
              disable=not stderr_is_terminal(),
              bar_format="{desc}: {n:.0f} s of about {total:.0f} s") as bar:
        return _compile_in_processes(todo, bar)


def _chain(group: str) -> list[str]:
    """``group`` after the groups whose kernels it loads (``LOADS``, each in
    turn) that are not compiled yet, first ones first: compiled alone, it
    would compile theirs too, and take far longer than its estimate."""
    chain = [group]
    while LOADS.get(chain[0]) is not None and not is_compiled(LOADS[chain[0]]):
        chain.insert(0, LOADS[chain[0]])
    return chain


def _with_helpers(todo: list[str]) -> list[str]:
    """``todo`` with the helper of each group whose engine is to be compiled
    (``HELPERS``: the game engine's scorer), unless that is compiled."""
    todo = list(todo)
    for g, helper in HELPERS.items():
        if g in todo and helper not in todo and not is_compiled(helper):
            todo.insert(todo.index(g) + 1, helper)
    return todo


def _compile_in_processes(todo: list[str], bar) -> int:
    """Compile the groups ``todo``, each in its own process running
    ``nbsim.cli.warm.exercise`` (the calls through each group's kernels,
    made from the command line's layer, which may import every package),
    in parallel, except that the groups of ``AFTER`` start once the groups
    they wait for are compiled. ``bar``: a tqdm bar ticked with the
    seconds passed (its ``write`` reports each group), or None. Returns 0
    when every process succeeded, else a nonzero exit status."""
    import subprocess
    t0 = time.perf_counter()
    rc = 0
    waiting = list(todo)
    procs: dict = {}
    while waiting or procs:
        for g in [g for g in waiting
                  if not any(b in waiting or b in procs for b in AFTER.get(g, ()))]:
            waiting.remove(g)
            wait = HELPERS.get(g) if HELPERS.get(g) in todo else None
            code = f"{_QUIET}from nbsim.cli.warm import exercise; exercise({g!r}, {wait!r})"
            procs[g] = subprocess.Popen([sys.executable, "-c", code])
        for g, proc in list(procs.items()):
            if proc.poll() is not None:
                rc |= proc.returncode
                del procs[g]
                if bar is not None:
                    bar.write(f"  {g}: {'done' if proc.returncode == 0 else 'FAILED'} "
                              f"after {time.perf_counter() - t0:.0f} s", file=sys.stdout)
        if bar is not None:
            bar.n = time.perf_counter() - t0
            bar.refresh()
        if waiting or procs:
            time.sleep(0.5)
    return rc


def _wall_estimate(todo: list[str]) -> int:
    """Seconds the warm-up of ``todo`` takes: a group of AFTER starts when
    the groups it waits for are done."""
    done: dict[str, int] = {}

    def finish(g: str) -> int:
        if g not in done:
            start = max((finish(b) for b in AFTER.get(g, ()) if b in todo), default=0)
            done[g] = start + ESTIMATE_S[g]
        return done[g]
    return max((finish(g) for g in todo), default=0)


if __name__ == "__main__":
    sys.exit(main())
