"""The policies' decisions as the engine asks them (Numba): the deciding
seat's public ``View`` (``make_view``), the policy dispatch
(``policies.registry``) and the no-leak probe around each decision
(``engine.probe``). Each decision gets the seat's parameter row and its own
random stream ``rng.STREAM_POLICY + seat``. The View and the policy scratch
are passed by their addresses (``nbsim.kernels.ref``): the View copied
into the asking function's frame, the scratch as ``engine.loop.play_from``
stashed it in ``g.pscr_mem`` at the start of the deal.
"""
import numpy as np
from numba.core import types

from nbsim.kernels import wall as W
from nbsim.kernels.engine.probe import (
    Q_CLAIM,
    Q_DISCARD,
    Q_KONG,
    Q_WIN,
    probe_begin,
    probe_due,
    probe_end,
    probe_swap,
)
from nbsim.kernels.engine.state import (
    TS_CUR,
    TS_DECISIONS,
    TS_DISCARDS,
    TS_DRAWN,
    TS_INDICATOR,
    TS_LEN,
    TS_N_KONGS,
    TS_N_LOG,
    TS_ROUND_WIND,
)
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.policies import registry as R
from nbsim.kernels.policies.view import Playout, View
from nbsim.kernels.ref import RefType, ref_of, stashed


@njit(cache=True, inline="always")
def make_view(rules, tables, g, seat, pols):
    """The public ``View`` of ``seat`` (nbsim.kernels.policies.view): its own
    hand and melds, and the table as every player sees it. The public turn
    state ``g.pts`` is the turn state without what ``seat`` cannot know:
    another seat's drawn kind (and the engine's own counters). ``pols``:
    the seats' policy record (``catalog.Policies``), whose engine and
    decisions the View's ``playout`` holds."""
    ts = g.ts
    pts = g.pts
    for i in range(TS_LEN):
        pts[i] = ts[i]
    if seat != ts[TS_CUR]:
        pts[TS_DRAWN] = -1
    pts[TS_N_LOG] = 0
    pts[TS_DECISIONS] = 0
    return View(rules, tables, seat, ts[TS_CUR], ts[TS_ROUND_WIND], ts[TS_INDICATOR],
                W.drawable_left(rules, g.ws, ts[TS_N_KONGS]), ts[TS_DISCARDS], ts[TS_N_KONGS],
                g.hands[seat], g.melds[seat], g.pub_melds, g.n_melds, g.flowers, g.visible,
                g.wild, g.pond, g.pond_flags, g.n_pond, g.passed, g.fed, g.ws, pts,
                Playout(pols.engine, pols.decisions, pols.scorer))


@nrt_free(inline="always")
def before_answer(g, probe, seat, i, due):
    """Before answer ``i`` of a decision: when the probe asks it twice
    (``due``), save the seat's stream (0), or rewind it and shuffle the
    hidden tiles (1)."""
    if i == 0:
        if due:
            probe_begin(g, probe, seat)
    else:
        probe_swap(g, probe, seat)


@nrt_free(kernel_only=True)
def ask_win(rules, tables, g, pols, probe, seat, tile, win_by):
    """Does ``seat`` take its legal win on ``tile``? (asked as ``ask_discard``)"""
    due = probe_due(g, probe)
    scr = stashed(g.pscr_mem, g.pscr)
    a = False
    for i in range(2 if due else 1):
        before_answer(g, probe, seat, i, due)
        v = make_view(rules, tables, g, seat, pols)
        r = R.want_win(pols, seat, ref_of(v), g.prng[seat], scr, tile, win_by)
        if i == 0:
            a = r
        else:
            probe_end(g, probe, np.int64(Q_WIN), seat, 1 if a else 0, 1 if r else 0)
    return a


