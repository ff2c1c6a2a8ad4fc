"""Wild-aware complete-hand check, waits and shanten (docs/rules.md §3, §5 and §10).

Encoding: ``counts`` is an integer array over kinds (length >= 34; kinds 0-8 m,
9-17 p, 18-26 s, 27-33 honors, see codes.py) holding NATURAL tiles only, each
count 0..4. Wild tiles are taken out of the counts and passed as ``n_wilds``.
A wild stands for any suited or honor kind, including a fifth or sixth copy of
a kind (docs/rules.md §3). Only the standard form counts (docs/rules.md §5):
k melds (chows/pungs; honors only pungs) + 1 pair from 3k + 2 concealed tiles;
declared melds are not passed.

``tables`` is the named tuple returned by ``nbsim.rules.lookups.load_tables()``
(``nbsim.kernels.tables.Tables``: suit_need, honor_need, suit_shanten,
honor_shanten, suit_fit_class, honor_fit_class, fit_combo_ss, fit_combo_sh;
definitions in nbsim/kernels/tables.py), read by field name. A suit's table
index is ``sum(c[r] * 5**r)``.

Public kernels (all ``@njit(cache=True)``, allocation-free, one thread):
``is_complete``, ``is_complete_batch``, ``wait_mask``, ``shanten``,
``fit_shanten`` (shanten of a partial hand), ``shanten_batch``, and the index
helpers ``suit_index`` / ``honor_index``. Batch versions write into
caller-provided outputs. Throughput: benchmarks/bench_hand.py.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free


@njit(cache=True, inline="always")
def suit_index(counts, base):
    """Table index of the 9 ranks ``counts[base:base + 9]``: sum(c[r] * 5**r).

    counts: integer array, each entry 0..4 (not checked here); base: 0, 9 or 18.
    Returns an int in 0..5**9 - 1."""
    idx = 0
    for r in range(8, -1, -1):
        idx = idx * 5 + counts[base + r]
    return idx


@njit(cache=True, inline="always")
def honor_index(counts):
    """Table index of the 7 honor counts ``counts[27:34]``: sum(c[h] * 5**h)."""
    idx = 0
    for r in range(6, -1, -1):
        idx = idx * 5 + counts[C.HONOR0 + r]
    return idx


@njit(cache=True, inline="always")
def _group(counts, base, n_ranks):
    """Index, validity word, tile total and four-copies word of one group.

    Counts are read as unsigned bytes; ``bad`` ORs (c + 3) over them, so its
    bits above 2 are clear exactly when every byte is in 0..4 (an int8 -1 is
    255 and is caught); the index uses the same bytes, so it is in range
    whenever ``bad`` is clean. ``four`` ORs (c + 4): for valid counts its bit
    3 is set exactly when some count is 4. (One fused pass: cheaper than a
    separate loop; unused results cost nothing once inlined.)"""
    # np.int64: a literal 0 would make numba also compile every callee of
    # these results for Literal[int](0) during type inference (wasted work)
    idx = np.int64(0)
    bad = np.int64(0)
    tot = np.int64(0)
    four = np.int64(0)
    for r in range(n_ranks - 1, -1, -1):
        c = np.int64(np.uint8(counts[base + r]))
        idx = idx * 5 + c
        bad |= c + 3
        four |= c + 4
        tot += c
    return idx, bad, tot, four


@njit(cache=True, inline="always")
def _indices(counts):
    """The four group indices (m, p, s, honors), the natural tile total,
    whether every count of kinds 0..33 is in 0..4 (the indices may only be
    used when it is) and whether some kind is held 4 times."""
    i0, b0, t0, f0 = _group(counts, C.MAN0, 9)
    i1, b1, t1, f1 = _group(counts, C.PIN0, 9)
    i2, b2, t2, f2 = _group(counts, C.SOU0, 9)
    i3, b3, t3, f3 = _group(counts, C.HONOR0, 7)
    ok = ((b0 | b1 | b2 | b3) & ~7) == 0
    has_four = ((f0 | f1 | f2 | f3) & 8) != 0
    return i0, i1, i2, i3, t0 + t1 + t2 + t3, ok, has_four


@njit(cache=True, inline="always")
def group_needs(i0, i1, i2, i3, tables):
    """Wild needs of the four groups (m, p, s, honors) at indices i0..i3:
    (a0, a1, a2, a3, d0, d1, d2, d3), int64 each; a_g = wilds group g needs
    to become melds only, d_g = the extra wilds it needs to also hold the
    pair (``tables.suit_need`` / ``tables.honor_need``)."""
    suit_need = tables.suit_need
    honor_need = tables.honor_need
    a0 = np.int64(suit_need[i0, 0])
    a1 = np.int64(suit_need[i1, 0])
    a2 = np.int64(suit_need[i2, 0])
    a3 = np.int64(honor_need[i3, 0])
    return (a0, a1, a2, a3, np.int64(suit_need[i0, 1]) - a0, np.int64(suit_need[i1, 1]) - a1,
            np.int64(suit_need[i2, 1]) - a2, np.int64(honor_need[i3, 1]) - a3)


@njit(cache=True, inline="always")
def completes_with_step(g, j, n_wilds, needs, sn, hn):
    """With ``needs`` = ``group_needs`` of a hand and group g's index moved
    to j (one natural tile added to group g), do n_wilds wilds complete it
    (k melds + 1 pair)? The other groups keep their needs and the pair goes
    where it costs least; the leftover wilds must form whole melds. sn, hn:
    ``tables.suit_need``, ``tables.honor_need`` (taken out of the tuple once
    by the caller: with reference counting on, every tuple access costs one)."""
    a0, a1, a2, a3, d0, d1, d2, d3 = needs
    if g == 0:
        s_oth = a1 + a2 + a3
        d_oth = min(d1, min(d2, d3))
    elif g == 1:
        s_oth = a0 + a2 + a3
        d_oth = min(d0, min(d2, d3))
    elif g == 2:
        s_oth = a0 + a1 + a3
        d_oth = min(d0, min(d1, d3))
    else:
        s_oth = a0 + a1 + a2
        d_oth = min(d0, min(d1, d2))
    if g == 3:
        a = np.int64(hn[j, 0])
        b = np.int64(hn[j, 1])
    else:
        a = np.int64(sn[j, 0])
        b = np.int64(sn[j, 1])
    x = n_wilds - (s_oth + a + min(b - a, d_oth))
    return x >= 0 and x % 3 == 0


@njit(cache=True, inline="always")
def _complete_from_idx(i0, i1, i2, i3, n_wilds, tables):
    """Core of is_complete once the four group indices are known.

    Each group's naturals + need is a multiple of 3 (melds) or 2 mod 3 (with
    the pair), so x = n_wilds - (melds-only needs + cheapest pair delta) is a
    multiple of 3 exactly when naturals + n_wilds is 2 mod 3; the x leftover
    wilds then form whole melds of wilds. Complete iff x >= 0 and x % 3 == 0.
    """
    a0, a1, a2, a3, d0, d1, d2, d3 = group_needs(i0, i1, i2, i3, tables)
    x = n_wilds - (a0 + a1 + a2 + a3 + min(min(d0, d1), min(d2, d3)))
    return x >= 0 and x % 3 == 0


@njit(cache=True, inline="always")
def _is_complete(counts, n_wilds, tables):
    i0, i1, i2, i3, total, ok, has_four = _indices(counts)
    if not ok or n_wilds < 0:
        return False
    return _complete_from_idx(i0, i1, i2, i3, n_wilds, tables)


@nrt_free
def is_complete(counts, n_wilds, tables):
    """True when the natural ``counts`` plus ``n_wilds`` wilds form k melds + 1 pair.

    counts: int array (int8 preferred), length >= 34, natural tiles per kind
    0..33 (0..4 each; read as unsigned bytes); n_wilds: int >= 0; tables: from
    ``nbsim.rules.lookups.load_tables()``. Returns False when the tile total
    (naturals + wilds) is not 2 mod 3, or for invalid input (a count outside
    0..4, n_wilds < 0). A wild may be a fifth copy of a kind (docs/rules.md
    §3): 1111m + one wild + melds is complete. Standard form only
    (docs/rules.md §5).
    """
    return _is_complete(counts, n_wilds, tables)


@nrt_free
def is_complete_batch(counts2d, n_wilds1d, tables, out_bool):
    """Batch ``is_complete``: out_bool[i] = is_complete(counts2d[i], n_wilds1d[i]).

    counts2d: int array [n, >= 34]; n_wilds1d: int array [n]; out_bool: bool[n]
    (written). Returns the number of complete hands."""
    n_ok = 0
    for i in range(counts2d.shape[0]):
        r = _is_complete(counts2d[i], n_wilds1d[i], tables)
        out_bool[i] = r
        if r:
            n_ok += 1
    return n_ok


@nrt_free
def wait_mask(counts, n_wilds, excluded, tables, out):
    """Waits of a 3k + 1 tile concealed hand: the kinds whose natural tile completes it.

    counts: natural counts (length >= 34, 0..4 each); n_wilds: wilds held;
    excluded: bool array (length >= 34): kinds the caller rules out (wild kinds,
    kinds whose 4 copies are all visible; docs/rules.md §10); out: bool[>= 34],
    written for kinds 0..33: out[k] = True when k is not excluded, the hand
    holds fewer than 4 natural k, and counts + one k (+ the wilds) is complete.
    Returns the number of such kinds (0 for a hand that is not 3k + 1 tiles or
    has a count outside 0..4). A drawn wild completes any hand with at least
    one wait and is never listed.
    """
    for k in range(C.N_PLAY):
        out[k] = False
    i0, i1, i2, i3, total, ok, has_four = _indices(counts)
    if not ok or n_wilds < 0 or (total + n_wilds) % 3 != 1:
        return 0
    needs = group_needs(i0, i1, i2, i3, tables)
    sn = tables.suit_need
    hn = tables.honor_need
    n = 0
    for g in range(4):
        idx = i0 if g == 0 else (i1 if g == 1 else (i2 if g == 2 else i3))
        k0 = 9 * g
        p = 1
        for r in range(7 if g == 3 else 9):
            k = k0 + r
            if (not excluded[k] and counts[k] < 4
                    and completes_with_step(g, idx + p, n_wilds, needs, sn, hn)):
                out[k] = True
                n += 1
            p *= 5
    return n


@njit(cache=True, inline="always")
def group_class(g, j, tables):
    """Fit class (int64) of group ``g`` (0..2 a suit, 3 honors) at index
    ``j``: groups of one class fit the same number of tiles for every count
    of melds and pair (``tables.suit_fit_class`` / ``honor_fit_class``)."""
    if g < 3:
        return np.int64(tables.suit_fit_class[j])
    return np.int64(tables.honor_fit_class[j])


@njit(cache=True, inline="always")
def hand_classes(i0, i1, i2, i3, tables):
    """The fit classes (int64 each) of the four groups at indices i0..i3
    (``group_indices``), then those of an empty suit and of empty honors:
    what a caller that scores many one-group changes of one hand looks up
    once."""
    return (group_class(0, i0, tables), group_class(1, i1, tables),
            group_class(2, i2, tables), group_class(3, i3, tables),
            group_class(0, 0, tables), group_class(3, 0, tables))


@njit(cache=True, inline="always")
def best_fit_classes(a, b, c, h, k, tables):
    """Most natural tiles fitting k melds + 1 pair split among four groups
    of fit classes a, b, c (suits) and h (honors): ``best_fit_combos`` with
    the table's combo rows."""
    return best_fit_combos(a, b, c, h, k, tables.fit_combo_ss, tables.fit_combo_sh)


