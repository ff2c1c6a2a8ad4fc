"""nbsim.kernels.entry: a compiled kernel called by its address."""
import numba
import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from nbsim.kernels.entry import KernelEntry, call, is_null, no_entry


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
        t += call(e, (a, np.int64(j)))
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
    assert _caller(e, a, 4) == sum(_callee(a, j) for j in range(4)) == 60.0


def test_caller_does_not_link_the_callee():
    """numba links a directly called function's library into its caller's
    (and emits its code again there); a call through an entry does not."""
    a, e = _entry()
    _caller(e, a, 1)
    _direct(a, 1)
    callee = _callee.overloads[(numba.typeof(a), numba.int64)].library
    through_entry = _caller.overloads[(numba.typeof(e), numba.typeof(a), numba.int64)].library
    direct = _direct.overloads[(numba.typeof(a), numba.int64)].library
    assert callee in direct._linking_libraries
    assert callee not in through_entry._linking_libraries


def test_an_exception_in_the_callee_reaches_the_caller():
    a, e = _entry()

    @njit
    def negative(e, a):
        return call(e, (a, np.int64(-1)))
    with pytest.raises(ValueError, match="negative k"):
        negative(e, a)


def test_other_argument_types_are_a_typing_error():
    a, e = _entry()

    @njit
    def wrong(e, a):
        return call(e, (a, 1.5))
    with pytest.raises(TypingError, match="do not match the entry's signature"):
        wrong(e, a)

    @njit
    def not_an_entry(a):
        return call(a, (a, np.int64(1)))
    with pytest.raises(TypingError, match="an Entry"):
        not_an_entry(a)


def test_null_entries():
    a, e = _entry()
    ty = numba.typeof(e)

    @njit
    def made_null():
        return is_null(no_entry(ty))

    @njit
    def null(e):
        return is_null(e)
    assert made_null()
    assert not null(e)
    assert null(KernelEntry.null(e.signature))
    assert numba.typeof(KernelEntry.null(e.signature)) == ty


def test_a_pickled_entry_finds_the_function_again():
    """A copy (as sent to another process) names the function and its
    argument types, and calls the same compiled code."""
    import pickle
    a, e = _entry()
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.dispatcher is _callee and e2.signature == e.signature
    assert e2.address == e.address and _caller(e2, a, 3) == _caller(e, a, 3)
    n = pickle.loads(pickle.dumps(KernelEntry.null(e.signature)))
    assert n.address == 0 and n.signature == e.signature


def test_a_search_record_survives_pickling(tables):
    """A SearchPolicies record pickled (a process pool's argument) carries
    the game engine's entry as a name, rebuilt on loading."""
    import pickle

    from nbsim.kernels.engine import loop as EL
    from nbsim.policy_specs import kernel_arrays, parse_policies
    from nbsim.rules.ruleset import load_rules
    rules = load_rules("ningbo-7baida").array
    record = kernel_arrays(parse_policies(policies="lookahead,defend,defend,defend"), rules,
                           tables)
    copy = pickle.loads(pickle.dumps(record))
    assert copy.playout.dispatcher is EL.play_from
    assert copy.playout.signature == record.playout.signature
    assert (copy.codes == record.codes).all()