@nrt_free(inline="always")
def ask_kong(rules, tables, g, pols, probe, seat, n_opt):
    """Which of its ``n_opt`` kong options (rows of ``g.opts``) does ``seat``
    declare? The option index, or -1 for none. (asked as ``ask_discard``)"""
    due = probe_due(g, probe)
    scr = stashed(g.pscr_mem, g.pscr)
    a = -1
    for i in range(2 if due else 1):
        before_answer(g, probe, seat, i, due)
        v = make_view(rules, tables, g, seat, pols)
        r = R.choose_kong(pols, seat, ref_of(v), g.prng[seat], scr, g.opts, n_opt)
        if i == 0:
            a = r
        else:
            probe_end(g, probe, np.int64(Q_KONG), seat, a, r)
    return a


@nrt_free(kernel_only=True)
def ask_claim(rules, tables, g, pols, probe, seat, tile, can_pung, can_kong):
    """Does ``seat`` claim the discard ``tile``? ``common.CLAIM_*`` (a chow
    option only where ``g.chow_ok`` allows it; asked as ``ask_discard``)."""
    due = probe_due(g, probe)
    scr = stashed(g.pscr_mem, g.pscr)
    a = -1
    for i in range(2 if due else 1):
        before_answer(g, probe, seat, i, due)
        v = make_view(rules, tables, g, seat, pols)
        r = R.choose_claim(pols, seat, ref_of(v), g.prng[seat], scr, tile, can_pung, can_kong,
                           g.chow_ok)
        if i == 0:
            a = r
        else:
            probe_end(g, probe, np.int64(Q_CLAIM), seat, a, r)
    return a


@nrt_free(inline="always")
def ask_discard(rules, tables, g, pols, probe, seat):
    """The kind ``seat`` discards, among the kinds ``g.allowed``. Asked
    once; when the no-leak probe is due (``engine.probe``) asked again
    after the hidden tiles are shuffled, both answers recorded (the View
    built and the policy called at one place in the code, for both)."""
    due = probe_due(g, probe)
    scr = stashed(g.pscr_mem, g.pscr)
    a = -1
    for i in range(2 if due else 1):
        before_answer(g, probe, seat, i, due)
        v = make_view(rules, tables, g, seat, pols)
        r = R.choose_discard(pols, seat, ref_of(v), g.prng[seat], scr, g.allowed)
        if i == 0:
            a = r
        else:
            probe_end(g, probe, np.int64(Q_DISCARD), seat, a, r)
    return a


def _row(t):
    """The numba type of ``a[i]`` for an array ``a`` of numba type ``t``."""
    return t.copy(ndim=t.ndim - 1, layout="C" if t.layout == "C" else "A")


def decision_argtypes(rules_t, tables_t, g_t, pols_t):
    """The numba argument types of the four decisions (``catalog.DECISIONS``
    order, a tuple each) as the ``ask_*`` above pass them, for the numba
    types of the rules array, the lookup tables, a ``Game``
    (``state.new_state``) and a ``catalog.Policies`` record: what
    ``policies.registry`` compiles every policy's decisions for. Worked out
    from the fields ``make_view`` reads, without compiling anything
    (tests/test_policies.py checks them against the types numba infers for
    the same calls)."""
    gf = dict(zip(g_t.fields, g_t.types, strict=True))
    pf = dict(zip(pols_t.fields, pols_t.types, strict=True))
    i = types.int64
    b = types.boolean
    playout = types.BaseTuple.from_types((pf["engine"], pf["decisions"], pf["scorer"]), Playout)
    view = types.BaseTuple.from_types(
        (rules_t, tables_t, i, i, i, i, i, i, i, _row(gf["hands"]), _row(gf["melds"]),
         gf["pub_melds"], gf["n_melds"], gf["flowers"], gf["visible"], gf["wild"], gf["pond"],
         gf["pond_flags"], gf["n_pond"], gf["passed"], gf["fed"], gf["ws"], gf["pts"], playout),
        View)
    v = RefType(view)
    scr = RefType(gf["pscr"])
    params = _row(pf["params"])
    prng = _row(gf["prng"])
    return ((v, params, prng, scr, i, i),
            (v, params, prng, scr, gf["opts"], i),
            (v, params, prng, scr, i, b, b, gf["chow_ok"]),
            (v, params, prng, scr, gf["allowed"]))
