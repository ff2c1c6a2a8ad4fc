"""Compiling the game engine in parts (Numba).

``nbsim.warmup`` compiles the game engine in two processes: one compiles
the scorer (``warm_scorer``) and the parts that call no policy
(``warm_parts``) while the other compiles the policies' decisions
(``engine.loop.policy_record``, each apart) and then the turn loop
and the batches, which load those parts from the cache. Each
probe calls what the engine calls with the engine's argument types (so
that its compiled code is what the engine looks up), and runs none of it
unless ``run`` is true.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.engine.decisions import ask_claim, ask_win
from nbsim.kernels.engine.moves import add_meld, draw_for, kong_options
from nbsim.kernels.engine.state import O_ERROR, OUT_LEN, TS_N_KONGS, empty_policies
from nbsim.kernels.engine.wins import (
    complete_with,
    fu_all,
    liable_seat,
    set_win,
    try_win,
    update_may_win,
)
from nbsim.kernels.jit import njit
from nbsim.kernels.ref import ref_of


@njit(cache=True)
def warm_scorer(rules, tables, state, run):
    """Compile ``try_win`` (the scorer, the engine's largest part) as
    ``engine.play_from`` calls it (the state as a Ref). rules: int64[R_LEN]
    (read-only); state: a ``Game`` (``state.new_state()``); run: bool."""
    g = ref_of(state)
    out = np.zeros(OUT_LEN, np.int64)
    z = np.int64(0)
    if run:
        try_win(rules, tables, g, z, z, np.int64(C.WIN_SELF_DRAW), z, np.int64(-1),
                np.int64(-1), np.int64(-1), out)
    return out[O_ERROR]


@njit(cache=True)
def warm_parts(rules, tables, state, run):
    """Compile the parts of the engine other than the scorer and the turn
    loop (the wall and the draws, melds, win checks, Ninghai liability
    and fu, recording a win, and asking a seat whether it wins or claims:
    the decisions themselves are called by their addresses and compiled
    apart) as ``engine.play_deal`` and ``engine.play_from`` call them, so
    that the process that compiles the scorer compiles them too (the
    state as a Ref, as the turn loop passes it).
    rules: int64[R_LEN] (read-only); state: a ``Game``; run: bool."""
    g = ref_of(state)
    pols = empty_policies()
    probe = np.zeros(0, np.int64)
    out = np.zeros(OUT_LEN, np.int64)
    log = np.zeros((0, C.EV_LEN), np.int32)
    z = np.int64(0)
    r = 0
    if run:
        W.wall_setup(rules, np.uint64(0), z, True, g.wall, g.work, g.st, g.ws, g.wild)
        n_log = W.log_setup(g.ws, log, 0)
        r += W.deal_hands(g.wall, g.ws, g.wild, g.hands, g.flowers, log, n_log)
        rng.stream_init(np.uint64(0), z, rng.STREAM_POLICY + z, g.prng[z])
        update_may_win(tables, g.wild, g.hands[z], g.n_melds[z], g.nat, g.may_win, g.no_win, z)
        if complete_with(tables, g.wild, g.hands[z], g.nat, z):
            r += 1
        r += liable_seat(rules, tables, g, z, z, z)
        r += W.drawable_left(rules, g.ws, g.ts[TS_N_KONGS])
        r += kong_options(g.wild, g.hands[z], g.melds[z], g.n_melds[z], g.opts)
        add_meld(g, z, C.MELD_PUNG, z, z)
        add_meld(g, z, C.MELD_KONG, z, z)
        add_meld(g, z, C.MELD_CHOW, z, z)
        add_meld(g, z, C.MELD_CKONG, z, np.int64(-1))
        if draw_for(rules, g, z, True, log):
            r += 1
        if draw_for(rules, g, z, False, log):
            r += 1
        fu_all(rules, g, z, out)
        set_win(g, C.OUT_SELF_DRAWN, z, np.int64(-1), z, z, np.int64(-1))
        set_win(g, C.OUT_ROBBING_KONG, z, z, z, np.int64(0), np.int64(-1))
        set_win(g, C.OUT_DISCARD, z, z, z, z, z)
        if ask_win(rules, tables, g, pols, probe, z, z, np.int64(C.WIN_SELF_DRAW)):
            r += 1
        r += ask_claim(rules, tables, g, pols, probe, z, z, np.bool_(True), np.bool_(False))
    return r
