"""Jitted builders of the per-suit lookup tables used by ``nbsim.kernels.hand``.

A suit (9 ranks) is indexed by the base-5 digits of its rank counts,
``idx = sum(c[r] * 5**r)`` (``c[r]`` in 0..4, rank 1 is digit 0); the honors
(7 kinds, 1z..7z) the same way over 7 digits. Honors form only pungs and pairs.

Tables (all ``uint8``; docs/rules.md §3, §5 and §10):

* ``need[idx, 0]``: minimum number of wilds that, added to the counts, let the
  tiles decompose exactly into melds (chows/pungs); ``need[idx, 1]``: the same
  for melds plus exactly one pair. A wild may be a fifth (or sixth) copy of a
  kind (docs/rules.md §3). The empty suit needs 0 / 2 (a pair of wilds).
* ``fit[idx, m * 2 + p]`` (m = 0..4 melds, p = 0..1 pairs): the maximum number
  of the suit's natural tiles that fit a target of m melds + p pairs inside the
  suit, the target holding at most 4 copies of a kind (the shanten of docs/rules.md
  §10 ignores wilds acting as fifth copies).

For a fast shanten the fit rows are also stored by class: only 126 distinct
rows occur for a suit and 55 for the honors, so ``*_fit_class[idx]`` (uint8)
names the row and ``fit_combo_ss[a, b]`` / ``fit_combo_sh[a, h]`` hold the
combined fit of two groups (M melds + P pairs split between them).

The nbsim.rules.lookups module builds these once and caches them on disk; kernels
receive them as one named tuple argument ``tables`` (``Tables`` below) and
read its fields by name, e.g. ``tables.suit_need``. The fit tables are
stored under the names ``suit_shanten`` / ``honor_shanten`` (the name of
their cache files); the last four fields are derived from them.
"""
from collections import namedtuple

import numpy as np

from nbsim.kernels.jit import njit

SUIT_SIZE = 5 ** 9        # 1_953_125 suit indices
HONOR_SIZE = 5 ** 7       # 78_125 honor indices
N_FIT_COLS = 10           # m = 0..4 melds x p = 0..1 pairs

Tables = namedtuple("Tables", ("suit_need", "honor_need", "suit_shanten", "honor_shanten",
                               "suit_fit_class", "honor_fit_class", "fit_combo_ss",
                               "fit_combo_sh"))
Tables.__doc__ = """The lookup tables every hand kernel takes as ``tables`` (all uint8):
suit_need [5**9, 2] and honor_need [5**7, 2] (wilds needed, ``build_need``);
suit_shanten [5**9, 10] and honor_shanten [5**7, 10] (the fit tables,
``build_fit``); suit_fit_class [5**9] and honor_fit_class [5**7] (fit row
classes, ``build_fit_classes``); fit_combo_ss [n_sc, n_sc, 10] and
fit_combo_sh [n_sc, n_hc, 10] (two groups' combined fit,
``build_fit_combo``). A named tuple: Numba reads a field by name as cheaply
as by position, and ``nbsim.rules.lookups.load_tables()`` builds it."""


