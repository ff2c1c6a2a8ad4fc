"""The decorator of the hot kernels: ``@njit(cache=True)`` without Numba's
reference counting (NRT).

With NRT, every array a compiled function receives, unpacks from a tuple or
slices (``hands[seat]``) costs an atomic increment and decrement, and a
call that passes the 8-array lookup-table tuple costs 16 of them. Kernels
that never allocate an array (they write into scratch arrays their caller
owns) do not need NRT: ``nrt_free`` compiles them without it (numba's
``_nrt=False`` option), with identical results (docs/layout.md, "The
kernels", has the measurements). A kernel that allocates (np.zeros,
np.empty, array copies) must keep ``njit``.

Every kernel (``njit`` and ``nrt_free`` from here) uses numpy's error
model (``error_model="numpy"``): a division by zero gives inf, nan or 0
instead of raising ZeroDivisionError. So a kernel has no exception path for
division and modulo, and numba does not check the status of every call for
a raised exception. None of the kernels divides by zero: every divisor is
a constant, a guarded count or a total that is never 0, so results are the
same as with Python's model.

A kernel that only other kernels call (``kernel_only=True``) is compiled
without the two wrappers numba adds to every compiled function so that
Python (and a C caller) can call it: they unbox or box every argument
field by field, so for a function taking a ``Game`` (36 arrays) they are
most of its code, and numba lowers, optimizes and emits them for every
such function. The engine's and the policies' internal functions and the
entries called by their addresses (``nbsim.kernels.entry``) are compiled
so; calling one from Python raises TypeError instead of reaching a wrapper
that is not there. docs/layout.md, "Measurements behind the kernels'
form", has what this saves.

Kernel modules import ``njit`` and ``nrt_free`` from here: importing this
module first sets up numba's cache folder (``numba_cache.configure``), which
has to happen before any ``cache=True`` decorator runs, makes numba's
inliner linear (``inliner.speed_up``: the same IR in less compile time)
and has numba's lowering give every variable of the engine's and the
policies' kernels a stack slot (``slots.in_slots``: the same results,
faster code where large records are handled).
"""
import numba
from numba.core.registry import CPUDispatcher

from nbsim.kernels import inliner, numba_cache, slots

_CACHE = numba_cache.configure()
inliner.speed_up()
slots.in_slots()

__all__ = ["njit", "nrt_free", "cache_folder_in_use", "KernelOnly"]


def cache_folder_in_use():
    """The folder numba caches the kernels in (a Path), or None when it
    keeps its default locations."""
    return _CACHE


class KernelOnly(CPUDispatcher):
    """The dispatcher of a kernel compiled for other kernels only
    (``kernel_only=True``): compiled kernels call it as any other, and
    ``entry.KernelEntry`` takes its address; a call from Python raises
    TypeError (it has no Python wrapper to call)."""

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is compiled "
                        "for other kernels only (kernel_only=True): call it from a kernel, or "
                        "drop kernel_only to call it from Python")


def njit(fn=None, *, kernel_only=False, **options):
    """``numba.njit`` with numpy's error model for division (see the module
    doc): ``@njit(cache=True)``, ``@njit(cache=True, inline="always")``;
    ``options`` go to ``numba.njit``. ``kernel_only``: compile it without
    the wrappers that let Python call it (a ``KernelOnly`` dispatcher; see
    the module doc)."""
    options.setdefault("error_model", "numpy")
    if not kernel_only or numba.config.DISABLE_JIT:
        return numba.njit(**options)(fn) if fn is not None else numba.njit(**options)

    def wrap(f):
        opts = dict(options)
        cache = opts.pop("cache", False)
        opts.update(nopython=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
        disp = KernelOnly(py_func=f, locals={}, targetoptions=opts)
        if cache:
            disp.enable_caching()
        return disp
    return wrap(fn) if fn is not None else wrap


def nrt_free(fn=None, **options):
    """``@nrt_free``, ``@nrt_free(inline="always")`` or
    ``@nrt_free(kernel_only=True)``: ``njit`` with cache=True and no
    reference counting (see the module doc); ``options`` go to ``njit``."""
    def wrap(f):
        return njit(cache=True, _nrt=False, **options)(f)
    return wrap(fn) if fn is not None else wrap
