"""Numba kernels of nbsim.

Every ``@njit`` function of the project lives in this package. Modules here
import only numpy, numba and ``nbsim.kernels``; they do no file I/O, logging
or progress reporting (the wrappers in ``nbsim`` do).
"""
