"""Numba kernels of nbsim.

Every ``@njit`` function of the project lives in this package. Modules here
import only numpy, numba and ``nbsim.kernels``; they do no file I/O, logging
or progress reporting (the wrappers in ``nbsim`` do).

Importing the package (or ``nbsim.kernels.codes``, the integer codes the
wrappers share) does not import numba. Kernel modules take their decorators
from ``nbsim.kernels.jit``, whose first import points numba's on-disk cache
at a folder named by a hash of the kernel sources (``numba_cache``).
"""
