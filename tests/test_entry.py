"""nbsim.kernels.entry: a compiled kernel called by its address."""
import numba
import numpy as np
import pytest
from numba import njit, types
from numba.core.errors import TypingError

from nbsim.kernels.entry import KernelEntry, call, entry_at, signature_tag

_F8 = types.float64


@njit
def _callee(a, k):
    if k < 0:
        raise ValueError("negative k")
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * k
    return s


@njit
def _caller(e, a, n):
    t = 0.0
    for j in range(n):
        t += call(e[0], e[1], _F8, (a, np.int64(j)))
    return t


@njit
def _direct(a, n):
    t = 0.0
    for j in range(n):
        t += _callee(a, np.int64(j))
    return t


def _entry():
    a = np.arange(5.0)
    return a, KernelEntry(_callee, (numba.typeof(a), numba.int64))


def test_call_gives_the_callee_result():
    a, e = _entry()
    assert e.address > 0 and e.signature.return_type == numba.float64
    assert e.pair.dtype == np.int64 and e.pair.tolist() == [e.address, e.tag]
    assert _caller(e.pair, a, 4) == sum(_callee(a, j) for j in range(4)) == 60.0


def test_caller_does_not_link_the_callee():
    """numba links a directly called function's library into its caller's
    (and emits its code again there); a call through an entry does not."""
    a, e = _entry()
    _caller(e.pair, a, 1)
    _direct(a, 1)
    callee = _callee.overloads[(numba.typeof(a), numba.int64)].library
    through_entry = _caller.overloads[(numba.typeof(e.pair), numba.typeof(a),
                                       numba.int64)].library
    direct = _direct.overloads[(numba.typeof(a), numba.int64)].library
    assert callee in direct._linking_libraries
    assert callee not in through_entry._linking_libraries


def test_an_exception_in_the_callee_reaches_the_caller():
    a, e = _entry()

    @njit
    def negative(e, a):
        return call(e[0], e[1], _F8, (a, np.int64(-1)))
    with pytest.raises(ValueError, match="negative k"):
        negative(e.pair, a)


def test_a_call_of_other_types_or_a_null_entry_raises_instead_of_calling():
    """The tag stands for the signature: an entry compiled for other
    argument types (or result type), or the null pair, is refused when the
    call runs."""
    a, e = _entry()

    @njit
    def as_int(e, a):
        return call(e[0], e[1], types.int64, (a, np.int64(1)))

    @njit
    def with_float(e, a):
        return call(e[0], e[1], _F8, (a, 1.5))
    for f in (as_int, with_float):
        with pytest.raises(RuntimeError, match="not compiled for this call"):
            f(e.pair, a)
    with pytest.raises(RuntimeError, match="not compiled for this call"):
        _caller(np.zeros(2, np.int64), a, 1)


def test_bad_arguments_are_a_typing_error():
    a, e = _entry()

    @njit
    def no_tuple(e, a):
        return call(e[0], e[1], _F8, a)

    @njit
    def no_result_type(e, a):
        return call(e[0], e[1], 1.0, (a, np.int64(1)))
    with pytest.raises(TypingError, match="as a tuple"):
        no_tuple(e.pair, a)
    with pytest.raises(TypingError, match="result's numba type"):
        no_result_type(e.pair, a)


def test_tags_name_signatures():
    a, e = _entry()
    assert e.tag == signature_tag(e.signature) > 0
    assert signature_tag(types.int64(types.int64)) != signature_tag(types.int64(types.int32))
    assert signature_tag(types.int64(types.int64)) == signature_tag(types.int64(types.int64))


def test_a_pickled_entry_finds_the_function_again():
    """A copy (as sent to another process) names the function and its
    argument types, and calls the same compiled code."""
    import pickle
    a, e = _entry()
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.dispatcher is _callee and e2.signature == e.signature
    assert e2.address == e.address and _caller(e2.pair, a, 3) == _caller(e.pair, a, 3)
    assert entry_at(e.address) is not None and entry_at(0) is None


def test_a_policy_record_survives_pickling(tables):
    """A ``Policies`` record pickled (a process pool's argument) carries its
    entries by name, rebuilt on loading, not as addresses."""
    import pickle

    from nbsim.kernels.engine import loop as EL
    from nbsim.policy_specs import kernel_arrays, parse_policies
    from nbsim.rules.ruleset import load_rules
    rules = load_rules("ningbo-7baida").array
    record = kernel_arrays(parse_policies(policies="lookahead,defend,defend,defend"), rules,
                           tables)
    blob = pickle.dumps(record)
    assert b"play_from" in blob and b"choose_discard" in blob and b"try_win" in blob
    copy = pickle.loads(blob)
    assert entry_at(copy.engine[0]).dispatcher is EL.play_from
    assert (copy.engine == record.engine).all() and (copy.decisions == record.decisions).all()
    assert (copy.scorer == record.scorer).all() and copy.scorer[0] != 0
    assert (copy.codes == record.codes).all() and (copy.params == record.params).all()
