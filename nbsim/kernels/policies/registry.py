"""The engine's entry to the policies: one dispatch per decision, built from
the policy table (``table.POLICY_TABLE``; a policy's code is its index).

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
"""
import importlib
import warnings

from numba import literal_unroll
from numba.core.errors import NumbaExperimentalFeatureWarning

from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import CLAIM_PASS
from nbsim.kernels.policies.table import POLICY_TABLE

# numba types a tuple of compiled functions through its first-class function
# machinery and warns that it is experimental; the calls below are direct
warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)

_MODULES = tuple(importlib.import_module(f"nbsim.kernels.policies.{p.module}")
                 for p in POLICY_TABLE)
WANT_WIN = tuple(m.want_win for m in _MODULES)
CHOOSE_KONG = tuple(m.choose_kong for m in _MODULES)
CHOOSE_CLAIM = tuple(m.choose_claim for m in _MODULES)
CHOOSE_DISCARD = tuple(m.choose_discard for m in _MODULES)
N_POLICIES = len(_MODULES)


@nrt_free
def want_win(code, view, params, prng, scr, tile, win_by):
    """Policy ``code``'s answer: take this legal win?"""
    r = True
    i = 0
    for f in literal_unroll(WANT_WIN):
        if i == code:
            r = f(view, params, prng, scr, tile, win_by)
        i += 1  # noqa: SIM113 (enumerate does not unroll)
    return r


@nrt_free
def choose_kong(code, view, params, prng, scr, options, n_options):
    """Policy ``code``'s kong on its own turn (option index or -1)."""
    r = -1
    if n_options > 0:
        i = 0
        for f in literal_unroll(CHOOSE_KONG):
            if i == code:
                r = f(view, params, prng, scr, options, n_options)
            i += 1  # noqa: SIM113 (enumerate does not unroll)
    return r


@nrt_free
def choose_claim(code, view, params, prng, scr, tile, can_pung, can_kong, chow_ok):
    """Policy ``code``'s answer to a discard it may claim (CLAIM_*)."""
    r = CLAIM_PASS
    if can_pung or can_kong or chow_ok[0] or chow_ok[1] or chow_ok[2]:
        i = 0
        for f in literal_unroll(CHOOSE_CLAIM):
            if i == code:
                r = f(view, params, prng, scr, tile, can_pung, can_kong, chow_ok)
            i += 1  # noqa: SIM113 (enumerate does not unroll)
    return r


@nrt_free
def choose_discard(code, view, params, prng, scr, allowed):
    """Policy ``code``'s discard (a held, allowed kind)."""
    r = -1
    i = 0
    for f in literal_unroll(CHOOSE_DISCARD):
        if i == code:
            r = f(view, params, prng, scr, allowed)
        i += 1  # noqa: SIM113 (enumerate does not unroll)
    return r
