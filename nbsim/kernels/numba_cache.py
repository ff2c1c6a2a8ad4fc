"""Where Numba caches the compiled kernels (``cache=True``), set up on the
first import of ``nbsim.kernels.jit`` (the decorator module every kernel
module takes ``njit`` / ``nrt_free`` from, directly or through another
kernel module), so that ``import nbsim`` and the commands that need no
kernel (``nbsim rules``) never import numba.

Numba invalidates a cached function only when its own source file changes,
not when a kernel it calls (in another file) changes; so the cache lives in
a folder named by a hash of every kernel source (all ``*.py`` files under
``nbsim/kernels/``, subpackages included), of the numba version and of the
kernels' folder itself: any edit to any kernel starts a fresh cache. The
folder's path is in the hash because numba files a kernel's compiled code
under a subfolder named after its source folder's absolute path: a clone
of the same sources elsewhere has none of it, so it gets a folder of its
own, whose compile markers (``nbsim.warmup``) are its own too (it compiles
once, and says so). The folder is
``<parent>/numba-<hash>``, where the parent is ``$NBSIM_NUMBA_CACHE`` if
set, else ``$NUMBA_CACHE_DIR`` if set, else ``<user cache dir>/nbsim``: an
explicit folder is hashed too, so a kernel edit never meets a stale inlined
caller there either. A folder that cannot be created leaves numba's default
locations in place.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

KERNELS_DIR = Path(__file__).resolve().parent

_configured: Path | None = None


def sources_digest(numba_version: str) -> str:
    """sha256 hex digest of the kernels' folder (its absolute path), every
    ``.py`` file under it (relative path and bytes, in sorted path order)
    and the numba version."""
    digest = hashlib.sha256()
    digest.update(str(KERNELS_DIR).encode())
    for p in sorted(KERNELS_DIR.rglob("*.py")):
        digest.update(p.relative_to(KERNELS_DIR).as_posix().encode())
        digest.update(p.read_bytes())
    digest.update(numba_version.encode())
    return digest.hexdigest()


def cache_folder(numba_version: str) -> Path:
    """The cache folder for this numba version (see the module doc)."""
    parent = os.environ.get("NBSIM_NUMBA_CACHE") or os.environ.get("NUMBA_CACHE_DIR")
    if not parent:
        import platformdirs
        parent = platformdirs.user_cache_dir("nbsim")
    return Path(parent) / f"numba-{sources_digest(numba_version)[:16]}"


def configure() -> Path | None:
    """Point ``numba.config.CACHE_DIR`` at ``cache_folder()`` (once per
    process; later calls return the same folder). Must run before a kernel
    module's ``@njit(cache=True)`` decorators do. Returns the folder, or None
    when it cannot be created (numba then keeps its default locations)."""
    global _configured
    if _configured is not None:
        return _configured
    import numba

    target = cache_folder(numba.__version__)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    numba.config.CACHE_DIR = str(target)
    _configured = target
    return target
