"""Wild kinds (百搭 / 财神) from the flipped indicator (docs/rules.md §3)."""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit


@njit(cache=True)
def next_kind(rules, kind):
    """Successor of ``kind`` for 7-baida: 9 -> 1 within a suit, E -> S -> W -> N -> E,
    dragons by the variant's ``dragon_successor``; flowers return -1."""
    if kind < C.HONOR0:
        suit0 = (kind // 9) * 9
        return suit0 + (kind - suit0 + 1) % 9
    if kind <= C.NORTH:
        return C.EAST + (kind - C.EAST + 1) % 4
    if kind < C.FLOWER0:
        return rules[C.R_DRAGON_SUCC + kind - C.WHITE]
    return -1


@njit(cache=True)
def wild_mask(rules, indicator, out):
    """Fill ``out`` (bool[42]) with the wild kinds for ``indicator`` (kind id, -1 none).

    3baida: the indicator's kind (its 3 other copies); a flower indicator makes
    the other 3 flowers of its group wild. 7baida: also every copy of
    next(kind); a flower indicator makes the 7 other flowers wild. Returns the
    number of wild physical tiles in play (3 or 7; 0 without wilds).
    """
    for k in range(C.N_KINDS):
        out[k] = False
    mode = rules[C.R_WILDS]
    if mode == C.WILDS_NONE or indicator < 0:
        return 0
    if indicator >= C.FLOWER0:
        if mode == C.WILDS_3BAIDA:
            g0 = C.FLOWER0 + ((indicator - C.FLOWER0) // 4) * 4
            for k in range(g0, g0 + 4):
                out[k] = k != indicator
            return 3
        for k in range(C.FLOWER0, C.N_KINDS):
            out[k] = k != indicator
        return 7
    out[indicator] = True
    if mode == C.WILDS_7BAIDA:
        out[next_kind(rules, indicator)] = True
        return 7
    return 3


def wild_kinds(rules, indicator):
    """Python helper: sorted list of wild kind ids for ``indicator`` (kind id or -1)."""
    out = np.zeros(C.N_KINDS, dtype=np.bool_)
    wild_mask(rules, indicator, out)
    return [int(k) for k in np.flatnonzero(out)]
