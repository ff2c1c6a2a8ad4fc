"""The lookup tables (nbsim/kernels/tables.py) against the slow references of
tests/naive_hand.py, their invariants, and the on-disk cache (nbsim/rules/lookups.py)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from nbsim.kernels import tables as KT
from nbsim.rules import lookups as NT

from naive_hand import naive_fit, naive_need


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("nbsim-cache")
    old = os.environ.get("NBSIM_CACHE_DIR")
    os.environ["NBSIM_CACHE_DIR"] = str(d)
    yield d
    if old is None:
        os.environ.pop("NBSIM_CACHE_DIR", None)
    else:
        os.environ["NBSIM_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def tables(cache_dir):
    return NT.load_tables()


def digits_of(idx: int, n: int) -> list[int]:
    return [(idx // 5 ** r) % 5 for r in range(n)]


def all_digits(n: int) -> np.ndarray:
    idx = np.arange(5 ** n)
    return np.stack([(idx // 5 ** r) % 5 for r in range(n)], axis=1)


def sample_indices(n_ranks: int, n: int, seed: int) -> list[int]:
    """Indices of groups with 0..14 tiles (realistic) plus a few dense ones."""
    rng = np.random.default_rng(seed)
    out = [0, 5 ** n_ranks - 1, 1, 4, 5 ** (n_ranks - 1)]
    while len(out) < n:
        size = int(rng.integers(1, 15)) if len(out) % 5 else int(rng.integers(15, 22))
        c = np.zeros(n_ranks, dtype=np.int64)
        for _ in range(size):
            r = int(rng.integers(0, n_ranks))
            if c[r] < 4:
                c[r] += 1
        out.append(int(sum(int(c[r]) * 5 ** r for r in range(n_ranks))))
    return out


def as_counts(idx: int, n_ranks: int) -> list[int]:
    """Counts over kinds 0..33 with the group in the m suit (9 ranks) or the honors (7)."""
    c = [0] * 34
    base = 0 if n_ranks == 9 else 27
    for r, d in enumerate(digits_of(idx, n_ranks)):
        c[base + r] = d
    return c


# ---------------------------------------------------------------- shapes

def test_shapes_and_dtypes(tables):
    assert len(tables) == len(NT.NAMES)
    for name, a in zip(NT.NAMES, tables, strict=True):
        assert a.dtype == np.uint8, name
        assert NT._shape_ok(name, a), (name, a.shape)
    assert tables.fit_combo_ss.shape[:2] == (tables.suit_fit_class.max() + 1,) * 2
    assert tables.fit_combo_sh.shape[1] == tables.honor_fit_class.max() + 1


def test_tables_are_named_in_position_order(tables):
    """Kernels read the tables by field name; the fields keep the order of
    NAMES (the cache file names) and a plain tuple unpacks them the same way."""
    assert isinstance(tables, NT.Tables) and tables._fields == NT.NAMES
    for i, name in enumerate(NT.NAMES):
        assert getattr(tables, name) is tables[i]


# ---------------------------------------------------------------- need tables

@pytest.mark.parametrize("n_ranks,field", [(9, "suit_need"), (7, "honor_need")],
                         ids=["suit", "honors"])
def test_need_vs_naive(tables, n_ranks, field):
    need = getattr(tables, field)
    for idx in sample_indices(n_ranks, 120, seed=n_ranks):
        c = as_counts(idx, n_ranks)
        assert need[idx, 0] == naive_need(c, False), (digits_of(idx, n_ranks), "melds")
        assert need[idx, 1] == naive_need(c, True), (digits_of(idx, n_ranks), "pair")


@pytest.mark.parametrize("n_ranks,field", [(9, "suit_need"), (7, "honor_need")],
                         ids=["suit", "honors"])
def test_need_arithmetic(tables, n_ranks, field):
    """naturals + need is 0 mod 3 (melds) or 2 mod 3 (with the pair) everywhere,
    which is.complete relies on; a pair of wilds is never worse than 2 more."""
    need = getattr(tables, field).astype(np.int64)
    n = all_digits(n_ranks).sum(axis=1)
    assert ((n + need[:, 0]) % 3 == 0).all()
    assert ((n + need[:, 1]) % 3 == 2).all()
    assert (need[:, 1] <= need[:, 0] + 2).all()
    assert need[0].tolist() == [0, 2]


@pytest.mark.parametrize("n_ranks,need_field,fit_field",
                         [(9, "suit_need", "suit_shanten"), (7, "honor_need", "honor_shanten")],
                         ids=["suit", "honors"])
def test_four_copies_limit_only_matters_with_a_four(tables, n_ranks, need_field, fit_field):
    """Exhaustive: the wilds needed with the four-copies limit on the target
    (from the fit table) equal the need table (no limit) on every group
    without a count of 4. shanten() relies on it to skip the exact -1 check."""
    need = getattr(tables, need_field).astype(np.int64)
    fit = getattr(tables, fit_field).astype(np.int64)
    d = all_digits(n_ranks)
    n = d.sum(axis=1)
    no_four = ~(d == 4).any(axis=1)
    for p in (0, 1):
        need4 = np.full(n.shape, 10 ** 6)
        for m in range(5):
            v = 3 * m + 2 * p - n
            ok = (fit[:, 2 * m + p] == n) & (v >= 0) & (v < need4)
            need4 = np.where(ok, v, need4)
        in_hand = (n + need[:, p]) // 3 <= 4       # at most 4 melds in a hand
        assert (need4[in_hand] >= need[in_hand, p]).all()
        sel = in_hand & no_four
        assert (need4[sel] == need[sel, p]).all()
        # and the limit does matter somewhere (the check is not vacuous)
        assert (need4[in_hand & ~no_four] != need[in_hand & ~no_four, p]).any()


# ---------------------------------------------------------------- fit tables

@pytest.mark.parametrize("n_ranks,field", [(9, "suit_shanten"), (7, "honor_shanten")],
                         ids=["suit", "honors"])
def test_fit_vs_naive(tables, n_ranks, field):
    fit = getattr(tables, field)
    for idx in sample_indices(n_ranks, 60, seed=100 + n_ranks):
        c = as_counts(idx, n_ranks)
        want = [naive_fit(c, m, p) for m in range(5) for p in range(2)]
        assert fit[idx].tolist() == want, digits_of(idx, n_ranks)


def test_fit_monotone_and_bounded(tables):
    for field, n_ranks in (("suit_shanten", 9), ("honor_shanten", 7)):
        fit = getattr(tables, field).astype(np.int64)
        n = all_digits(n_ranks).sum(axis=1)
        for m in range(5):
            for p in range(2):
                col = fit[:, 2 * m + p]
                assert (col <= np.minimum(n, 3 * m + 2 * p)).all()
                if m < 4:
                    assert (fit[:, 2 * (m + 1) + p] >= col).all()
            assert (fit[:, 2 * m + 1] >= fit[:, 2 * m]).all()


def test_fit_classes_reproduce_fit(tables):
    sf, hf, scls, hcls, ss, sh = tables[2:]
    e_s, e_h = int(scls[0]), int(hcls[0])       # the empty group fits nothing
    assert (ss[scls, e_s] == sf).all()
    assert (sh[scls, e_h] == sf).all()
    assert (sh[e_s, hcls] == hf).all()
    # one class per distinct row: the class rows are pairwise different
    assert len(np.unique(ss[:, e_s], axis=0)) == ss.shape[0]
    assert len(np.unique(sh[e_s, :], axis=0)) == sh.shape[1]


def test_fit_combos_vs_brute_force(tables):
    sf, hf, scls, hcls, ss, sh = tables[2:]
    # one representative row per class
    rows_s = np.zeros((ss.shape[0], 10), dtype=np.int64)
    rows_s[scls] = sf
    rows_h = np.zeros((sh.shape[1], 10), dtype=np.int64)
    rows_h[hcls] = hf
    for combo, ra, rb in ((ss, rows_s, rows_s), (sh, rows_s, rows_h)):
        for M in range(5):
            for P in range(2):
                best = np.zeros(combo.shape[:2], dtype=np.int64)
                for m in range(M + 1):
                    for p in range(P + 1):
                        v = ra[:, None, 2 * m + p] + rb[None, :, 2 * (M - m) + P - p]
                        best = np.maximum(best, v)
                assert (combo[:, :, 2 * M + P] == best).all(), (M, P)


# ---------------------------------------------------------------- cache

def test_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("NBSIM_CACHE_DIR", str(tmp_path))
    NT.clear_memo()
    t1 = NT.load_tables()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == sorted(f"{n}_v{NT.TABLES_VERSION}.npy" for n in NT.NAMES)
    assert NT.load_tables() is t1                          # memoised
    mtimes = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    NT.clear_memo()
    t2 = NT.load_tables()                                  # from disk
    assert t2 is not t1
    for a, b in zip(t1, t2, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == mtimes
    NT.clear_memo()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "zeros", "wrong_dtype", "delete"])
def test_corrupt_cache_is_rebuilt(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("NBSIM_CACHE_DIR", str(tmp_path))
    NT.clear_memo()
    good = NT.load_tables()
    name = "suit_shanten" if damage != "delete" else "fit_combo_ss"
    path = NT.table_path(name, tmp_path)
    if damage == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a numpy file at all")
    elif damage == "zeros":                                # right header, wrong content
        np.save(path, np.zeros(NT.SHAPES[name], dtype=np.uint8))
    elif damage == "wrong_dtype":
        np.save(path, getattr(good, name).astype(np.int16))
    else:
        path.unlink()
    NT.clear_memo()
    again = NT.load_tables()
    for a, b in zip(good, again, strict=True):
        assert np.array_equal(a, b)
    reread = np.load(path)
    assert reread.dtype == np.uint8 and np.array_equal(reread, getattr(good, name))
    assert not list(tmp_path.glob("*.tmp"))                 # no temp files left behind
    NT.clear_memo()


@pytest.mark.parametrize("damage", ["other_class", "class_out_of_range", "honor_class",
                                    "fit_above_cap"])
def test_inconsistent_class_tables_are_rebuilt(tmp_path, monkeypatch, damage):
    """Derived tables from another build (shapes fine, content not matching
    the fit tables: one entry anywhere) and a fit entry above what its
    target can hold are detected by the jitted checks
    (``kernels.tables.rows_match_classes``, ``columns_at_most``)."""
    monkeypatch.setenv("NBSIM_CACHE_DIR", str(tmp_path))
    NT.clear_memo()
    good = NT.load_tables()
    n_sc = good.fit_combo_ss.shape[0]
    name = {"honor_class": "honor_fit_class", "fit_above_cap": "suit_shanten"}.get(
        damage, "suit_fit_class")
    bad = getattr(good, name).copy()
    if damage == "other_class":
        bad[777777] = (bad[777777] + 1) % n_sc
    elif damage == "class_out_of_range":
        bad[-1] = n_sc
    elif damage == "honor_class":
        bad[4321] = (bad[4321] + 1) % good.fit_combo_sh.shape[1]
    else:
        bad[123456, 3] = 6                   # 1 meld + 1 pair holds at most 5 tiles
    np.save(NT.table_path(name, tmp_path), bad)
    NT.clear_memo()
    again = NT.load_tables()
    assert np.array_equal(getattr(again, name), getattr(good, name))
    NT.clear_memo()


def test_build_tables_matches_cache(tables):
    fresh = NT.build_tables()
    for name, a, b in zip(NT.NAMES, tables, fresh, strict=True):
        assert np.array_equal(a, b), name


def test_builders_small_cases():
    need = KT.build_need(9, True)
    # 13m: one wild closes the chow; with a pair it needs 1 + 2 (or 11 3 -> ...)
    idx = 1 + 5 ** 2
    assert need[idx].tolist() == [1, 3]
    # 1111m: 111 + 1WW = 2; pair: 111 + 1W = 1
    assert need[4].tolist() == [2, 1]
    honor = KT.build_need(7, False)
    assert honor[1 + 5].tolist() == [4, 3]                 # 1z2z: 1zWW + 2zWW; 1zW + 2zWW
