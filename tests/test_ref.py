"""nbsim.kernels.ref: a record passed to a kernel by its address."""
from collections import namedtuple

import numba
import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from nbsim.kernels.jit import nrt_free
from nbsim.kernels.ref import STASH_WORDS, RefType, as_ref, deref, ref_of, stash, stashed

Rec = namedtuple("Rec", ("counts", "n", "flags", "pair"))


@nrt_free
def _bump(r, k):
    # reads and writes through the Ref, as a policy decision does
    rec = deref(r)
    rec.counts[k] += rec.n
    return rec.counts[k] + (1 if rec.flags[k] else 0) + rec.pair[1][0]


@njit
def _through_frame(counts, n, flags, k):
    rec = Rec(counts, n, flags, (counts, counts))
    return _bump(ref_of(rec), k)


@njit
def _through_stash(counts, n, flags, buf, ks):
    rec = Rec(counts, n, flags, (counts, counts))
    stash(buf, rec)
    t = 0
    for k in ks:
        t += _bump(stashed(buf, rec), k)
    return t


def test_a_ref_reaches_the_record_and_its_arrays():
    counts = np.zeros(4, np.int64)
    flags = np.array([False, True, False, False])
    assert _through_frame(counts, 3, flags, 1) == 3 + 1 + 0
    assert counts.tolist() == [0, 3, 0, 0]


def test_a_stashed_record_serves_every_call():
    counts = np.array([1, 0, 0, 0], np.int64)
    flags = np.zeros(4, np.bool_)
    buf = np.zeros(STASH_WORDS, np.int64)
    ks = np.array([0, 2, 2], np.int64)
    # bump 0: counts[0] 1 -> 6, +counts[0] (6) read through pair -> 12;
    # bump 2 twice: counts[2] 5, 10 each + counts[0] 6
    assert _through_stash(counts, 5, flags, buf, ks) == 12 + (5 + 6) + (10 + 6)
    assert counts.tolist() == [6, 0, 10, 0]
    assert buf[:2].any()          # the record's words are in the buffer


@nrt_free
def _bump_fields(r, k):
    # the same, written for the record itself: a Ref's fields read as the record's
    r.counts[k] += r.n
    return r.counts[k] + (1 if r.flags[k] else 0) + r.pair[1][0]


@nrt_free
def _bump_as_ref(r, k):
    # a function called with a record or a Ref passes a Ref on (as_ref)
    return _bump(as_ref(r), k)


@njit
def _both_ways(counts, n, flags, k):
    # each function called with a Ref to the record, then with the record
    rec = Rec(counts, n, flags, (counts, counts))
    return (_bump_fields(ref_of(rec), k), _bump_fields(rec, k),
            _bump_as_ref(ref_of(rec), k), _bump_as_ref(rec, k))


def test_a_refs_fields_read_as_the_records_and_as_ref_passes_a_ref_on():
    counts = np.array([0, 1, 0, 0], np.int64)
    flags = np.array([False, True, False, False])
    # through the Ref: counts[1] 1 -> 3, + 1 (flag) + counts[0] (0); then
    # the record by value: counts[1] 3 -> 5, + 1 + 0; then as_ref twice
    assert _both_ways(counts, 2, flags, 1) == (4, 6, 8, 10)
    assert counts.tolist() == [0, 9, 0, 0]
    sig = _bump_fields.signatures
    assert len(sig) == 2 and isinstance(sig[0][0], RefType) and sig[0][0].dtype == sig[1][0]
    # both calls of _bump_as_ref reach one compiled _bump: as_ref gave it a Ref each time
    assert len(_bump_as_ref.signatures) == 2
    assert [type(s[0]) for s in _bump.signatures] == [RefType]


@njit
def _no_such_field(counts):
    r = ref_of(Rec(counts, 1, counts, (counts, counts)))
    return r.missing


@njit
def _short(counts):
    buf = np.zeros(3, np.int64)
    stash(buf, (counts, counts))


def test_a_short_stash_buffer_raises():
    with pytest.raises(ValueError, match="shorter than 112 bytes"):
        _short(np.zeros(2, np.int64))


@njit
def _deref_a_number(x):
    return deref(x)


@njit
def _stash_in_floats(x):
    stash(np.zeros(8, np.float64), x)


@njit
def _stash_in_a_strided_buffer(x):
    stash(np.zeros(16, np.int64)[::2], x)


def test_bad_arguments_are_typing_errors():
    with pytest.raises(TypingError, match="a Ref"):
        _deref_a_number(3)
    with pytest.raises(TypingError, match="contiguous 1-D int64 buffer"):
        _stash_in_floats(3)
    with pytest.raises(TypingError, match="contiguous 1-D int64 buffer"):
        _stash_in_a_strided_buffer(3)
    with pytest.raises(TypingError, match="missing"):
        _no_such_field(np.zeros(2, np.int64))


def test_a_ref_type_is_its_record_type():
    """Two Refs have one type exactly when their records do: what
    ``entry.signature_tag`` tells entries apart by."""
    a = np.zeros(2, np.int64)
    rec_t = numba.typeof(Rec(a, 1, np.zeros(2, np.bool_), (a, a)))
    assert RefType(rec_t) == RefType(numba.typeof(Rec(a, 2, np.ones(2, np.bool_), (a, a))))
    assert RefType(rec_t) != RefType(numba.typeof((a, a)))
    assert str(RefType(rec_t)) == f"Ref[{rec_t}]"
