"""Numba's inliner, made linear in the size of what it inlines.

Numba inlines a call to an ``inline="always"`` kernel in its untyped
pipeline (``numba.core.inline_closurecall.InlineWorker``), and two of its
steps cost far more than the IR they build:

* ``run_untyped_passes`` runs the compiler's untyped passes on the callee
  (bytecode to IR, rewrites, and the inlining of the callee's own inlined
  calls, in turn) at every call site, though the result depends only on
  the callee and on whether SSA form is asked for;
* ``inline_ir`` copies the callee's IR with one ``copy.deepcopy`` per
  block, and each of those copies the function's whole scope again (every
  variable of the function, inlined ones included): the time grows with
  the blocks times the variables, and copying was about a third of the
  scorer process's compile time (cProfile of ``nbsim.warmup``'s scorer
  group).

``speed_up`` keeps the untyped passes' IR per (function, SSA) for the
process and hands each call site its own copy, with a fresh function
identity as numba gives each call (so the inlined variables are named as
before), and has ``inline_ir`` copy the blocks of one scope with one memo,
so that the scope is copied once, as one ``deepcopy`` of the whole IR
would. The IR each caller gets is the same as numba's own; the compiled
kernels play identically. docs/layout.md ("Measurements behind the
kernels' form") has the seconds saved.
"""
from __future__ import annotations

import copy

from numba.core import inline_closurecall as icc
from numba.core import ir

__all__ = ["speed_up"]

_FRONT_ENDS: dict = {}


class _ScopeOnce:
    """Stands in for the ``copy`` module inside numba's inliner during one
    ``inline_ir`` call, which copies the callee's IR block by block: the
    blocks of one scope are copied with one memo, so the scope (and every
    variable in it) is copied once, not once per block."""

    def __init__(self):
        self.memos: dict[int, dict] = {}

    def deepcopy(self, x, memo=None):
        if memo is None and isinstance(x, ir.Block):
            memo = self.memos.setdefault(id(x.scope), {})
        return copy.deepcopy(x, memo)


def _copy(func_ir):
    """A copy of ``func_ir`` (numba IR) whose blocks may be changed freely."""
    out = func_ir.copy()
    out.blocks = copy.deepcopy(func_ir.blocks)
    return out


def speed_up() -> bool:
    """Patch numba's ``InlineWorker`` in this process (see the module doc).
    Returns False, changing nothing, when this numba's inliner does not
    have the form patched (``InlineWorker.run_untyped_passes`` and
    ``inline_ir``, and the ``copy`` module as
    ``numba.core.inline_closurecall.copy``); else True, also when already
    patched."""
    worker = icc.InlineWorker
    front = getattr(worker, "run_untyped_passes", None)
    inline = getattr(worker, "inline_ir", None)
    if front is None or inline is None:
        return False
    if getattr(front, "nbsim", False):
        return True
    if getattr(icc, "copy", None) is not copy:
        return False

    def run_untyped_passes(self, func, enable_ssa=False):
        key = (func, bool(enable_ssa))
        first = _FRONT_ENDS.get(key)
        if first is None:
            first = _FRONT_ENDS[key] = front(self, func, enable_ssa)
        else:
            self.flags.enable_ssa = enable_ssa      # as numba's own call leaves it
        out = _copy(first)
        out.func_id = first.func_id.derive()
        return out

    def inline_ir(self, *args, **kwargs):
        icc.copy = _ScopeOnce()
        try:
            return inline(self, *args, **kwargs)
        finally:
            icc.copy = copy

    run_untyped_passes.nbsim = True   # type: ignore[attr-defined]
    run_untyped_passes.numba = front  # type: ignore[attr-defined]
    worker.run_untyped_passes = run_untyped_passes
    worker.inline_ir = inline_ir
    return True
