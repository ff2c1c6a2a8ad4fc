"""The engine's entry to the policies: one dispatch per decision, built from
the policy table (``catalog.POLICY_TABLE``; a policy's code is its index).

Every policy module implements the same four decisions, with these
signatures (``view``: ``view.View``; ``params``: float64[MAX_PARAMS], the
seat's parameter row in the table's order; ``prng``: uint64[rng.RNG_LEN],
the seat's own random stream; ``scr``: ``view.Scratch``):

``want_win(view, params, prng, scr, tile, win_by) -> bool``
    take the legal win on ``tile`` (kind) by ``win_by`` (``codes.WIN_*``)?
``choose_kong(view, params, prng, scr, options, n_options) -> int``
    on its own turn: index of the kong to declare among ``options[:n]``
    (rows (MELD_CKONG or MELD_KONG for an added kong, kind)), or -1.
``choose_claim(view, params, prng, scr, tile, can_pung, can_kong, chow_ok) -> int``
    on another seat's discard of ``tile``: ``common.CLAIM_PASS``,
    ``CLAIM_PUNG``, ``CLAIM_KONG`` or ``CLAIM_CHOW + j`` (chow option j
    allowed where ``chow_ok[j]``: the discard is the lowest (0), middle (1)
    or highest (2) tile of the chow).
``choose_discard(view, params, prng, scr, allowed) -> int``
    the kind (0..41) to discard among the held kinds with ``allowed[k]``
    (the engine applies the chow-swap and first go-around limits).

The dispatch loops over the table's functions with ``numba.literal_unroll``
and calls the one whose index is the code: each call is compiled direct
(measured as fast as a hand-written ``if code == ...`` chain), and adding a
policy means adding a table row, not an arm here. A decision with a single
possible answer is not asked (no kong option, no claim possible). (A
``return`` before an unrolled loop breaks numba's typing of the loop, so
each dispatch has a single exit.)

Two sets of policies, named by the record that carries the seats' codes
and parameters (``catalog.BasePolicies`` / ``catalog.SearchPolicies``,
both int64 codes and float64 parameter rows). A search policy
(``lookahead``, a table row with a ``base``) plays the rest of the deal
many times with the engine from inside its own decision, so the engine
that runs its playouts must not dispatch to it again (numba could not
type the cycle). ``BasePolicies`` (``nbsim.policy_specs.kernel_arrays``
for runs without a search policy, and every playout) dispatches to the
base set, where a search policy's row stands for its base policy;
``SearchPolicies`` (runs with a search policy) dispatches to the full set.
Numba types the two records apart, so the engine is compiled once per set,
and a run without a search policy never compiles the search. The full set
imports the search modules only when numba types it (they import the
engine, which imports this module).
"""
import importlib
import warnings

import numpy as np
from numba import literal_unroll, types
from numba.core.errors import NumbaExperimentalFeatureWarning, TypingError
from numba.extending import overload

from nbsim.kernels.policies.catalog import POLICY_TABLE, BasePolicies, SearchPolicies
from nbsim.kernels.policies.common import CLAIM_PASS

# numba types a tuple of compiled functions through its first-class function
# machinery and warns that it is experimental; the calls below are direct
warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)

_BASE_MODULES = tuple(importlib.import_module(f"nbsim.kernels.policies.{p.module}")
                      for p in POLICY_TABLE if p.base is None)
_BY_NAME = {p.name: m for p, m in zip((p for p in POLICY_TABLE if p.base is None),
                                      _BASE_MODULES, strict=True)}
N_POLICIES = len(POLICY_TABLE)


def _modules(full):
    """The policy modules in code order: a search policy's own module in the
    full set, its base policy's module in the base set."""
    if full:
        return tuple(importlib.import_module(f"nbsim.kernels.policies.{p.module}")
                     for p in POLICY_TABLE)
    return tuple(_BY_NAME[p.base or p.name] for p in POLICY_TABLE)


def is_search(pols_type):
    """True for a ``SearchPolicies`` record type, False for ``BasePolicies``.
    Raises numba's TypingError for any other type."""
    cls = getattr(pols_type, "instance_class", None) if isinstance(
        pols_type, types.BaseNamedTuple) else None
    if cls is SearchPolicies:
        return True
    if cls is BasePolicies:
        return False
    raise TypingError(f"policies: a BasePolicies or SearchPolicies record "
                      f"(policies.catalog), got {pols_type}")


