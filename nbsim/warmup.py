"""Compiling the kernels once, in the open.

The Numba kernels are compiled on first use and cached on disk
(``nbsim.kernels.numba_cache``): the first game-mode call on a new checkout
or after a kernel edit compiles the game engine (minutes), every later call
loads it from the cache. ``ensure_compiled`` makes that first call say so
before it starts and show a clock while it runs, instead of looking stuck;
``python -m nbsim.warmup`` (run by ``make setup``) compiles the kernels of
game mode, deal mode and scoring ahead of time, in parallel processes.
The game engine itself is split over two of them: one compiles its scorer
(``engine.warm_scorer``) and its parts that call no policy
(``games.warm_parts``) while the other compiles the policies
(``engine.warm_policies``) and then the rest, loading those from the
cache.

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
ESTIMATE_S = {"game": 150, "scorer": 105, "match": 30, "wall": 30, "deal": 25, "score": 60,
              "lookahead": 130, "advice": 30}
GROUPS = tuple(ESTIMATE_S)
# groups compiled after another one: whole matches and given walls share the
# game engine's kernels and load them from the cache once the engine is
# compiled (compiled at the same time, each process would compile all of it
# again); deal
# mode and the scorer's own entry wait for the engine's scorer, so that it
# has a core to itself
AFTER = {"match": "game", "wall": "game", "deal": "scorer", "score": "scorer",
         "lookahead": "game", "advice": "game"}
# the game engine is compiled in two processes (engine.warm_scorer and
# engine.warm_policies): "scorer" goes with "game" whenever the engine is
# compiled, by the warm-up and by ``ensure_compiled`` alike (both cores)
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
    'score' the scorer, 'lookahead' the search policy in play, 'advice' the
    evaluator of ``nbsim advise``) ran in this cache folder."""
    f = _folder()
    return f is not None and (f / f"compiled-{group}").is_file()


def _mark(group: str) -> None:
    f = _folder()
    if f is not None:
        with contextlib.suppress(OSError):
            (f / f"compiled-{group}").write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))


def _await(group: str, limit_s: float, alive: Callable[[], bool] | None = None) -> None:
    """Wait until ``group`` is compiled (its marker), at most ``limit_s``
    seconds, and no longer once ``alive()`` (when given) is False."""
    t0 = time.perf_counter()
    while (not is_compiled(group) and time.perf_counter() - t0 < limit_s
           and (alive is None or alive())):
        time.sleep(0.5)


def _compile(group: str, helper: str | None = None,
             helper_alive: Callable[[], bool] | None = None) -> None:
    """One small call through the group's kernels (compiles or loads them).
    ``helper``: a group compiled at the same time in another process whose
    kernels this one calls (``HELPERS``): waited for (at most three times
    its estimate, and while ``helper_alive()``, when given, is True) before
    the kernels that call it are compiled."""
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import load_rules
    rs = load_rules("ningbo-3baida")
    tables = load_tables()
    if group == "game":
        from nbsim.kernels import engine as E
        from nbsim.play.policy_specs import as_policies, kernel_arrays
        from nbsim.run.game_mode import game_frame
        if helper is not None:
            # the policies first: meanwhile the "scorer" process compiles
            # the scorer, which the engine then loads from the cache (alone,
            # this entry would only link the policies once more)
            pc, params = kernel_arrays(as_policies("defend"))
            E.warm_policies(rs.array, tables, pc, params, False)
            _await(helper, 3 * ESTIMATE_S[helper], helper_alive)
        game_frame(rs, 0, 0, 2, "defend", tables, with_events=True)
    elif group == "scorer":
        from nbsim.kernels import engine as E
        from nbsim.kernels import games as KG
        E.warm_scorer(rs.array, tables, False)
        KG.warm_parts(rs.array, tables, False)
    elif group == "match":
        from nbsim.play.policy_specs import as_policies, kernel_arrays
        from nbsim.run.frames import match_frame
        pols = as_policies("defend")
        match_frame(rs, 0, 0, 1, tuple(p.full for p in pols), kernel_arrays(pols), tables)
    elif group == "wall":
        import numpy as np

        from nbsim.run.game_mode import play_wall
        play_wall(rs, np.arange(144, dtype=np.uint8), 120, ("greedy",) * 4, tables=tables)
    elif group == "lookahead":
        # the engine with the search policy (int32 codes; its playouts load
        # the game engine from the cache)
        from nbsim.run.game_mode import game_frame
        game_frame(rs, 0, 0, 1, ("lookahead:samples=4:gap=1000", "defend", "defend", "defend"),
                   tables)
    elif group == "advice":
        # the evaluator's entries (``nbsim advise``; its playouts load the
        # game engine from the cache)
        from nbsim.play.evaluation import evaluate, exact_own_draws
        from nbsim.play.position import example_position
        pos = example_position()
        evaluate(rs, pos, samples=2)
        exact_own_draws(rs, pos)
    elif group == "deal":
        from nbsim.run.frames import deal_frame
        deal_frame(rs, 0, 0, 2, tables)
    elif group == "score":
        from nbsim.rules.scorer import score_hand
        score_hand(rs, "234m567p345s67s55m", "8s", win_by="self_draw", indicator="9m")
    else:
        raise ValueError(f"unknown kernel group {group!r}")


# the groups the warm server (``nbsim.server``) loads before it forks
LOADABLE = ("deal", "game", "score")


