"""The 13-tile hand of a win (the concealed tiles before the winning tile):
its wait set and the wild single wait (docs/rules.md §6 and §10), hand
constants of ``score.score_one``.

* ``nat13(iw, win_kind, win_wild)``: its natural counts into the scratch
  (``scratch.O_NAT13``) from those of the 14 tiles.
* ``melds_only(naturals, wilds, tables) -> bool``: the naturals and wilds
  split into melds only (the wild single wait, 抛搭: the 13 tiles less one
  wild are complete melds).
* ``wait_info(iw, hand, indicator, wild_a, wild_b, wild_flowers, wilds13,
  tables) -> (n, kind0, kind1)``: size of the wait set (capped at 3) and its
  first two kinds.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.hand import completes_with_step, group_needs, honor_index, suit_index
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.scoring.scratch import O_MELD_COUNT, O_NAT0, O_NAT13
from nbsim.kernels.scoring.validation import is_wild


@njit(cache=True, inline="always")
def melds_only(naturals, wilds, tables):
    """True when the natural counts (length >= 34) plus ``wilds`` wilds split
    into melds only (no pair); tables: ``nbsim.rules.lookups.load_tables()``."""
    if wilds < 0:
        return False
    suit_need = tables.suit_need
    honor_need = tables.honor_need
    need = (np.int64(suit_need[suit_index(naturals, C.MAN0), 0])
            + np.int64(suit_need[suit_index(naturals, C.PIN0), 0])
            + np.int64(suit_need[suit_index(naturals, C.SOU0), 0])
            + np.int64(honor_need[honor_index(naturals), 0]))
    left = wilds - need
    return left >= 0 and left % 3 == 0


@njit(cache=True, inline="always")
def nat13(iw, win_kind, win_wild):
    """Natural counts of the 13-tile hand (before the winning tile) into O_NAT13."""
    for k in range(C.N_PLAY):
        iw[O_NAT13 + k] = iw[O_NAT0 + k]
    if not win_wild:
        iw[O_NAT13 + win_kind] -= 1


@nrt_free
def wait_info(iw, hand, indicator, wild_a, wild_b, wild_flowers, wilds13, tables):
    """Size of the 13-tile wait set (capped at 3) and its first two kinds,
    for the natural counts in O_NAT13 and wilds13 wilds (docs/rules.md §10:
    wild kinds and kinds with 4 copies in hand, melds or the indicator skipped).

    Same set as ``hand.wait_mask`` (tests/test_score_diff.py checks it), but
    stops at the third waiting kind, and without wilds tries only kinds next
    to a natural tile (a tile joining no wild must share a group with one).
    A kind y completes the hand when, with the per-group need tables
    (``nbsim.rules.lookups``: wilds needed for melds only / melds + the pair),
    wilds13 - (needs of the other groups + y's group's need + the cheapest
    pair move) is a non-negative multiple of 3."""
    i0 = suit_index(iw, O_NAT13 + C.MAN0)
    i1 = suit_index(iw, O_NAT13 + C.PIN0)
    i2 = suit_index(iw, O_NAT13 + C.SOU0)
    i3 = honor_index(iw[O_NAT13:O_NAT13 + C.N_PLAY])
    needs = group_needs(i0, i1, i2, i3, tables)
    suit_need = tables.suit_need
    honor_need = tables.honor_need
    n = 0
    kind0 = -1
    kind1 = -1
    for y in range(C.N_PLAY):
        if is_wild(y, wild_a, wild_b, wild_flowers):
            continue
        if hand[y] + iw[O_MELD_COUNT + y] + (1 if indicator == y else 0) >= 4:
            continue
        if y < C.HONOR0:
            g = y // 9
            rank = y - 9 * g
            if wilds13 == 0:
                near = False
                for dr in range(-2, 3):
                    if 0 <= rank + dr <= 8 and iw[O_NAT13 + y + dr] > 0:
                        near = True
                if not near:
                    continue
            j = i0 if g == 0 else (i1 if g == 1 else i2)
        else:
            if wilds13 == 0 and iw[O_NAT13 + y] == 0:
                continue
            g = 3
            rank = y - C.HONOR0
            j = i3
        step = 1
        for _ in range(rank):
            step *= 5
        if completes_with_step(g, j + step, wilds13, needs, suit_need, honor_need):
            if n == 0:
                kind0 = y
            elif n == 1:
                kind1 = y
            n += 1
            if n == 3:
                break
    return n, kind0, kind1