@njit(cache=True, inline="always")
def best_fit_combos(a, b, c, h, k, ss, sh):
    """``best_fit_classes`` given the two combo tables (``tables.fit_combo_ss``,
    ``fit_combo_sh``): the m+p combo row and the s+honors combo row, then
    the best split of the k melds and the pair. (Scalar indexing only: no
    array views, so no reference counting.)"""
    best = np.int64(-1)
    for m in range(k + 1):
        j = 2 * (k - m)
        t = np.int64(ss[a, b, 2 * m]) + np.int64(sh[c, h, j + 1])
        u = np.int64(ss[a, b, 2 * m + 1]) + np.int64(sh[c, h, j])
        if u > t:
            t = u
        if t > best:
            best = t
    return best


@njit(cache=True, inline="always")
def _best_fit(i0, i1, i2, i3, k, tables):
    """``best_fit_classes`` of the four groups (m, p, s, honors) given by
    their indices."""
    scls = tables.suit_fit_class
    return best_fit_classes(scls[i0], scls[i1], scls[i2], tables.honor_fit_class[i3], k,
                            tables)


@njit(cache=True, inline="always")
def _fit_shanten(counts, n_wilds, n_declared, tables, strict):
    i0, i1, i2, i3, total, ok, has_four = _indices(counts)
    if not ok or n_wilds < 0 or n_declared < 0 or n_declared > 4:
        return C.SHANTEN_INVALID
    k = 4 - n_declared
    t = total + n_wilds
    if t > 3 * k + 2 or (strict and t < 3 * k + 1):
        return C.SHANTEN_INVALID
    s = 3 * k + 1 - n_wilds - _best_fit(i0, i1, i2, i3, k, tables)
    # a wild acting as a fifth copy can complete a hand that the <= 4
    # target misses; the exact check decides -1. Only a hand holding 4 of
    # a kind can need it (the need tables with and without the
    # four-copies limit agree on every group without a count of 4:
    # tests/test_tables.py checks all indices).
    if (has_four and s >= 0 and n_wilds > 0 and t == 3 * k + 2
            and _complete_from_idx(i0, i1, i2, i3, n_wilds, tables)):
        s = -1
    return s