def load(group: str) -> None:
    """Load the compiled kernels of ``group`` (one of ``LOADABLE``) into this
    process with one tiny call each, touching neither polars nor pyarrow:
    their thread pools, once started, make a later ``fork`` unsafe, so the
    warm server (``nbsim.server``) preloads through this and not through
    ``_compile``. Loads from the cache when the group is compiled (compiles
    otherwise). Raises ValueError for another group."""
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import load_rules
    rs = load_rules("ningbo-3baida")
    tables = load_tables()
    if group == "deal":
        from nbsim.run.frames import deal_arrays, hand_text
        hand_text(deal_arrays(rs.array, 0, 0, 1, tables)[0])
    elif group == "game":
        from nbsim.play.policy_specs import as_policies, kernel_arrays
        from nbsim.run.frames import game_arrays, hand_text
        a, _ = game_arrays(rs.array, 0, 0, 1, kernel_arrays(as_policies("defend")), tables,
                           False)
        hand_text(a["hands"])
    elif group == "score":
        from nbsim.rules.scorer import score_hand
        score_hand(rs, "234m567p345s67s55m", "8s", win_by="self_draw", indicator="9m")
    else:
        raise ValueError(f"group {group!r} cannot be preloaded; allowed: {', '.join(LOADABLE)}")


def ensure_compiled(group: str, echo: Callable[[str], None] | None = None,
                    clock: bool | None = None) -> None:
    """Compile (or load) the kernels of ``group`` now. When they are not yet
    compiled in this cache folder, first tell ``echo`` (default: stderr)
    "compiling kernels, once, about N s", and show the seconds passing while
    it runs (``clock``; default: when stderr is a terminal). A group with a
    helper (``HELPERS``) not yet compiled has it compiled at the same time
    in a process of its own, as the warm-up does (``main``)."""
    if is_compiled(group):
        return
    import subprocess
    echo = echo or (lambda s: print(s, file=sys.stderr, flush=True))
    helper = HELPERS.get(group)
    if helper is not None and is_compiled(helper):
        helper = None
    est = ESTIMATE_S.get(group, 60)
    echo(f"compiling the {group} kernels, once, about {est} s on a 2-core machine "
         f"(cached for later runs in {_folder()})")
    helping = None
    if helper is not None:
        import os
        # the helper imports this very nbsim, wherever it was imported from
        here = str(Path(__file__).resolve().parents[1])
        path = os.pathsep.join([here] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        helping = subprocess.Popen([sys.executable, "-c",
                                    f"{_QUIET}from nbsim.warmup import _compile, _mark; "
                                    f"_compile({helper!r}); _mark({helper!r})"],
                                   env=dict(os.environ, PYTHONPATH=path))
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
        _compile(group, helper, None if helping is None else _running(helping))
    except BaseException:
        if helping is not None:
            helping.terminate()
        raise
    finally:
        done.set()
        if th is not None:
            th.join()
        if helping is not None:
            helping.wait()
    _mark(group)
    echo(f"compiled in {time.perf_counter() - t0:.0f} s")


def _running(proc) -> Callable[[], bool]:
    """A check that ``proc`` (a subprocess.Popen) still runs."""
    return lambda: proc.poll() is None


def main(argv=None) -> int:
    """``python -m nbsim.warmup [GROUP ...]``: compile the kernel groups
    (default: every group of ``GROUPS``), each in its own process, in
    parallel, except that the groups of ``AFTER`` start once the group they
    share kernels with is compiled; the game engine's group takes longest
    (ESTIMATE_S). Returns
    the exit status (0: all compiled; 2: an unknown group)."""
    import subprocess
    groups = list(argv if argv is not None else sys.argv[1:]) or list(GROUPS)
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        print(f"unknown kernel group {bad[0]!r}; allowed: {', '.join(GROUPS)}", file=sys.stderr)
        return 2
    todo = [g for g in groups if not is_compiled(g)]
    for g, helper in HELPERS.items():
        if g in todo and helper not in todo and not is_compiled(helper):
            todo.insert(todo.index(g) + 1, helper)
    if not todo:
        print("kernels already compiled")
        return 0
    est = _wall_estimate(todo)
    print(f"compiling kernels ({', '.join(todo)}), once, about {est} s on a 2-core machine, "
          f"in parallel processes (cached for later runs in {_folder()})", flush=True)
    from tqdm import tqdm
    t0 = time.perf_counter()
    rc = 0
    waiting = list(todo)
    procs: dict = {}
    with tqdm(total=est, unit="s", desc="compiling", file=sys.stderr,
              disable=not stderr_is_terminal(),
              bar_format="{desc}: {n:.0f} s of about {total:.0f} s") as bar:
        while waiting or procs:
            for g in [g for g in waiting if AFTER.get(g) not in waiting and
                      AFTER.get(g) not in procs]:
                waiting.remove(g)
                wait = HELPERS.get(g) if HELPERS.get(g) in todo else None
                code = (f"{_QUIET}from nbsim.warmup import _compile, _mark; "
                        f"_compile({g!r}, {wait!r}); _mark({g!r})")
                procs[g] = subprocess.Popen([sys.executable, "-c", code])
            for g, proc in list(procs.items()):
                if proc.poll() is not None:
                    rc |= proc.returncode
                    del procs[g]
                    bar.write(f"  {g}: {'done' if proc.returncode == 0 else 'FAILED'} "
                              f"after {time.perf_counter() - t0:.0f} s", file=sys.stdout)
            bar.n = time.perf_counter() - t0
            bar.refresh()
            if waiting or procs:
                time.sleep(0.5)
    return rc


def _wall_estimate(todo: list[str]) -> int:
    """Seconds the warm-up of ``todo`` takes: a group of AFTER starts when
    the group it waits for is done."""
    done: dict[str, int] = {}

    def finish(g: str) -> int:
        if g not in done:
            before = AFTER.get(g)
            done[g] = (finish(before) if before in todo else 0) + ESTIMATE_S[g]
        return done[g]
    return max((finish(g) for g in todo), default=0)


if __name__ == "__main__":
    sys.exit(main())
