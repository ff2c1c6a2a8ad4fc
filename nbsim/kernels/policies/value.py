"""The ``value`` policy: plays for the tai minimum.

At every decision it picks a target (open hand, full flush or half flush in
each suit, all pungs; ``common.choose_target``) by the target's shanten and
the tai (or Ninghai fan) a win through it would score, read from the
variant's table, and skips targets outside ``allowed_patterns``. It discards
toward the target, claims only tiles inside the target (and pungs of scoring
honors: dragons, seat and round wind), declares only kongs inside the target,
and always takes a legal win (docs/rules.md §5, §6 and §8). Decision
signatures: ``registry.py``.
"""
import numpy as np

from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import (
    CLAIM_PASS,
    claim_toward,
    discard_toward,
    kind_in_target,
    kong_toward,
    own_wilds,
    view_target,
)
from nbsim.kernels.ref import deref


@nrt_free(kernel_only=True)
def want_win(view_ref, params, prng, scr_ref, tile, win_by):
    """Always."""
    return True


@nrt_free(kernel_only=True)
def choose_kong(view_ref, params, prng, scr_ref, options, n_options):
    """The first kong inside the target that does not raise its shanten."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    w = own_wilds(view, scr.nat)
    target = view_target(view, scr.nat, w, scr.tmp)
    return kong_toward(view, options, n_options, target, np.bool_(True), scr.nat, scr.tmp)


@nrt_free(kernel_only=True)
def choose_claim(view_ref, params, prng, scr_ref, tile, can_pung, can_kong, chow_ok):
    """A claim inside the target that lowers its shanten (or a scoring-honor
    pung that keeps it), else pass."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    w = own_wilds(view, scr.nat)
    target = view_target(view, scr.nat, w, scr.tmp)
    if not kind_in_target(target, tile):
        return CLAIM_PASS
    return claim_toward(view, tile, can_pung, can_kong, chow_ok, target, np.bool_(True),
                        np.bool_(False), scr.nat)


@nrt_free(kernel_only=True)
def choose_discard(view_ref, params, prng, scr_ref, allowed):
    """The discard leaving the lowest shanten toward the target."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    w = own_wilds(view, scr.nat)
    target = view_target(view, scr.nat, w, scr.tmp)
    return discard_toward(view, allowed, target, scr.nat)
