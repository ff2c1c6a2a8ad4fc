"""Plain baseline for bench_hand: a straightforward recursive wild-aware
complete check in Numba, without lookup tables.

The lowest natural tile must sit in the pair, a pung (1-3 naturals, wilds for
the rest) or a chow through it (each other member natural or wild); leftover
wilds must form whole melds (+ the pair). Counts are modified in place and
restored. Not part of the package: it exists to give the table-driven kernel
a fair same-run comparison. Compiled per run: numba's on-disk cache does not
resolve this self-recursive function (it aborts with "unresolved symbol").
"""
import numpy as np
from numba import njit


@njit
def _rec(c, w, need_pair, start):
    k = start
    while k < 34 and c[k] == 0:
        k += 1
    if k == 34:
        if need_pair:
            return w >= 2 and (w - 2) % 3 == 0
        return w % 3 == 0
    if need_pair:
        for nat in (2, 1):
            if c[k] >= nat and w >= 2 - nat:
                c[k] -= nat
                ok = _rec(c, w - (2 - nat), False, k)
                c[k] += nat
                if ok:
                    return True
    for nat in (3, 2, 1):
        if c[k] >= nat and w >= 3 - nat:
            c[k] -= nat
            ok = _rec(c, w - (3 - nat), need_pair, k)
            c[k] += nat
            if ok:
                return True
    if k < 27:
        r = k % 9
        if r <= 6:
            # chow k, k+1, k+2: each upper member natural (if held) or wild
            for use1 in (True, False):
                for use2 in (True, False):
                    if (use1 and c[k + 1] == 0) or (use2 and c[k + 2] == 0):
                        continue
                    nw = (0 if use1 else 1) + (0 if use2 else 1)
                    if nw > w:
                        continue
                    c[k] -= 1
                    if use1:
                        c[k + 1] -= 1
                    if use2:
                        c[k + 2] -= 1
                    ok = _rec(c, w - nw, need_pair, k)
                    c[k] += 1
                    if use1:
                        c[k + 1] += 1
                    if use2:
                        c[k + 2] += 1
                    if ok:
                        return True
        elif r == 7 and c[k + 1] > 0 and w >= 1:
            # chow 7-8-9 with a wild 7 (other chows with wilds below k are
            # the same cost as a pung of k with two wilds)
            c[k] -= 1
            c[k + 1] -= 1
            ok = _rec(c, w - 1, need_pair, k)
            c[k] += 1
            c[k + 1] += 1
            if ok:
                return True
    return False


@njit
def recursive_complete_batch(counts2d, n_wilds1d, out_bool):
    """out_bool[i] = counts2d[i] (naturals, kinds 0..33) + n_wilds1d[i] wilds
    form melds + 1 pair. Returns the number of complete hands."""
    c = np.zeros(34, dtype=np.int64)
    n_ok = 0
    for i in range(counts2d.shape[0]):
        tot = 0
        for k in range(34):
            c[k] = counts2d[i, k]
            tot += c[k]
        w = n_wilds1d[i]
        r = (tot + w) % 3 == 2 and _rec(c, w, True, 0)
        out_bool[i] = r
        if r:
            n_ok += 1
    return n_ok