@nrt_free
def shanten(counts, n_wilds, n_declared, tables):
    """Shanten of a concealed hand: tiles away from a complete standard-form hand.

    counts: natural counts (length >= 34, 0..4 each); n_wilds: wilds held;
    n_declared: declared melds (0..4; kongs count as one meld). The concealed
    hand must hold 3k + 1 or 3k + 2 tiles (naturals + wilds) with
    k = 4 - n_declared. Returns -1 for a complete hand (exactly when
    ``is_complete`` is True), 0 for a ready hand, n >= 1 otherwise, or
    ``C.SHANTEN_INVALID`` (99) for a tile total or count out of range.

    Definition (docs/rules.md §10): 3k + 1 - W - F, where W = n_wilds (each
    wild becomes any tile) and F = the most natural tiles that fit a target of
    k melds + 1 pair holding at most 4 copies of a kind. Shanten may ignore a
    wild acting as a fifth copy; here it only matters for -1, which is made
    exact. Without wilds this equals the regular-hand shanten of the
    ``mahjong`` package (calculate_shanten_for_regular_hand on the concealed
    tiles; its implied melds for short hands are the declared melds).
    """
    return _fit_shanten(counts, n_wilds, n_declared, tables, True)


@nrt_free
def fit_shanten(counts, n_wilds, n_declared, tables):
    """``shanten`` for a hand given with only part of its tiles (at most 3k + 2).

    The tiles left out of ``counts`` count as tiles to replace: the value is
    3k + 1 - n_wilds - F as in ``shanten`` (k = 4 - n_declared), e.g. for a
    shanten toward a flush with the off-suit tiles removed. Equal to
    ``shanten`` when the total is 3k + 1 or 3k + 2; ``C.SHANTEN_INVALID`` for
    more than 3k + 2 tiles or a count outside 0..4.
    """
    return _fit_shanten(counts, n_wilds, n_declared, tables, False)


