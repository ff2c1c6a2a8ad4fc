"""nbsim.kernels.hand against the slow references of tests/naive_hand.py and
against the ``mahjong`` package (regular-hand shanten, Agari) without wilds.

docs/rules.md §3 (a wild is any tile, never limited by four copies),
§5 (standard form only) and §10 (waits skip excluded kinds; shanten).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.rules.tiles import parse_counts

from naive_hand import naive_complete, naive_fit, naive_shanten, naive_waits

mahjong_shanten = pytest.importorskip("mahjong.shanten")
mahjong_agari = pytest.importorskip("mahjong.agari")

SETTINGS = dict(derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    import os

    from nbsim.rules import lookups as NT
    old = os.environ.get("NBSIM_CACHE_DIR")
    os.environ["NBSIM_CACHE_DIR"] = str(tmp_path_factory.mktemp("nbsim-cache"))
    try:
        yield NT.load_tables()
    finally:
        if old is None:
            os.environ.pop("NBSIM_CACHE_DIR", None)
        else:
            os.environ["NBSIM_CACHE_DIR"] = old


def counts_of(text: str) -> np.ndarray:
    return parse_counts(text)[:34].copy()


# ---------------------------------------------------------------- strategies

ALL_KINDS = list(range(34))
FEW_KINDS = [0, 1, 2, 3, 4, 27, 28]     # 1-5m + two winds: many four-copy kinds


@st.composite
def random_hands(draw, n_tiles=(13, 14), max_wilds=7, kinds=None):
    """n natural tiles from the 4-copy wall (optionally restricted kinds) + wilds.

    Returns (counts int8[34], n_wilds, n_declared) with the concealed total
    3k + 1 or 3k + 2 for k = 4 - n_declared."""
    n_declared = draw(st.integers(0, 4))
    k = 4 - n_declared
    total = 3 * k + draw(st.sampled_from([n - 12 for n in n_tiles]))
    w = draw(st.integers(0, min(max_wilds, total)))
    pool = kinds if kinds is not None else ALL_KINDS
    pool = draw(st.sampled_from([pool, pool[:9], pool[9:18] + pool[27:], pool[:27]])) or pool
    wall = [k_ for k_ in pool for _ in range(4)]
    n_nat = total - w
    if n_nat > len(wall):
        n_nat = len(wall)
        w = total - n_nat
    picks = draw(st.lists(st.integers(0, len(wall) - 1), min_size=n_nat, max_size=n_nat,
                          unique=True))
    c = np.zeros(34, dtype=np.int8)
    for p in picks:
        c[wall[p]] += 1
    return c, w, n_declared


@st.composite
def meld_list(draw, k, dense=False):
    """k random melds; dense: only chows 123m-345m and pungs of 1m-5m / 1z, so
    kinds often exceed four copies (then wilds play the extra copies)."""
    melds = []
    for _ in range(k):
        if draw(st.booleans()):
            suit = 0 if dense else draw(st.integers(0, 2))
            r = draw(st.integers(0, 2 if dense else 6))
            melds.append([9 * suit + r, 9 * suit + r + 1, 9 * suit + r + 2])
        else:
            kind = draw(st.sampled_from(FEW_KINDS[:6]) if dense else st.integers(0, 33))
            melds.append([kind] * 3)
    return melds


@st.composite
def built_hands(draw, max_wilds=7, complete=True, dense=False):
    """Hands built complete from k melds + a pair, then some tiles turned into
    wilds (and, when a kind exceeds 4, extra copies turned into wilds: a wild
    may be a fifth copy). With complete=False one tile is then removed
    (13-type hand) or replaced by a random kind (often not complete)."""
    n_declared = draw(st.integers(0, 4))
    k = 4 - n_declared
    tiles = [t for m in draw(meld_list(k, dense)) for t in m]
    pair = draw(st.sampled_from(FEW_KINDS[:6]) if dense else st.integers(0, 33))
    tiles += [pair, pair]
    order = draw(st.permutations(list(range(len(tiles)))))
    n_w = draw(st.integers(0, min(max_wilds, len(tiles))))
    wild_pos = set(order[:n_w])
    c = np.zeros(34, dtype=np.int64)
    w = 0
    for i, t in enumerate(tiles):
        if i in wild_pos:
            w += 1
        else:
            c[t] += 1
    for t in range(34):          # fifth copies become wilds
        while c[t] > 4:
            c[t] -= 1
            w += 1
    mode = "complete" if complete else draw(st.sampled_from(["remove", "replace"]))
    if mode != "complete":
        nat = [t for t in range(34) for _ in range(c[t])]
        if nat and (w == 0 or draw(st.booleans())):
            c[draw(st.sampled_from(nat))] -= 1
        else:
            w -= 1
        if mode == "replace":
            t = draw(st.integers(0, 33))
            if c[t] < 4:
                c[t] += 1
            else:
                w += 1
    return c.astype(np.int8), w, n_declared


def wild_free(c):
    return [int(x) for x in c]


# ---------------------------------------------------------------- is_complete

HARD_SHAPES = [
    # (hand, wilds, complete?, why)
    ("13m13p123s456s11z", 2, True, "one wild in each suit's gap"),
    ("13m13p123s456s11z5z", 1, False, "a wild spent in one suit is not available for another"),
    ("11m55p99s123s456s7z", 1, False, "three pairs plus melds are not a win"),
    ("11m55p99s123s456s77z", 0, False, "four pairs are not a win (no seven pairs)"),
    ("11m55m99m22p66p11s99s", 0, False, "seven pairs are not a standard-form win"),
    ("11m22m33m44m55m66m77m", 0, True, "pairs that also read as chows are complete"),
    ("123m456m789m111p", 0, False, "12 tiles (3n) are refused"),
    ("123m456m789m11p", 1, False, "12 tiles with a wild are refused"),
    ("123m456m789m", 0, False, "9 tiles are refused"),
    ("1111m234p567p789p", 1, True, "four of a tile plus a wild as the fifth copy"),
    ("1111m234p567p78p", 2, True, "four of a tile, wilds elsewhere too"),
    ("1111m", 1, True, "1111m + wild: pung + a pair of 1m with the wild as a fifth copy"),
    ("1111m22p", 0, False, "1111m22p: no meld or pair shape"),
    ("1111m2222m", 1, False, "eleven tiles are refused"),
    ("1111m2222m3333m", 2, True, "three fours + 2 wilds"),
    ("1m5m9m1p1z", 9, True, "nine wilds carry five unconnected naturals"),
    ("1m4m7m1p5p9p1z", 7, False, "seven wilds cannot place seven unconnected naturals"),
    ("1m5m9m1p5p9p", 8, False, "six unconnected naturals need six groups"),
    ("1m3m9m1p5p", 9, True, "1m3m share a chow: five groups suffice"),
    ("", 14, True, "fourteen wilds"),
    ("", 2, True, "a pair of wilds (4 melds declared)"),
    ("5z", 1, True, "an honor and a wild pair"),
    ("1z2z", 0, False, "two different honors are not a pair"),
    ("1z2z3z", 2, False, "honors make no chow"),
    ("123z", 2, False, "honors make no chow (with the pair)"),
    ("89m", 0, False, "89m is not a pair"),
    ("89m7m11z", 0, True, "a chow 789m + pair"),
    ("9m1p2p", 2, True, "wilds complete 12p into a chow and 9m into a pair"),
    ("129m55z", 0, False, "no wrap-around chow 912m"),
    ("89m1p55z", 0, False, "no chow across suits 891"),
    ("11112345678999m", 0, True, "nine gates + 1m complete"),
    ("1112345678999m", 0, False, "nine gates (13 tiles) is not complete"),
    ("111222333m4444p5p", 0, False, "a fifth natural copy cannot exist: 44445p is not melds"),
]


@pytest.mark.parametrize("hand,w,expect,why", HARD_SHAPES, ids=[h[3] for h in HARD_SHAPES])
def test_hard_shapes(tables, hand, w, expect, why):
    c = counts_of(hand)
    got = H.is_complete(c, w, tables)
    assert naive_complete(c, w) == got, f"kernel and naive disagree on {hand}+{w}W"
    assert got == expect, why


def test_invalid_input_is_never_complete(tables):
    c = counts_of("123m456m789m11z")
    c[0] = -1
    assert not H.is_complete(c, 3, tables)
    c = counts_of("11111m")[:34] if False else counts_of("1111m")
    c[0] = 5
    assert not H.is_complete(c, 0, tables)          # 11111m: five natural copies
    assert not H.is_complete(counts_of("11m"), -1, tables)
    wide = counts_of("123m456m789m123p11z").astype(np.int64)
    assert H.is_complete(wide, 0, tables)            # wider dtypes work too
    assert H.is_complete(np.concatenate([wide, np.zeros(8, np.int64)]), 0, tables)


@settings(max_examples=200, **SETTINGS)
@given(st.one_of(random_hands(n_tiles=(14,)), random_hands(n_tiles=(14,), kinds=FEW_KINDS)))
def test_complete_random_vs_naive(tables, hand):
    c, w, _ = hand
    assert H.is_complete(c, w, tables) == naive_complete(c, w)


@settings(max_examples=250, **SETTINGS)
@given(st.one_of(built_hands(), built_hands(dense=True)))
def test_complete_built_vs_naive(tables, hand):
    c, w, _ = hand
    assert H.is_complete(c, w, tables)
    assert naive_complete(c, w)


@settings(max_examples=250, **SETTINGS)
@given(st.one_of(built_hands(complete=False), built_hands(complete=False, dense=True)))
def test_near_complete_vs_naive(tables, hand):
    c, w, _ = hand
    assert H.is_complete(c, w, tables) == naive_complete(c, w)


@settings(max_examples=120, **SETTINGS)
@given(random_hands(n_tiles=(14,), max_wilds=0))
def test_complete_vs_mahjong_agari(tables, hand):
    c, w, _ = hand
    assert H.is_complete(c, 0, tables) == bool(mahjong_agari.Agari.is_agari(wild_free(c))) or \
        _is_seven_pairs(c)


def _is_seven_pairs(c):
    # mahjong's is_agari accepts seven pairs; nbsim does not (docs/rules.md §5)
    return sum(c) == 14 and all(x in (0, 2) for x in c)


def test_batch_matches_single(tables):
    rng = np.random.default_rng(7)
    wall = np.concatenate([np.repeat(np.arange(34), 4), np.full(7, 34)])
    n = 400
    c2 = np.zeros((n, 34), dtype=np.int8)
    w1 = np.zeros(n, dtype=np.int64)
    d1 = np.zeros(n, dtype=np.int64)
    for i in range(n):
        d1[i] = rng.integers(0, 5)
        t = rng.choice(wall, 3 * (4 - d1[i]) + 2 - (i % 2), replace=False)
        b = np.bincount(t, minlength=35)
        c2[i], w1[i] = b[:34], b[34]
    ob = np.zeros(n, dtype=np.bool_)
    oi = np.zeros(n, dtype=np.int64)
    nc = H.is_complete_batch(c2, w1, tables, ob)
    ns = H.shanten_batch(c2, w1, d1, tables, oi)
    for i in range(n):
        assert ob[i] == H.is_complete(c2[i], w1[i], tables)
        assert oi[i] == H.shanten(c2[i], w1[i], d1[i], tables)
    assert nc == ob.sum() and ns == (oi == -1).sum()
    assert (oi[ob]).tolist() == [-1] * int(ob.sum())


# ---------------------------------------------------------------- wait_mask

def waits_of(tables, hand, w, excluded=()):
    c = counts_of(hand) if isinstance(hand, str) else hand
    ex = np.zeros(34, dtype=np.bool_)
    ex[list(excluded)] = True
    out = np.ones(34, dtype=np.bool_)          # must be cleared by the kernel
    n = H.wait_mask(c, w, ex, tables, out)
    got = [int(k) for k in np.flatnonzero(out)]
    assert n == len(got)
    assert got == naive_waits(c, w, ex)
    return got


def test_waits_known(tables):
    assert waits_of(tables, "1112345678999m", 0) == list(range(9))          # nine gates
    assert waits_of(tables, "1112345678999m", 0, excluded=[4]) == [0, 1, 2, 3, 5, 6, 7, 8]
    assert waits_of(tables, "123m456m789m123p", 1) == list(range(34))       # wild pairs any tile
    assert waits_of(tables, "1m", 0) == [0]
    assert waits_of(tables, "1m", 0, excluded=[0]) == []
    assert waits_of(tables, "1111m", 0) == []                                # a fifth 1m is no tile
    assert waits_of(tables, "13m55z", 0) == [1]                               # closed wait
    assert waits_of(tables, "13m5z", 1) == [1, 31]                            # 2m, or 5z + W pair
    assert waits_of(tables, "123m456m789m11p", 0) == []                      # 14 tiles: no waits
    assert waits_of(tables, "", 1) == list(range(34))                        # lone wild


@settings(max_examples=120, **SETTINGS)
@given(random_hands(n_tiles=(13,), max_wilds=4), st.lists(st.integers(0, 33), max_size=4))
def test_waits_random_vs_naive(tables, hand, excluded):
    c, w, _ = hand
    waits_of(tables, c, w, excluded)


@settings(max_examples=150, **SETTINGS)
@given(built_hands(max_wilds=4, complete=False), st.lists(st.integers(0, 33), max_size=3))
def test_waits_near_complete_vs_naive(tables, hand, excluded):
    c, w, _ = hand
    if (int(c.sum()) + w) % 3 == 1:
        waits_of(tables, c, w, excluded)


# ---------------------------------------------------------------- shanten

@pytest.mark.parametrize("hand,w,nd,expect", [
    ("123m456m789m123p11z", 0, 0, -1),
    ("123m456m789m123p1z", 0, 0, 0),
    ("123m456m789m123p1z", 1, 0, -1),
    ("1m4m7m1p4p7p1s4s7s1z2z3z4z", 0, 0, 8),
    ("1m4m7m1p4p7p1s4s7s1z2z3z4z5z", 0, 0, 8),
    ("1111m", 1, 3, -1),              # wild as a fifth copy: exact -1
    ("1111m234p567p789p", 1, 0, -1),
    ("1111m", 0, 3, 1),               # 1111m waits on a fifth 1m: not ready
    ("", 2, 4, -1),
    ("", 1, 4, 0),
    ("5z", 0, 4, 0),
    ("12m", 0, 4, 0),                 # 2 tiles, 4 melds declared: pair wait
    ("13m9m1p", 0, 3, 1),             # 4 tiles, 3 declared: 13m chow + 9m pair
    ("1m5m9m1p", 0, 3, 2),
])
def test_shanten_known(tables, hand, w, nd, expect):
    c = counts_of(hand)
    assert H.shanten(c, w, nd, tables) == expect
    assert naive_shanten(c, w, nd) == expect


def test_shanten_invalid(tables):
    assert H.shanten(counts_of("123m456m789m123p"), 0, 0, tables) == C.SHANTEN_INVALID   # 12 tiles
    assert H.shanten(counts_of("123m456m789m123p11z"), 0, 1, tables) == C.SHANTEN_INVALID
    assert H.shanten(counts_of("11m"), 0, 5, tables) == C.SHANTEN_INVALID
    c = counts_of("123m456m789m123p11z")
    c[5] = 7
    assert H.shanten(c, 0, 0, tables) == C.SHANTEN_INVALID


@settings(max_examples=300, **SETTINGS)
@given(st.one_of(random_hands(max_wilds=0), built_hands(max_wilds=0, complete=False),
                 random_hands(max_wilds=0, kinds=list(range(9)) + list(range(27, 30)))))
def test_shanten_vs_mahjong(tables, hand):
    c, w, nd = hand
    if w:
        return
    ref = mahjong_shanten.Shanten.calculate_shanten_for_regular_hand(wild_free(c))
    assert H.shanten(c, 0, nd, tables) == ref


@settings(max_examples=120, **SETTINGS)
@given(st.one_of(random_hands(max_wilds=5), built_hands(max_wilds=6, complete=False),
                 built_hands(max_wilds=7), random_hands(max_wilds=4, kinds=FEW_KINDS),
                 built_hands(max_wilds=7, dense=True),
                 built_hands(max_wilds=5, complete=False, dense=True)))
def test_shanten_vs_naive(tables, hand):
    c, w, nd = hand
    got = H.shanten(c, w, nd, tables)
    assert got == naive_shanten(c, w, nd)
    # -1 exactly when complete
    assert (got == -1) == H.is_complete(c, w, tables)


@settings(max_examples=100, **SETTINGS)
@given(random_hands(n_tiles=(13,), max_wilds=4))
def test_shanten_zero_iff_some_tile_completes(tables, hand):
    """A 3k+1 hand is ready (0) iff a natural kind or a wild completes it,
    the fifth-copy case aside (docs/rules.md §10)."""
    c, w, nd = hand
    s = H.shanten(c, w, nd, tables)
    ex = np.zeros(34, dtype=np.bool_)
    out = np.zeros(34, dtype=np.bool_)
    n_waits = H.wait_mask(c, w, ex, tables, out)
    if n_waits:
        assert s == 0
    if s == 0:
        assert H.is_complete(c, w + 1, tables)


@settings(max_examples=80, **SETTINGS)
@given(random_hands(max_wilds=3), st.lists(st.integers(0, 33), max_size=6))
def test_fit_shanten_partial_hands(tables, hand, drop):
    """Tiles left out count as tiles to replace; equal to shanten on full hands."""
    c, w, nd = hand
    full = H.fit_shanten(c, w, nd, tables)
    assert full == H.shanten(c, w, nd, tables)
    part = c.copy()
    for k in drop:
        if part[k] > 0:
            part[k] -= 1
    k = 4 - nd
    want = 3 * k + 1 - w - naive_fit(part, k, 1)
    if int(part.sum()) + w == 3 * k + 2 and naive_complete(part, w):
        want = -1
    assert H.fit_shanten(part, w, nd, tables) == want
    assert H.fit_shanten(part, w, nd, tables) >= full
    more = c.copy()
    more[[k_ for k_ in range(34) if more[k_] < 4][0]] += 3
    assert H.fit_shanten(more, w, nd, tables) == C.SHANTEN_INVALID      # > 3k + 2 tiles
