"""The decorator of the hot kernels: ``@njit(cache=True)`` without Numba's
reference counting (NRT).

With NRT, every array a compiled function receives, unpacks from a tuple or
slices (``hands[seat]``) costs an atomic increment and decrement, and a
call that passes the 8-array lookup-table tuple costs 16 of them. In the game
engine those atomics were about a third of the run time (perf: two hot
instructions, NRT_incref and NRT_decref). Kernels that never allocate an
array (they write into scratch arrays their caller owns) do not need NRT:
``nrt_free`` compiles them without it (numba's ``_nrt=False`` option), which
made played deals about 35% faster with identical results. A kernel that
allocates (np.zeros, np.empty, array copies) must keep ``njit``.

Kernel modules import ``njit`` and ``nrt_free`` from here: importing this
module first sets up numba's cache folder (``numba_cache.configure``), which
has to happen before any ``cache=True`` decorator runs.
"""
from numba import njit

from nbsim.kernels import numba_cache

numba_cache.configure()

__all__ = ["njit", "nrt_free"]


def nrt_free(fn=None, **options):
    """``@nrt_free`` or ``@nrt_free(error_model="numpy")``: njit with
    cache=True and no reference counting (see the module doc)."""
    def wrap(f):
        return njit(cache=True, _nrt=False, **options)(f)
    return wrap(fn) if fn is not None else wrap
