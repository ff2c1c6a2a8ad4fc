"""Where Numba caches the compiled kernels (``cache=True``), set up on the
first import of ``nbsim.kernels.jit`` (the decorator module every kernel
module takes ``njit`` / ``nrt_free`` from, directly or through another
kernel module), so that ``import nbsim`` and the commands that need no
kernel (``nbsim rules``) never import numba.

Numba invalidates a cached function only when its own source file changes,
not when a kernel it calls (in another file) changes; so the cache lives in
a folder named by a hash of every kernel source (all ``*.py`` files under
``nbsim/kernels/``, subpackages included, by their path inside it) and of
the numba, llvmlite and numpy versions: any edit to any kernel, or an
upgrade of one of them, starts a fresh cache. The folder
is ``<parent>/numba-<hash>``, where the parent is ``$NBSIM_NUMBA_CACHE`` if
set, else ``$NUMBA_CACHE_DIR`` if set, else ``<user cache dir>/nbsim``: an
explicit folder is hashed too, so a kernel edit never meets a stale inlined
caller there either. A folder that cannot be created leaves numba's default
locations in place.

Inside the folder, numba's own locators file a function's compiled code
under a subfolder named after the absolute path of its source folder, so a
second clone, a git worktree or a moved checkout would compile everything
again. ``KernelsCacheLocator`` (registered first through numba's
``CACHE_LOCATOR_CLASSES`` setting) files the kernels by their folder inside
``nbsim/kernels/`` instead (``kernels``, ``kernels_engine``, ...): the same
kernel sources anywhere on the machine share one compiled cache (numba
checks each file's contents, by hash, before it loads its functions).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core.caching import CacheImpl, UserProvidedCacheLocator

KERNELS_DIR = Path(__file__).resolve().parent

_configured: Path | None = None


def sources_digest(versions: str) -> str:
    """sha256 hex digest of every ``.py`` file under the kernels' folder
    (path inside it and bytes, in sorted path order) and ``versions`` (the
    compiler's and numpy's, ``compiler_versions()``). The folder's own
    location is left out: two clones of the same sources have one digest."""
    digest = hashlib.sha256()
    for p in sorted(KERNELS_DIR.rglob("*.py")):
        digest.update(p.relative_to(KERNELS_DIR).as_posix().encode())
        digest.update(p.read_bytes())
    digest.update(versions.encode())
    return digest.hexdigest()


def compiler_versions() -> str:
    """The versions compiled code depends on besides the kernel sources:
    numba, llvmlite and numpy ("numba 0.68.1 llvmlite 0.50.0 numpy ...");
    an upgrade of any of them starts a fresh cache (and its compile says so,
    ``nbsim.warmup``)."""
    import llvmlite
    import numba
    import numpy
    return (f"numba {numba.__version__} llvmlite {llvmlite.__version__} "
            f"numpy {numpy.__version__}")


def cache_folder(versions: str) -> Path:
    """The cache folder for these ``compiler_versions()`` (see the module doc)."""
    parent = os.environ.get("NBSIM_NUMBA_CACHE") or os.environ.get("NUMBA_CACHE_DIR")
    if not parent:
        import platformdirs
        parent = platformdirs.user_cache_dir("nbsim")
    return Path(parent) / f"numba-{sources_digest(versions)[:16]}"


class KernelsCacheLocator(UserProvidedCacheLocator):
    """numba cache locator (``numba.core.caching``) for functions defined
    under ``KERNELS_DIR``: their cache subfolder is their source folder's
    path inside the package (``kernels_engine`` for
    ``nbsim/kernels/engine/``), not a hash of its absolute path, so any
    checkout of the same sources finds the same compiled code. Other
    files get None (numba's own locators take them)."""

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        folder = Path(py_file).resolve().parent
        return "_".join(folder.relative_to(KERNELS_DIR.parent).parts)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(KERNELS_DIR):
            return None
        return super().from_function(py_func, py_file)


def _register_locator(numba_config) -> None:
    """Put ``KernelsCacheLocator`` first in numba's locator list (its
    ``CACHE_LOCATOR_CLASSES`` setting), before the list already set or, when
    none is, numba's default locators."""
    mine = f"{__name__}.{KernelsCacheLocator.__name__}"
    current = numba_config.CACHE_LOCATOR_CLASSES or ",".join(
        c.__name__ for c in CacheImpl._locator_classes)
    if mine not in current:
        numba_config.CACHE_LOCATOR_CLASSES = f"{mine},{current}"


def configure() -> Path | None:
    """Point ``numba.config.CACHE_DIR`` at ``cache_folder()`` (once per
    process; later calls return the same folder). Must run before a kernel
    module's ``@njit(cache=True)`` decorators do. Returns the folder, or None
    when it cannot be created (numba then keeps its default locations)."""
    global _configured
    if _configured is not None:
        return _configured
    import numba

    target = cache_folder(compiler_versions())
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    numba.config.CACHE_DIR = str(target)
    _register_locator(numba.config)
    _configured = target
    return target
