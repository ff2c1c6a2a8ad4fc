"""The calls that compile each kernel group (``nbsim.warmup.GROUPS``): one
small call through the group's kernels, which compiles them or loads them
from the cache. ``nbsim.warmup`` runs ``exercise`` in processes of their
own; it lives at the command line's layer because the calls go through the
run, play and rules packages."""
from __future__ import annotations

import numpy as np

from nbsim.kernels.policies.catalog import (
    D_CLAIM,
    D_DISCARD,
    D_KONG,
    D_WIN,
    DEFAULT_POLICY,
    code_of,
)
from nbsim.warmup import ESTIMATE_S, await_compiled, mark_compiled


def exercise(group: str, helper: str | None = None) -> None:
    """One small call through the group's kernels (compiles or loads them).
    ``helper``: a group compiled at the same time in another process whose
    kernels this one calls (``HELPERS``): waited for (at most three times
    its estimate) before the kernels that call it are compiled."""
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.ruleset import load_rules
    rs = load_rules("ningbo-3baida")
    tables = load_tables()
    if group == "game":
        from nbsim.run.game_mode import game_frame
        if helper is not None:
            # the turn loop and the batch first: they call the scorer and
            # the policies' decisions by their addresses, which the
            # "scorer" process compiles meanwhile; the run then loads them
            from nbsim.kernels.engine.loop import compile_decisions, engine_entry
            from nbsim.run.frames import compile_game_batch
            engine_entry(rs.array, tables)
            compile_game_batch(rs.array, tables)
            # the default policy's kong and claim decisions: the "scorer"
            # process compiles its win and discard decisions (the two
            # processes then take about as long)
            compile_decisions(code_of(DEFAULT_POLICY), (D_KONG, D_CLAIM), rs.array, tables)
            await_compiled(helper, 3 * ESTIMATE_S[helper])
        game_frame(rs, 0, 0, 2, DEFAULT_POLICY, tables, with_events=True)
    elif group == "scorer":
        from nbsim.kernels.engine.loop import compile_decisions, scorer_entry
        scorer_entry(rs.array, tables)
        compile_decisions(code_of(DEFAULT_POLICY), (D_WIN, D_DISCARD), rs.array, tables)
    elif group == "match":
        # a match of the base policies the game group leaves out (value and
        # random: the duel's default opponent and the baseline; the wall
        # group plays greedy), so that no command compiles one later
        from nbsim.policy_specs import as_policies, kernel_arrays
        from nbsim.run.frames import match_frame
        pols = as_policies("defend,value,random,defend")
        match_frame(rs, 0, 0, 1, tuple(p.full for p in pols), kernel_arrays(pols, rs.array, tables),
                    tables)
    elif group == "wall":
        from nbsim.run.game_mode import play_wall
        play_wall(rs, np.arange(144, dtype=np.uint8), 120, ("greedy",) * 4, tables=tables)
    elif group == "lookahead":
        # the search policy's decisions (its playouts call the game engine by
        # its address, and its evaluator's kernels are the advice group's:
        # both load from the cache)
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
    mark_compiled(group)

