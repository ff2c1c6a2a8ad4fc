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

Kernel modules import ``njit`` and ``nrt_free`` from here: importing this
module first sets up numba's cache folder (``numba_cache.configure``), which
has to happen before any ``cache=True`` decorator runs.
"""
import numba

from nbsim.kernels import numba_cache

_CACHE = numba_cache.configure()

__all__ = ["njit", "nrt_free", "cache_folder_in_use"]


def cache_folder_in_use():
    """The folder numba caches the kernels in (a Path), or None when it
    keeps its default locations."""
    return _CACHE


def njit(fn=None, **options):
    """``numba.njit`` with numpy's error model for division (see the module
    doc): ``@njit(cache=True)``, ``@njit(cache=True, inline="always")``;
    ``options`` go to ``numba.njit``."""
    options.setdefault("error_model", "numpy")
    return numba.njit(**options)(fn) if fn is not None else numba.njit(**options)


def nrt_free(fn=None, **options):
    """``@nrt_free`` or ``@nrt_free(inline="always")``: ``njit`` with
    cache=True and no reference counting (see the module doc); ``options``
    go to ``numba.njit``."""
    def wrap(f):
        return njit(cache=True, _nrt=False, **options)(f)
    return wrap(fn) if fn is not None else wrap
