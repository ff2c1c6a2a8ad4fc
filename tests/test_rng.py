"""Counter-based RNG (nbsim/kernels/rng.py): pure function of (seed, deal,
stream, index), documented algorithm, unbiased bounded integers."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from nbsim.kernels import rng

M64 = (1 << 64) - 1


def _mix64(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def _mix_gamma(z):
    z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & M64
    z = ((z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53) & M64
    z = (z ^ (z >> 33)) | 1
    if bin(z ^ (z >> 1)).count("1") < 24:
        z ^= 0xAAAAAAAAAAAAAAAA
    return z


def _ref_key(seed, deal, stream):
    """The module docstring's derivation, in plain Python integers."""
    s = _mix64(seed + 0x6A09E667F3BCC909)
    d = _mix64(s ^ _mix64(deal + 0xBB67AE8584CAA73B))
    key = _mix64(d + (stream + 1) * 0x9E3779B97F4A7C15)
    return key, _mix_gamma(key ^ 0x3C6EF372FE94F82B)


def _ref_u32(key, gamma, n):
    w = _mix64(key + (n // 2 + 1) * gamma)
    return (w >> 32) if n % 2 else (w & 0xFFFFFFFF)


def _ref_below(key, gamma, idx, n):
    """Lemire's method on the reference 32-bit stream; returns (value, next idx)."""
    m = _ref_u32(key, gamma, idx) * n
    idx += 1
    low = m & 0xFFFFFFFF
    if low < n:
        t = (2**32 - n) % n
        while low < t:
            m = _ref_u32(key, gamma, idx) * n
            idx += 1
            low = m & 0xFFFFFFFF
    return m >> 32, idx


def _raw(seed, deal, stream, k):
    st = rng.new_state(seed, deal, stream)
    out = np.empty(k, np.int64)
    rng.below_batch(st, 2**32, out)      # n = 2**32: the raw 32-bit outputs
    return out


@pytest.mark.parametrize("seed,deal,stream", [
    (0, 0, 0), (1, 0, rng.STREAM_WALL), (1, 5, rng.STREAM_DICE),
    (M64, 2**40, rng.STREAM_POLICY + 3), (123456789, 999_999, rng.STREAM_ROUND_WIND)])
def test_stream_matches_documented_algorithm(seed, deal, stream):
    st = rng.new_state(seed, deal, stream)
    key, gamma = _ref_key(seed, deal, stream)
    assert int(st[rng.RNG_KEY]) == key and int(st[rng.RNG_GAMMA]) == gamma
    raw = _raw(seed, deal, stream, 9)
    assert [int(x) for x in raw] == [_ref_u32(key, gamma, i) for i in range(9)]
    assert all(int(rng.u32_at(np.uint64(key), np.uint64(gamma), i)) == _ref_u32(key, gamma, i)
               for i in range(9))


def test_pure_function_of_seed_deal_stream():
    a = _raw(7, 3, 0, 50)
    assert (a == _raw(7, 3, 0, 50)).all()
    # the first outputs of a stream do not depend on how many are drawn
    assert (_raw(7, 3, 0, 10) == a[:10]).all()
    others = [_raw(8, 3, 0, 50), _raw(7, 4, 0, 50), _raw(7, 3, 1, 50)]
    for o in others:
        assert (o != a).sum() > 45


def test_keys_distinct_over_many_deals():
    keys = {int(rng.new_state(42, d, 0)[rng.RNG_KEY]) for d in range(20_000)}
    assert len(keys) == 20_000


@pytest.mark.parametrize("n", [1, 2, 6, 7, 144, 1000, 3 * 2**30, 2**32 - 5])
def test_below_matches_lemire_reference(n):
    st = rng.new_state(99, 1, 0)
    out = np.empty(300, np.int64)
    rng.below_batch(st, n, out)
    key, gamma = _ref_key(99, 1, 0)
    idx, ref = 0, []
    for _ in range(300):
        v, idx = _ref_below(key, gamma, idx, n)
        ref.append(v)
    assert [int(x) for x in out] == ref
    assert int(st[rng.RNG_INDEX]) == idx
    assert (out >= 0).all() and (out < n).all()


def test_rejection_happens_for_large_bounds():
    # n = 3 * 2**30: about a quarter of the raw outputs must be rejected
    st = rng.new_state(5, 0, 0)
    out = np.empty(4000, np.int64)
    rng.below_batch(st, 3 * 2**30, out)
    used = int(st[rng.RNG_INDEX])
    assert 4000 * 1.2 < used < 4000 * 1.45


@pytest.mark.parametrize("n", [0, 1, 2, 9, 144])
def test_shuffle_is_the_documented_fisher_yates(n):
    """rng.shuffle(state, a, n) permutes a[:n] exactly as the textbook loop
    with below() draws from the last position down, and leaves a[n:] alone."""
    a = np.arange(n + 3, dtype=np.uint8)
    st = rng.new_state(7, 3, 0)
    rng.shuffle(st, a, n)
    ref = list(range(n + 3))
    key, gamma = _ref_key(7, 3, 0)
    idx = 0
    for i in range(n - 1, 0, -1):
        j, idx = _ref_below(key, gamma, idx, i + 1)
        ref[i], ref[j] = ref[j], ref[i]
    assert [int(x) for x in a] == ref
    assert sorted(ref[:n]) == list(range(n)) and ref[n:] == [n, n + 1, n + 2]
    assert int(st[rng.RNG_INDEX]) == idx


@pytest.mark.parametrize("n", [6, 7, 136, 144])
def test_below_is_uniform(n):
    st = rng.new_state(2024, 0, 0)
    out = np.empty(200 * n, np.int64)
    rng.below_batch(st, n, out)
    counts = np.bincount(out, minlength=n)
    assert counts.shape[0] == n
    assert chisquare(counts).pvalue > 1e-4


def test_stream_ids_are_distinct_constants():
    ids = [rng.STREAM_WALL, rng.STREAM_DICE, rng.STREAM_ROUND_WIND, rng.STREAM_ENGINE]
    ids += [rng.STREAM_POLICY + s for s in range(4)] + [rng.STREAM_USER]
    assert len(set(ids)) == len(ids)
