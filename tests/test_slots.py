"""``nbsim.kernels.slots``: numba's lowering gives every variable of the
engine's and the policies' kernels a stack slot, and such a kernel computes
what Python computes."""
from collections import namedtuple
from types import SimpleNamespace

import numba
import numpy as np
from numba.core import lowering

import nbsim.kernels.jit  # noqa: F401  (applies the patch)
from nbsim.kernels import slots


def _answer(module, debuginfo=False):
    """What the patched property answers for a function of ``module``."""
    flags = SimpleNamespace(debuginfo=debuginfo, dbg_directives_only=False)
    fake = SimpleNamespace(fndesc=SimpleNamespace(modname=module), flags=flags)
    return lowering.Lower._disable_sroa_like_opt.fget(fake)


def test_the_lowering_is_patched_once():
    assert slots.in_slots() is True
    prop = lowering.Lower._disable_sroa_like_opt
    assert slots.in_slots() is True
    assert lowering.Lower._disable_sroa_like_opt is prop      # not wrapped twice
    assert prop.fget._nbsim_slots is True


def test_the_engine_and_policies_get_slots_and_other_code_keeps_numbas_answer():
    assert _answer("nbsim.kernels.engine.loop") is True
    assert _answer("nbsim.kernels.policies.defend") is True
    # the scorer's own functions were slower, the evaluator compiled several
    # times slower with slots: numba's answer
    assert _answer("nbsim.kernels.scoring.score") is False
    assert _answer("nbsim.kernels.search.playout") is False
    assert _answer("nbsim.kernels.hand") is False
    assert _answer("numpy.something") is False
    assert _answer("tests.test_slots") is False
    assert _answer("other", debuginfo=True) is True             # numba's own rule


Rec = namedtuple("Rec", ("a", "b", "c"))


def _kernel_in(module):
    """A kernel over a record of arrays, defined in ``module`` (so numba's
    lowering sees that module name)."""
    src = (
        "def pick(r, n):\n"
        "    s = 0.0\n"
        "    for i in range(n):\n"
        "        x = r.a[i % r.a.shape[0]]\n"
        "        y = r.b[(i * 7) % r.b.shape[0]]\n"
        "        r.c[i % r.c.shape[0]] += x * y\n"
        "        s += x - y\n"
        "    return s\n")
    env = {"__name__": module}
    exec(compile(src, f"<{module}>", "exec"), env)
    return env["pick"]


def test_a_kernel_with_slots_computes_what_python_and_plain_numba_compute(monkeypatch):
    """The lowering gives the engine-named kernel slots and the other one
    numba's answer (seen while they compile), and both compute what Python
    computes."""
    patched = lowering.Lower._disable_sroa_like_opt
    seen = []

    def spy(self):
        answer = patched.fget(self)
        seen.append((self.fndesc.modname, answer))
        return answer
    monkeypatch.setattr(lowering.Lower, "_disable_sroa_like_opt", property(spy))
    rng = np.random.default_rng(3)
    r = Rec(rng.random(5), rng.random(11), np.zeros(4))
    r_py = Rec(r.a.copy(), r.b.copy(), r.c.copy())
    r_plain = Rec(r.a.copy(), r.b.copy(), r.c.copy())
    in_slots = numba.njit(_kernel_in("nbsim.kernels.engine.fake"))
    plain = numba.njit(_kernel_in("elsewhere.fake"))
    py = _kernel_in("nbsim.kernels.engine.fake")
    got = in_slots(r, 100)
    assert got == py(r_py, 100) == plain(r_plain, 100)
    assert np.array_equal(r.c, r_py.c) and np.array_equal(r.c, r_plain.c)
    answers = dict(seen)
    assert answers["nbsim.kernels.engine.fake"] is True
    assert answers["elsewhere.fake"] is False
