"""Numba's lowering with a stack slot for every variable of the engine and the
policies.

Numba's lowering (``numba.core.lowering.Lower``) keeps a variable that is
assigned once as a plain SSA value instead of giving it a stack slot (its
"SROA-like" shortcut, ``Lower._disable_sroa_like_opt`` False). For a
kernel whose variables are large records (the game state ``Game``, the
``View``, the policy scratch: tuples of dozens of arrays), that leaves
whole records as first-class LLVM aggregate values, copied and taken apart
with long chains of ``insertvalue`` and ``extractvalue``, which LLVM's
optimizer handles far worse than the same values kept in memory: there
its own SROA pass splits each record into the fields that are used and
drops the rest.

Numba gives every variable a slot only when it emits debug information.
``in_slots`` does so for the functions of the game engine and of the
policies (``nbsim.kernels.engine``, ``nbsim.kernels.policies``; code
inlined into them included), with no debug information: the kernels
compute the same results (the same IR, lowered to memory that LLVM
promotes back to registers) and play faster. The other kernels keep
numba's lowering: the hand kernels gained nothing, the scorer's own
functions were up to 7% slower and the evaluator
(``nbsim.kernels.search``) compiled several times slower with slots.
docs/layout.md ("Measurements behind the kernels' form") has the
figures.
"""
from __future__ import annotations

from numba.core import lowering

__all__ = ["in_slots"]

# the modules whose functions get a slot per variable (see the module doc)
_MODULES = ("nbsim.kernels.engine.", "nbsim.kernels.policies.")


def _every_variable_in_a_slot(original):
    """The ``_disable_sroa_like_opt`` property numba's ``Lower`` gets: True
    for a function of a module of ``_MODULES``, else numba's own answer
    (``original``, the property it replaces)."""
    def disable(self):
        fndesc = getattr(self, "fndesc", None)
        if str(getattr(fndesc, "modname", "")).startswith(_MODULES):
            return True
        return original.fget(self)
    prop = property(disable, doc=original.__doc__)
    prop.fget._nbsim_slots = True          # type: ignore[attr-defined]
    return prop


def in_slots() -> bool:
    """Have numba's ``Lower`` give every variable of the engine's and the
    policies' kernels a stack slot (see the module doc), once per process.
    Returns True when the lowering is patched (now or before), False when
    numba's ``Lower`` does not have the form this patches (then nothing
    changes). Call it before any kernel compiles: ``nbsim.kernels.jit``
    does, on import."""
    current = getattr(lowering.Lower, "_disable_sroa_like_opt", None)
    if not isinstance(current, property) or current.fget is None:
        return False
    if getattr(current.fget, "_nbsim_slots", False):
        return True
    lowering.Lower._disable_sroa_like_opt = _every_variable_in_a_slot(current)
    return True