@nrt_free
def shanten_batch(counts2d, n_wilds1d, n_declared1d, tables, out_int):
    """Batch ``shanten``: out_int[i] = shanten(counts2d[i], n_wilds1d[i], n_declared1d[i]).

    counts2d: int array [n, >= 34]; n_wilds1d, n_declared1d: int arrays [n];
    out_int: int array [n] (written). Returns the number of complete hands (-1).
    The loop body repeats ``_fit_shanten`` (strict) by hand, which is faster
    than the inlined call (docs/layout.md, "The kernels");
    tests/test_hand.py checks that both agree."""
    n_complete = 0
    for i in range(counts2d.shape[0]):
        n_wilds = n_wilds1d[i]
        n_declared = n_declared1d[i]
        i0, i1, i2, i3, total, ok, has_four = _indices(counts2d[i])
        k = 4 - n_declared
        t = total + n_wilds
        s = C.SHANTEN_INVALID
        if (ok and n_wilds >= 0 and n_declared >= 0 and n_declared <= 4
                and t <= 3 * k + 2 and t >= 3 * k + 1):
            s = 3 * k + 1 - n_wilds - _best_fit(i0, i1, i2, i3, k, tables)
            if (has_four and s >= 0 and n_wilds > 0 and t == 3 * k + 2
                    and _complete_from_idx(i0, i1, i2, i3, n_wilds, tables)):
                s = -1
        out_int[i] = s
        if s == -1:
            n_complete += 1
    return n_complete


# ------------------------------------------------------------------ incremental use
_POW5 = (1, 5, 25, 125, 625, 3125, 15625, 78125, 390625)
@njit(cache=True, inline="always")
def group_indices(counts):
    """The four group indices (m, p, s, honors) of natural ``counts`` (length
    >= 34, 0..4 each), for callers that evaluate many one-tile changes: a
    tile of kind k changes only its group's index, by ``kind_step(k)``."""
    i0, i1, i2, i3, total, ok, has_four = _indices(counts)
    return i0, i1, i2, i3


@njit(cache=True, inline="always")
def kind_step(kind):
    """(group 0..3, 5**rank): adding one tile of ``kind`` (0..33) adds the
    step to that group's index."""
    if kind < C.HONOR0:
        g = kind // 9
        r = kind - 9 * g
    else:
        g = 3
        r = kind - C.HONOR0
    return g, _POW5[r]


@njit(cache=True, inline="always")
def step_indices(i0, i1, i2, i3, kind, d):
    """The group indices (``group_indices``) after adding ``d`` tiles of the
    natural ``kind`` (d = -1 removes one): only its group's index moves, by
    d times ``kind_step(kind)``."""
    g, p = kind_step(kind)
    q = d * p
    return (i0 + q if g == 0 else i0, i1 + q if g == 1 else i1,
            i2 + q if g == 2 else i2, i3 + q if g == 3 else i3)


@njit(cache=True, inline="always")
def fit_shanten_idx(i0, i1, i2, i3, n_wilds, n_declared, tables):
    """``fit_shanten`` from group indices (see ``group_indices``): 3k + 1 -
    n_wilds - the most naturals fitting k = 4 - n_declared melds + 1 pair.
    A group left at index 0 contributes no tile (a flush target)."""
    k = 4 - n_declared
    return 3 * k + 1 - n_wilds - _best_fit(i0, i1, i2, i3, k, tables)