@njit(cache=True)
def build_need(n_ranks, with_chows):
    """Table ``uint8[5**n_ranks, 2]`` of wilds needed (see the module doc).

    n_ranks: 9 for a suit, 7 for the honors; with_chows: True for a suit.
    Works by dynamic programming in increasing index order: the lowest
    natural tile present belongs to exactly one group, whose natural part is
    {r}, {r,r}, {r,r,r}, {r,r+1}, {r,r+2}, {r,r+1,r+2} (a meld; the missing
    tiles are wilds, cost 3 - size) or {r}, {r,r} (the pair, cost 2 - size);
    removing that part strictly lowers the index.
    """
    size = 5 ** n_ranks
    need = np.empty((size, 2), dtype=np.uint8)
    need[0, 0] = 0
    need[0, 1] = 2
    digits = np.zeros(n_ranks, dtype=np.int64)
    pw = np.empty(n_ranks + 1, dtype=np.int64)
    pw[0] = 1
    for r in range(n_ranks):
        pw[r + 1] = pw[r] * 5
    for idx in range(1, size):
        # increment the base-5 digit counter
        r = 0
        while digits[r] == 4:
            digits[r] = 0
            r += 1
        digits[r] += 1
        # lowest rank with a tile
        lo = 0
        while digits[lo] == 0:
            lo += 1
        c = digits[lo]
        p = pw[lo]
        # melds only
        m0 = 2 + need[idx - p, 0]
        # with the pair: a pair of wilds on top of melds, or the lowest tile in
        # the pair ({r} + 1 wild, {r,r}), or the lowest tile in a meld
        m1 = 1 + need[idx - p, 0]
        v = 2 + need[idx - p, 1]
        if v < m1:
            m1 = v
        if c >= 2:
            v = 1 + need[idx - 2 * p, 0]
            if v < m0:
                m0 = v
            v = need[idx - 2 * p, 0]
            if v < m1:
                m1 = v
            v = 1 + need[idx - 2 * p, 1]
            if v < m1:
                m1 = v
        if c >= 3:
            v = need[idx - 3 * p, 0]
            if v < m0:
                m0 = v
            v = need[idx - 3 * p, 1]
            if v < m1:
                m1 = v
        if with_chows:
            if lo <= n_ranks - 2 and digits[lo + 1] > 0:      # {r, r+1}
                j = idx - p - pw[lo + 1]
                v = 1 + need[j, 0]
                if v < m0:
                    m0 = v
                v = 1 + need[j, 1]
                if v < m1:
                    m1 = v
            if lo <= n_ranks - 3 and digits[lo + 2] > 0:      # {r, r+2}
                j = idx - p - pw[lo + 2]
                v = 1 + need[j, 0]
                if v < m0:
                    m0 = v
                v = 1 + need[j, 1]
                if v < m1:
                    m1 = v
                if digits[lo + 1] > 0:                        # {r, r+1, r+2}
                    j = j - pw[lo + 1]
                    v = need[j, 0]
                    if v < m0:
                        m0 = v
                    v = need[j, 1]
                    if v < m1:
                        m1 = v
        # a pair of wilds next to the melds
        if m0 + 2 < m1:
            m1 = m0 + 2
        need[idx, 0] = m0
        need[idx, 1] = m1
    return need


