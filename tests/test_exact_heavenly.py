"""Tests of the exact heavenly-hand computation (tests/exact_heavenly.py):
against brute-force enumeration of complete shapes on reduced tile sets, and
internal consistency (normalisation, symmetry, a known count)."""
from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from math import comb, prod

import pytest

import exact_heavenly as E

OUTSIDE = 99   # a kind no natural tile has: what wilds-only melds stand for


def _brute_complete_weight(kinds, avail, hand_size, n_wilds):
    """Sum over natural multisets N (counts <= avail) that are complete with
    hand_size - |N| <= n_wilds wilds of prod C(avail, N) * C(n_wilds, w).

    Brute force: enumerate every complete shape (k melds + a pair, no copy
    limit, chows inside suits only, any meld or the pair may also be of an
    outside kind), and every sub-multiset of a shape made of available
    naturals is complete with the rest as wilds."""
    k = (hand_size - 2) // 3
    melds = [(x, x, x) for x in list(kinds) + [OUTSIDE]]
    melds += [(x, x + 1, x + 2) for x in range(27)
              if x % 9 <= 6 and any(t in kinds for t in (x, x + 1, x + 2))]
    pairs = [(x, x) for x in list(kinds) + [OUTSIDE]]
    av = dict(zip(kinds, avail, strict=False))
    complete = set()
    for ms in itertools.combinations_with_replacement(melds, k):
        for pr in pairs:
            shape = Counter(t for m in ms for t in m) + Counter(pr)
            keys = [x for x in shape if x != OUTSIDE and av.get(x, 0) > 0]
            ranges = [range(min(shape[x], av[x]) + 1) for x in keys]
            for sub in itertools.product(*ranges):
                complete.add(tuple(sorted((x, c) for x, c in zip(keys, sub, strict=False) if c)))
    total = 0
    for nat in complete:
        n = sum(c for _, c in nat)
        w = hand_size - n
        if 0 <= w <= n_wilds:
            total += prod(comb(av[x], c) for x, c in nat) * comb(n_wilds, w)
    return total


def _avail34(kinds, avail):
    a = [0] * 34
    for x, c in zip(kinds, avail, strict=False):
        a[x] = c
    return tuple(a)


@pytest.mark.parametrize("kinds,avail,hand_size,n_wilds", [
    (list(range(9)) + [27, 28], [4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 4], 8, 3),
    (list(range(9)) + [27, 28], [4, 4, 3, 4, 4, 4, 4, 4, 4, 0, 4], 8, 0),
    (list(range(9)) + [27, 28], [4] * 11, 8, 7),
    (list(range(9)), [4, 4, 4, 4, 4, 4, 4, 0, 0], 8, 7),
    (list(range(9, 18)) + [31], [2, 4, 4, 4, 1, 4, 4, 4, 4, 4], 5, 7),
    ([0, 1, 2, 9, 10, 27], [4, 4, 4, 4, 4, 4], 11, 3),
])
def test_exact_matches_brute_force_on_reduced_sets(kinds, avail, hand_size, n_wilds):
    a34 = _avail34(kinds, avail)
    comp, _ = E.complete_weights(a34, hand_size)
    exact = sum(comb(n_wilds, hand_size - n) * w for n, w in comp.items()
                if 0 <= hand_size - n <= n_wilds)
    assert exact == _brute_complete_weight(kinds, avail, hand_size, n_wilds)
    assert exact > 0


def test_fifth_copy_by_wild_counts():
    """1111m + one wild is a complete 5-tile hand (111m, and 1m with a wild as
    a fifth 1m); 1111m1111z (8 tiles, no wild) is not."""
    comp, _ = E.complete_weights(_avail34([0], [4]), 5, multiset=True)
    assert comp[4] == 1 and comp[1] == 1   # 1111m + a wild; 1m + 4 wilds
    assert _brute_complete_weight([0], [4], 5, 1) == 1
    comp, _ = E.complete_weights(_avail34([0, 27], [4, 4]), 8, multiset=True)
    assert 8 not in comp          # no 8-natural hand of 1m/1z is 2 melds + pair
    assert comp[7] == 2           # 1111m111z or 111m1111z, + one wild


def test_known_count_of_complete_hands():
    """The number of complete 14-tile kind multisets (standard form, no wilds)
    is 11,498,658 (a well-known figure)."""
    comp, _ = E.complete_weights(tuple([4] * 34), 14, multiset=True)
    assert comp[14] == 11_498_658


def test_total_weights_normalise():
    for wilds in ("none", "3baida", "7baida"):
        s = Fraction(0)
        for p, av, nw in E.indicator_cases(wilds):
            _, total = E.complete_weights(av)
            pool = sum(av) + nw
            n = sum(comb(nw, 14 - k) * w for k, w in total.items() if 0 <= 14 - k <= nw)
            assert n == comb(pool, 14)
            s += p
        assert s == 1


def test_mirror_symmetry_of_indicator_rank():
    def p(rank):
        av = [4] * 34
        av[rank] = 0
        return E.complete_probability(tuple(av), 3)
    assert p(0) == p(8)
    assert p(2) == p(6)
    assert p(0) != p(4)


def test_no_wild_probability_and_mixtures():
    p0 = E.heavenly_probability("none")
    assert 2e-6 < float(p0) < 4e-6           # "a few per million"
    p3 = E.heavenly_probability("3baida")
    p7 = E.heavenly_probability("7baida")
    assert p0 < p3 < p7
    by = E.heavenly_by_dealer_wilds("3baida")
    assert sum(b for _, b in by.values()) == p3
    assert sum(a for a, _ in by.values()) == 1
    # holding no wild in 3baida: a 14-subset of naturals
    assert by[0][1] < by[1][1] * 10


def test_wilds_distribution_closed_form():
    for wilds, nw in (("3baida", 3), ("7baida", 7)):
        for hand in (13, 14):
            d = E.wilds_distribution(wilds, hand)
            assert sum(d.values()) == 1
            mean = sum(w * p for w, p in d.items())
            exp = sum(p * Fraction(hand * k, sum(av) + k)
                      for p, av, k in E.indicator_cases(wilds))
            assert mean == exp
            assert max(d) == nw
    assert E.wilds_distribution("none") == {0: 1}


def test_next_kind():
    assert E.next_kind(8) == 0 and E.next_kind(0) == 1 and E.next_kind(17) == 9
    assert E.next_kind(30) == 27 and E.next_kind(27) == 28
    assert E.next_kind(33) == 32 and E.next_kind(32) == 31 and E.next_kind(31) == 33
