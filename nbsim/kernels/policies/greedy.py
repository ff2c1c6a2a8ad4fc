"""The ``greedy`` policy: fastest to a complete hand, blind to value.

Discards the tile whose removal leaves the lowest wild-aware shanten, ties
broken by usefulness (fewer neighbours goes first; never a wild while another
discard is as good); claims a pung, kong or chow when it lowers shanten (a
kong when it does not raise it); declares a kong when it does not raise
shanten; always takes a legal win. Decision signatures: ``registry.py``.
"""
import numpy as np

from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import TG_OPEN, claim_toward, discard_toward, kong_toward
from nbsim.kernels.ref import deref


@nrt_free(kernel_only=True)
def want_win(view_ref, params, prng, scr_ref, tile, win_by):
    """Always."""
    return True


@nrt_free(kernel_only=True)
def choose_kong(view_ref, params, prng, scr_ref, options, n_options):
    """The first kong that does not raise shanten."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    return kong_toward(view, options, n_options, np.int64(TG_OPEN), np.bool_(False), scr.nat,
                       scr.tmp)


@nrt_free(kernel_only=True)
def choose_claim(view_ref, params, prng, scr_ref, tile, can_pung, can_kong, chow_ok):
    """The claim that lowers shanten most, or pass."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    return claim_toward(view, tile, can_pung, can_kong, chow_ok, np.int64(TG_OPEN),
                        np.bool_(False), np.bool_(False), scr.nat)


@nrt_free(kernel_only=True)
def choose_discard(view_ref, params, prng, scr_ref, allowed):
    """The discard leaving the lowest shanten (usefulness breaks ties)."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    return discard_toward(view, allowed, np.int64(TG_OPEN), scr.nat)