@njit(cache=True, kernel_only=True)
def _mark_targets(n_ranks, with_chows, max_melds):
    """Boolean ``[max_melds + 1, 2, 5**n_ranks]``: index x is a target of m melds
    + p pairs inside the suit with at most 4 copies per kind."""
    size = 5 ** n_ranks
    pw = np.empty(n_ranks + 1, dtype=np.int64)
    pw[0] = 1
    for r in range(n_ranks):
        pw[r + 1] = pw[r] * 5
    n_pung = n_ranks
    n_chow = n_ranks - 2 if with_chows else 0
    mark = np.zeros((max_melds + 1, 2, size), dtype=np.bool_)
    mark[0, 0, 0] = True
    cur = np.zeros(1, dtype=np.int64)
    digits = np.zeros(n_ranks, dtype=np.int64)
    for m in range(max_melds + 1):
        if m > 0:
            nxt = np.empty(cur.shape[0] * (n_pung + n_chow), dtype=np.int64)
            n_nxt = 0
            for t in range(cur.shape[0]):
                x = cur[t]
                for r in range(n_ranks):
                    digits[r] = (x // pw[r]) % 5
                for r in range(n_pung):
                    if digits[r] <= 1:
                        y = x + 3 * pw[r]
                        if not mark[m, 0, y]:
                            mark[m, 0, y] = True
                            nxt[n_nxt] = y
                            n_nxt += 1
                for r in range(n_chow):
                    if digits[r] <= 3 and digits[r + 1] <= 3 and digits[r + 2] <= 3:
                        y = x + pw[r] + pw[r + 1] + pw[r + 2]
                        if not mark[m, 0, y]:
                            mark[m, 0, y] = True
                            nxt[n_nxt] = y
                            n_nxt += 1
            cur = nxt[:n_nxt].copy()
        # the same targets plus one pair
        for t in range(cur.shape[0]):
            x = cur[t]
            for r in range(n_ranks):
                if (x // pw[r]) % 5 <= 2:
                    mark[m, 1, x + 2 * pw[r]] = True
    return mark


@njit(cache=True, kernel_only=True)
def _down_closure(flag, n_ranks):
    """In place: flag[x] |= flag[y] for every y >= x (digit-wise)."""
    p = 1
    for _ in range(n_ranks):
        block = p * 5
        n_hi = flag.shape[0] // block
        for hi in range(n_hi):
            base = hi * block
            for d in range(3, -1, -1):
                row = base + d * p
                for lo in range(p):
                    if flag[row + lo + p]:
                        flag[row + lo] = True
        p = block


@njit(cache=True, kernel_only=True)
def _prefix_max(g, n_ranks):
    """In place: g[x] = max of g[y] over every y <= x (digit-wise)."""
    p = 1
    for _ in range(n_ranks):
        block = p * 5
        n_hi = g.shape[0] // block
        for hi in range(n_hi):
            base = hi * block
            for d in range(1, 5):
                row = base + d * p
                for lo in range(p):
                    a = g[row + lo - p]
                    if a > g[row + lo]:
                        g[row + lo] = a
        p = block


@njit(cache=True)
def build_fit(n_ranks, with_chows):
    """Table ``uint8[5**n_ranks, 10]`` of natural tiles fitting m melds + p pairs
    (column m * 2 + p; see the module doc).

    fit(c) = max |d| over d <= c (digit-wise) with d in the downward closure of
    the targets; computed per column by a downward-closure sweep and a
    prefix-max sweep along each digit axis of the product lattice.
    """
    size = 5 ** n_ranks
    mark = _mark_targets(n_ranks, with_chows, 4)
    tile_sum = np.zeros(size, dtype=np.uint8)
    digits = np.zeros(n_ranks, dtype=np.int64)
    s = 0
    for idx in range(1, size):
        r = 0
        while digits[r] == 4:
            digits[r] = 0
            s -= 4
            r += 1
        digits[r] += 1
        s += 1
        tile_sum[idx] = s
    fit = np.empty((size, N_FIT_COLS), dtype=np.uint8)
    g = np.empty(size, dtype=np.uint8)
    for m in range(5):
        for p in range(2):
            flag = mark[m, p].copy()
            _down_closure(flag, n_ranks)
            for x in range(size):
                g[x] = tile_sum[x] if flag[x] else 0
            _prefix_max(g, n_ranks)
            col = m * 2 + p
            for x in range(size):
                fit[x, col] = g[x]
    return fit


@njit(cache=True)
def build_fit_classes(fit):
    """Classes of identical fit rows: ``(cls uint8[n], rows uint8[n_cls, 10])``
    with ``rows[cls[i]] == fit[i]`` for every i (126 classes for a suit, 55 for
    the honors). Raises ValueError if there are more than 256 classes."""
    n = fit.shape[0]
    keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        key = np.uint64(0)
        for j in range(N_FIT_COLS):
            key = key * np.uint64(16) + np.uint64(fit[i, j])
        keys[i] = key
    uniq = np.unique(keys)
    if uniq.shape[0] > 256:
        raise ValueError("more than 256 distinct fit rows")
    cls = np.empty(n, dtype=np.uint8)
    for i in range(n):
        cls[i] = np.searchsorted(uniq, keys[i])
    rows = np.empty((uniq.shape[0], N_FIT_COLS), dtype=np.uint8)
    for c in range(uniq.shape[0]):
        key = uniq[c]
        for j in range(N_FIT_COLS - 1, -1, -1):
            rows[c, j] = key % np.uint64(16)
            key = key // np.uint64(16)
    return cls, rows


@njit(cache=True)
def build_fit_combo(rows_a, rows_b):
    """Fit of two groups together: ``out[i, j, M * 2 + P]`` = the most natural
    tiles of a group of class i and a group of class j that fit M melds + P
    pairs split between them (max over m <= M, p <= P of rows_a[i, 2m + p] +
    rows_b[j, 2(M - m) + P - p]). uint8[len(rows_a), len(rows_b), 10]."""
    na = rows_a.shape[0]
    nb = rows_b.shape[0]
    out = np.zeros((na, nb, N_FIT_COLS), dtype=np.uint8)
    for i in range(na):
        for j in range(nb):
            for M in range(5):
                for P in range(2):
                    best = 0
                    for m in range(M + 1):
                        for p in range(P + 1):
                            v = (np.int64(rows_a[i, 2 * m + p])
                                 + np.int64(rows_b[j, 2 * (M - m) + P - p]))
                            if v > best:
                                best = v
                    out[i, j, 2 * M + P] = best
    return out


@njit(cache=True)
def rows_match_classes(fit, cls, rows):
    """True when every row of ``fit`` equals the class row it is named by:
    ``fit[i] == rows[cls[i]]`` for all i, and every class is a row of
    ``rows`` (fit: uint8[n, 10]; cls: uint8[n]; rows: uint8[k, 10]). The
    full consistency check of cached tables (``nbsim.rules.lookups``): about 20 ms
    for a suit table, where numpy's gather took about 50 ms."""
    k = rows.shape[0]
    for i in range(fit.shape[0]):
        c = cls[i]
        if c >= k:
            return False
        for j in range(fit.shape[1]):
            if fit[i, j] != rows[c, j]:
                return False
    return True


@njit(cache=True)
def columns_at_most(a, caps):
    """True when ``a[i, j] <= caps[j]`` for every entry (a: uint8[n, m],
    caps: uint8[m])."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > caps[j]:
                return False
    return True
