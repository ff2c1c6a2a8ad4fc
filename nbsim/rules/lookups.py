"""Build-once, cached-on-disk lookup tables for the hand kernels.

``load_tables()`` returns the named tuple (``nbsim.kernels.tables.Tables``)
that every kernel of ``nbsim.kernels.hand`` takes as its ``tables`` argument
(definitions in ``nbsim/kernels/tables.py``); kernels read its fields by name:

===  ==============  =====================  ======
pos  field           shape                  dtype
===  ==============  =====================  ======
0    suit_need       (5**9, 2)              uint8
1    honor_need      (5**7, 2)              uint8
2    suit_shanten    (5**9, 10)             uint8
3    honor_shanten   (5**7, 10)             uint8
4    suit_fit_class  (5**9,)                uint8
5    honor_fit_class (5**7,)                uint8
6    fit_combo_ss    (n_sc, n_sc, 10)       uint8
7    fit_combo_sh    (n_sc, n_hc, 10)       uint8
===  ==============  =====================  ======

(n_sc = 126 suit fit classes, n_hc = 55 honor fit classes.) Entries 4-7 are
derived from 2 and 3: shanten reads the combined fit of two groups from them.

The first call builds them with the jitted builders (about half a second once
compiled) and saves them as ``<name>_v<TABLES_VERSION>.npy`` in the cache
directory: ``$NBSIM_CACHE_DIR`` if set, else ``platformdirs.user_cache_dir
("nbsim")``. Each file is written to a temporary file in the same directory
and renamed with ``os.replace``, so parallel processes never read a
half-written table. A file that cannot be read or whose shape, dtype or spot
checks are wrong is rebuilt (all tables together). Results are memoised per
process and per cache directory.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from pathlib import Path

import numpy as np

from nbsim.kernels import tables as KT

TABLES_VERSION = 1
Tables = KT.Tables
NAMES = Tables._fields      # field names, also the cache file names
SHAPES = {
    "suit_need": (KT.SUIT_SIZE, 2),
    "honor_need": (KT.HONOR_SIZE, 2),
    "suit_shanten": (KT.SUIT_SIZE, KT.N_FIT_COLS),
    "honor_shanten": (KT.HONOR_SIZE, KT.N_FIT_COLS),
    "suit_fit_class": (KT.SUIT_SIZE,),
    "honor_fit_class": (KT.HONOR_SIZE,),
    "fit_combo_ss": (None, None, KT.N_FIT_COLS),   # None: the number of classes
    "fit_combo_sh": (None, None, KT.N_FIT_COLS),
}

_memo: dict[str, Tables] = {}
_lock = threading.Lock()


def cache_dir() -> Path:
    """The table cache directory: ``$NBSIM_CACHE_DIR`` or the user cache dir."""
    env = os.environ.get("NBSIM_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_cache_dir("nbsim"))


def table_path(name: str, directory: Path | None = None) -> Path:
    """Path of one cached table file (version number in the name)."""
    return (directory or cache_dir()) / f"{name}_v{TABLES_VERSION}.npy"


def build_tables() -> Tables:
    """Build every table in memory (no disk access); see the module doc."""
    suit_need = KT.build_need(9, True)
    honor_need = KT.build_need(7, False)
    suit_fit = KT.build_fit(9, True)
    honor_fit = KT.build_fit(7, False)
    suit_cls, suit_rows = KT.build_fit_classes(suit_fit)
    honor_cls, honor_rows = KT.build_fit_classes(honor_fit)
    return Tables(suit_need, honor_need, suit_fit, honor_fit, suit_cls, honor_cls,
                  KT.build_fit_combo(suit_rows, suit_rows),
                  KT.build_fit_combo(suit_rows, honor_rows))


def _shape_ok(name: str, a: np.ndarray) -> bool:
    want = SHAPES[name]
    return a.ndim == len(want) and all(w is None or w == n
                                          for w, n in zip(want, a.shape, strict=True))


def _spot_ok(name: str, a: np.ndarray) -> bool:
    """Cheap content checks that a truncated or garbled file is unlikely to pass.

    Known entries: the empty group needs 0 / 2 wilds and fits 0 tiles; a
    single tile needs 2 / 1 wilds; the all-fours group fits 14 tiles with
    4 melds + pair; no need exceeds 14 and no fit exceeds its target size.
    """
    caps = np.array([0, 2, 3, 5, 6, 8, 9, 11, 12, 14], dtype=np.uint8)
    if name.endswith("need"):
        if not (a[0, 0] == 0 and a[0, 1] == 2 and a[1, 0] == 2 and a[1, 1] == 1):
            return False
        return int(a.max()) <= 14  # 7 lone honors need 2 wilds each; suits need less
    if name.endswith("shanten"):
        if int(a[0].max()) != 0 or a[-1, 9] != 14:
            return False
        return bool(KT.columns_at_most(a, caps))
    if name.endswith("class"):
        return a.shape[0] > 0 and int(a.max()) < 256
    # combos
    return bool((a.max(axis=(0, 1)) <= caps).all()) and int(a[..., 0].max()) == 0


def _consistent(arrays) -> bool:
    """The class tables reproduce the fit tables they were derived from
    (combining a group with the empty group gives the group's own fit row;
    a full check of every row by a jitted loop)."""
    sn, hn, sf, hf, scls, hcls, ss, sh = arrays
    if ss.shape[0] != ss.shape[1] or sh.shape[0] != ss.shape[0]:
        return False
    if int(scls[0]) >= ss.shape[0] or int(hcls[0]) >= sh.shape[1]:
        return False
    e_s = int(scls[0])
    e_h = int(hcls[0])
    return bool(KT.rows_match_classes(sf, scls, np.ascontiguousarray(ss[:, e_s]))
                and KT.rows_match_classes(sf, scls, np.ascontiguousarray(sh[:, e_h]))
                and KT.rows_match_classes(hf, hcls, np.ascontiguousarray(sh[e_s])))


def _read(path: Path, name: str):
    try:
        a = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if not _shape_ok(name, a) or a.dtype != np.uint8 or not a.flags.c_contiguous:
        return None
    if not _spot_ok(name, a):
        return None
    return a


def _write_atomic(path: Path, a: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, a, allow_pickle=False)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_tables(*, rebuild: bool = False) -> Tables:
    """The hand-kernel tables (the named tuple of the module doc), read-only use.

    Reads the cache files, or builds and writes them when any is missing,
    unreadable or fails the shape/dtype/spot checks (or when ``rebuild``).
    A cache directory that cannot be written is not an error: the tables are
    then only kept in memory. Memoised per process for each cache directory.
    """
    directory = cache_dir()
    key = str(directory)
    with _lock:
        if not rebuild and key in _memo:
            return _memo[key]
        arrays: Tables | None = None
        if not rebuild:
            read = [_read(table_path(n, directory), n) for n in NAMES]
            if all(a is not None for a in read) and _consistent(read):
                arrays = Tables(*read)
        if arrays is None:
            arrays = build_tables()
            try:
                for n, a in zip(NAMES, arrays, strict=True):
                    _write_atomic(table_path(n, directory), a)
            except OSError:
                pass
        _memo[key] = arrays
        return arrays


def clear_memo() -> None:
    """Forget the in-process tables (tests use it to exercise the disk cache)."""
    with _lock:
        _memo.clear()
