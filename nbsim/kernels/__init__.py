"""Numba kernels of nbsim.

Every ``@njit`` function of the project lives in this package. Modules here
import only numpy, numba and ``nbsim.kernels``; they do no file I/O, logging
or progress reporting (the wrappers in ``nbsim`` do).

Compiled kernels are cached on disk (``cache=True``) so that a CLI call does
not pay for JIT every time. Numba invalidates a cached function only when its
own source file changes, not when a kernel it calls (in another file)
changes; so the cache lives in a folder named by a hash of all kernel
sources: any edit to any kernel starts a fresh cache. The folder is
``$NBSIM_NUMBA_CACHE`` if set, else ``<user cache dir>/nbsim/numba-<hash>``
(``$NUMBA_CACHE_DIR``, if set, is used as the parent instead).
"""
import hashlib
import os
from pathlib import Path


def _configure_cache() -> None:
    import numba

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for p in sorted(here.rglob("*.py")):
        digest.update(str(p.relative_to(here)).encode())
        digest.update(p.read_bytes())
    digest.update(numba.__version__.encode())
    explicit = os.environ.get("NBSIM_NUMBA_CACHE")
    if explicit:
        target = Path(explicit)
    else:
        parent = os.environ.get("NUMBA_CACHE_DIR")
        if not parent:
            import platformdirs
            parent = platformdirs.user_cache_dir("nbsim")
        target = Path(parent) / f"numba-{digest.hexdigest()[:16]}"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # numba falls back to its default locations
    numba.config.CACHE_DIR = str(target)


_configure_cache()