def _functions(pols_type, name):
    """The decision ``name`` of every policy, for a policy record of type
    ``pols_type``."""
    return tuple(getattr(m, name) for m in _modules(is_search(pols_type)))


def want_win(pols, seat, view, prng, scr, tile, win_by):
    """The answer of ``seat``'s policy in ``pols`` (``BasePolicies`` or
    ``SearchPolicies``): take this legal win? (compiled by numba)"""
    raise NotImplementedError("a kernel: call it from compiled code")


def choose_kong(pols, seat, view, prng, scr, options, n_options):
    """``seat``'s policy's kong on its own turn (option index or -1)."""
    raise NotImplementedError("a kernel: call it from compiled code")


def choose_claim(pols, seat, view, prng, scr, tile, can_pung, can_kong, chow_ok):
    """``seat``'s policy's answer to a discard it may claim (CLAIM_*)."""
    raise NotImplementedError("a kernel: call it from compiled code")


def choose_discard(pols, seat, view, prng, scr, allowed):
    """``seat``'s policy's discard (a held, allowed kind)."""
    raise NotImplementedError("a kernel: call it from compiled code")


_OPTIONS = {"_nrt": False, "error_model": "numpy"}


@overload(want_win, jit_options=_OPTIONS)
def _want_win(pols, seat, view, prng, scr, tile, win_by):
    fns = _functions(pols, "want_win")

    def impl(pols, seat, view, prng, scr, tile, win_by):
        code = pols.codes[seat]
        params = pols.params[seat]
        r = True
        i = 0
        for f in literal_unroll(fns):
            if i == code:
                r = f(view, params, prng, scr, tile, win_by)
            i += 1  # noqa: SIM113 (enumerate does not unroll)
        return r
    return impl


@overload(choose_kong, jit_options=_OPTIONS)
def _choose_kong(pols, seat, view, prng, scr, options, n_options):
    fns = _functions(pols, "choose_kong")

    def impl(pols, seat, view, prng, scr, options, n_options):
        code = pols.codes[seat]
        params = pols.params[seat]
        r = -1
        if n_options > 0:
            i = 0
            for f in literal_unroll(fns):
                if i == code:
                    r = f(view, params, prng, scr, options, n_options)
                i += 1  # noqa: SIM113 (enumerate does not unroll)
        return r
    return impl


@overload(choose_claim, jit_options=_OPTIONS)
def _choose_claim(pols, seat, view, prng, scr, tile, can_pung, can_kong, chow_ok):
    fns = _functions(pols, "choose_claim")

    def impl(pols, seat, view, prng, scr, tile, can_pung, can_kong, chow_ok):
        code = pols.codes[seat]
        params = pols.params[seat]
        r = CLAIM_PASS
        if can_pung or can_kong or chow_ok[0] or chow_ok[1] or chow_ok[2]:
            i = 0
            for f in literal_unroll(fns):
                if i == code:
                    r = f(view, params, prng, scr, tile, can_pung, can_kong, chow_ok)
                i += 1  # noqa: SIM113 (enumerate does not unroll)
        return r
    return impl


@overload(choose_discard, jit_options=_OPTIONS)
def _choose_discard(pols, seat, view, prng, scr, allowed):
    fns = _functions(pols, "choose_discard")

    def impl(pols, seat, view, prng, scr, allowed):
        code = pols.codes[seat]
        params = pols.params[seat]
        r = -1
        i = 0
        for f in literal_unroll(fns):
            if i == code:
                r = f(view, params, prng, scr, allowed)
            i += 1  # noqa: SIM113 (enumerate does not unroll)
        return r
    return impl


def seat_policies(pols):
    """A record of ``pols``' class (the same policy set) with zeroed arrays
    of its shapes: the seats' policies of a match deal, filled from the
    players' (``engine.games.match_batch``). (compiled by numba)"""
    raise NotImplementedError("a kernel: call it from compiled code")


@overload(seat_policies, jit_options={"error_model": "numpy"})
def _seat_policies(pols):
    if is_search(pols):
        def impl(pols):
            return SearchPolicies(np.zeros_like(pols.codes), np.zeros_like(pols.params),
                                  pols.playout)
    else:
        def impl(pols):
            return BasePolicies(np.zeros_like(pols.codes), np.zeros_like(pols.params))
    return impl
