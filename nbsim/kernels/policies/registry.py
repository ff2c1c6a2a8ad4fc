"""The engine's entry to the policies: one dispatch per decision, built from
the policy table (``catalog.POLICY_TABLE``; a policy's code is its index).

Every policy module implements the same four decisions, with these
signatures (``view_ref``: a Ref (``nbsim.kernels.ref``) to the deciding
seat's ``view.View``; ``params``: float64[MAX_PARAMS], the seat's parameter
row in the table's order; ``prng``: uint64[rng.RNG_LEN], the seat's own
random stream; ``scr_ref``: a Ref to the policy scratch ``view.Scratch``; a
decision reads what the Refs point to with ``ref.deref``, and only the
fields it reads are loaded: a call passes two pointers, not the 758
machine words of a View and a scratch):

``want_win(view_ref, params, prng, scr_ref, tile, win_by) -> bool``
    take the legal win on ``tile`` (kind) by ``win_by`` (``codes.WIN_*``)?
``choose_kong(view_ref, params, prng, scr_ref, options, n_options) -> int``
    on its own turn: index of the kong to declare among ``options[:n]``
    (rows (MELD_CKONG or MELD_KONG for an added kong, kind)), or -1.
``choose_claim(view_ref, params, prng, scr_ref, tile, can_pung, can_kong, chow_ok) -> int``
    on another seat's discard of ``tile``: ``common.CLAIM_PASS``,
    ``CLAIM_PUNG``, ``CLAIM_KONG`` or ``CLAIM_CHOW + j`` (chow option j
    allowed where ``chow_ok[j]``: the discard is the lowest (0), middle (1)
    or highest (2) tile of the chow).
``choose_discard(view_ref, params, prng, scr_ref, allowed) -> int``
    the kind (0..41) to discard among the held kinds with ``allowed[k]``
    (the engine applies the chow-swap and first go-around limits).

Each policy's decisions are compiled apart, once per process, for the
engine's argument types (``decision_entries``), and the engine calls them
by their addresses (``nbsim.kernels.entry``): the record of the seats'
policies (``catalog.Policies``) holds every policy's decisions as entry
pairs by code, and the dispatch below calls the pair of the seat's code.
So the engine is compiled once for every policy set, a policy's code is
compiled once and only when a run plays it, and adding a policy means
adding a table row, not an arm here. A decision with a single possible
answer is not asked (no kong option, no claim possible). The decisions are
compiled for other kernels only (``@nrt_free(kernel_only=True)``, without
the wrappers that let Python call them: ``nbsim.kernels.jit``): only
kernels call them, directly or by their addresses, and the wrappers cost
0.7 to 2 s of compiling per decision (docs/layout.md).

A search policy (``lookahead``, a table row with a ``base``) plays the
rest of the deal many times with the engine from inside its own decision;
the engine it calls is the same compiled engine, reached by its address
(``View.playout``), so nothing is compiled twice.
"""
import importlib

from numba import types

from nbsim.kernels.entry import KernelEntry, call
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.catalog import (
    D_CLAIM,
    D_DISCARD,
    D_KONG,
    D_WIN,
    DECISIONS,
    POLICY_TABLE,
)
from nbsim.kernels.policies.common import CLAIM_PASS

N_POLICIES = len(POLICY_TABLE)
# the decisions' result types
_BOOL = types.boolean
_INT = types.int64
RESULT_TYPES = (_BOOL, _INT, _INT, _INT)


def decision_entries(code: int, argtypes, decisions=None) -> list[KernelEntry]:
    """The decisions of the policy of ``code`` (indices into
    ``catalog.DECISIONS``; None: all four, in that order), compiled (or
    loaded from the cache) for the argument types ``argtypes`` (a tuple
    per decision: the engine's, from ``engine.decisions.decision_argtypes``).
    Raises numba's errors if one does not compile, TypeError if one's
    result type is not the dispatch's (``RESULT_TYPES``)."""
    module = importlib.import_module(f"nbsim.kernels.policies.{POLICY_TABLE[code].module}")
    entries = []
    for d in range(len(DECISIONS)) if decisions is None else decisions:
        name = DECISIONS[d]
        e = KernelEntry(getattr(module, name), argtypes[d])
        if types.unliteral(e.signature.return_type) != RESULT_TYPES[d]:
            raise TypeError(f"{POLICY_TABLE[code].module}.{name} returns "
                            f"{e.signature.return_type}, the engine wants {RESULT_TYPES[d]}")
        entries.append(e)
    return entries


@nrt_free(inline="always")
def want_win(pols, seat, view_ref, prng, scr_ref, tile, win_by):
    """The answer of ``seat``'s policy in ``pols`` (``catalog.Policies``):
    take this legal win on ``tile`` (int64) by ``win_by`` (int64)?"""
    d = pols.decisions[pols.codes[seat], D_WIN]
    return call(d[0], d[1], _BOOL, (view_ref, pols.params[seat], prng, scr_ref, tile, win_by))


@nrt_free(inline="always")
def choose_kong(pols, seat, view_ref, prng, scr_ref, options, n_options):
    """``seat``'s policy's kong on its own turn (option index or -1)."""
    r = -1
    if n_options > 0:
        d = pols.decisions[pols.codes[seat], D_KONG]
        r = call(d[0], d[1], _INT, (view_ref, pols.params[seat], prng, scr_ref, options,
                                     n_options))
    return r


@nrt_free(inline="always")
def choose_claim(pols, seat, view_ref, prng, scr_ref, tile, can_pung, can_kong, chow_ok):
    """``seat``'s policy's answer to a discard it may claim (CLAIM_*)."""
    r = CLAIM_PASS
    if can_pung or can_kong or chow_ok[0] or chow_ok[1] or chow_ok[2]:
        d = pols.decisions[pols.codes[seat], D_CLAIM]
        r = call(d[0], d[1], _INT, (view_ref, pols.params[seat], prng, scr_ref, tile,
                                     can_pung, can_kong, chow_ok))
    return r


@nrt_free(inline="always")
def choose_discard(pols, seat, view_ref, prng, scr_ref, allowed):
    """``seat``'s policy's discard (a held, allowed kind)."""
    d = pols.decisions[pols.codes[seat], D_DISCARD]
    return call(d[0], d[1], _INT, (view_ref, pols.params[seat], prng, scr_ref, allowed))
