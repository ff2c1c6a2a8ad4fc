"""The ``random`` policy: a uniformly random legal action at every decision.

The baseline of the benchmarks and a fuzzer for the engine: it reaches
situations the other policies avoid (declined wins, odd claims and kongs).
Draws come from the seat's own random stream, so a deal stays a pure
function of (seed, deal index). Decision signatures: ``registry.py``.
"""
from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import CLAIM_CHOW, CLAIM_KONG, CLAIM_PASS, CLAIM_PUNG
from nbsim.kernels.ref import deref


@nrt_free(kernel_only=True)
def want_win(view_ref, params, prng, scr_ref, tile, win_by):
    """A fair coin."""
    return rng.below(prng, 2) == 0


@nrt_free(kernel_only=True)
def choose_kong(view_ref, params, prng, scr_ref, options, n_options):
    """One of the n options or none, uniformly."""
    return rng.below(prng, n_options + 1) - 1


@nrt_free(kernel_only=True)
def choose_claim(view_ref, params, prng, scr_ref, tile, can_pung, can_kong, chow_ok):
    """Pass or one of the possible claims, uniformly."""
    n_opt = 1 + (1 if can_pung else 0) + (1 if can_kong else 0)
    for j in range(3):
        if chow_ok[j]:
            n_opt += 1
    j = rng.below(prng, n_opt)
    if j == 0:
        return CLAIM_PASS
    j -= 1
    if can_pung:
        if j == 0:
            return CLAIM_PUNG
        j -= 1
    if can_kong:
        if j == 0:
            return CLAIM_KONG
        j -= 1
    for c in range(3):
        if chow_ok[c]:
            if j == 0:
                return CLAIM_CHOW + c
            j -= 1
    return CLAIM_PASS


@nrt_free(kernel_only=True)
def choose_discard(view_ref, params, prng, scr_ref, allowed):
    """One of the allowed kinds held, uniformly."""
    view = deref(view_ref)
    hand = view.hand
    n_opts = 0
    for k in range(C.N_KINDS):
        if hand[k] > 0 and allowed[k]:
            n_opts += 1
    j = rng.below(prng, n_opts)
    for k in range(C.N_KINDS):
        if hand[k] > 0 and allowed[k]:
            if j == 0:
                return k
            j -= 1
    return -1
