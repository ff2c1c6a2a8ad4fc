"""``nbsim.kernels.inliner``: numba's inliner builds the same IR, copying
each callee's scope once and running each callee's front end once."""
import contextlib
import copy
import io
import re

import numpy as np
from numba.core import compiler, inline_closurecall, ir
from numba.core.registry import cpu_target

from nbsim.kernels import inliner
from nbsim.kernels.jit import njit


@njit(inline="always")
def _inner(a, b):
    t = a * 3
    if t > b:
        t -= b
    for i in range(b):
        t += i
    return t


@njit(inline="always")
def _middle(a, b):
    return _inner(a, b) + _inner(b, a)


@njit
def _outer(a, b):
    s = 0
    for i in range(a):
        s += _middle(i, b)
    return s + _middle(b, a)


def _py_outer(a, b):
    """``_outer`` in plain Python (the helpers' Python functions)."""
    inner = _inner.py_func
    s = 0
    for i in range(a):
        s += inner(i, b) + inner(b, i)
    return s + inner(b, a) + inner(a, b)


def _worker():
    flags = compiler.Flags()
    tyctx, tgctx = cpu_target.typing_context, cpu_target.target_context
    pipeline = compiler.Compiler(tyctx, tgctx, None, None, None, flags, None)
    return inline_closurecall.InlineWorker(tyctx, tgctx, {}, pipeline, flags, None)


def _canonical(func_ir) -> str:
    """The IR's dump with what numba numbers anew on every run made the
    same: the unique ids in inlined variables' names, and the block labels
    (renumbered in order)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        func_ir.dump()
    text = re.sub(r" +", " ", re.sub(r"_v\d+_", "_v_", out.getvalue()))
    labels = {n: str(i) for i, n in enumerate(re.findall(r"^label (\d+):", text, re.M))}
    text = re.sub(r"^label (\d+):", lambda m: f"label {labels[m.group(1)]}:", text, flags=re.M)
    text = re.sub(r"(branch [^,]+, )(\d+), (\d+)",
                  lambda m: f"{m.group(1)}{labels[m.group(2)]}, {labels[m.group(3)]}", text)
    return re.sub(r"jump (\d+)", lambda m: f"jump {labels[m.group(1)]}", text)


def test_the_patch_is_in_place_once():
    assert inliner.speed_up() is True
    assert inliner.speed_up() is True
    patched = inline_closurecall.InlineWorker.run_untyped_passes
    assert patched.nbsim and patched.numba is not patched


def test_a_kernel_with_inlined_calls_computes_as_python():
    for a, b in ((0, 0), (3, 5), (7, 2), (10, 10)):
        assert _outer(np.int64(a), np.int64(b)) == _py_outer(a, b)


def test_each_call_site_gets_numba_s_ir_in_a_copy_of_its_own():
    worker = _worker()
    fn = _middle.py_func
    numba_ir = inline_closurecall.InlineWorker.run_untyped_passes.numba(worker, fn)
    first = worker.run_untyped_passes(fn)
    second = worker.run_untyped_passes(fn)
    numba_again = inline_closurecall.InlineWorker.run_untyped_passes.numba(worker, fn)
    assert _canonical(numba_ir) == _canonical(numba_again)
    assert _canonical(first) == _canonical(numba_ir) == _canonical(second)
    assert first.blocks is not second.blocks
    assert all(first.blocks[k] is not second.blocks[k] for k in first.blocks)
    # a fresh identity per call site: the inlined variables get numba's names
    assert first.func_id.unique_name != second.func_id.unique_name
    assert first.func_id.func is fn
    # changing one copy leaves the next one as numba built it
    next(iter(first.blocks.values())).body.clear()
    assert _canonical(worker.run_untyped_passes(fn)) == _canonical(numba_ir)


def test_the_blocks_of_one_scope_are_copied_with_one_scope():
    func_ir = compiler.run_frontend(_py_outer)
    assert len(func_ir.blocks) > 3
    by_block = {k: copy.deepcopy(b) for k, b in func_ir.blocks.items()}
    once = inliner._ScopeOnce()
    shared = {k: once.deepcopy(b) for k, b in func_ir.blocks.items()}
    assert shared == by_block                       # the same IR, block by block
    assert len({id(b.scope) for b in shared.values()}) == 1
    assert len({id(b.scope) for b in by_block.values()}) == len(by_block)
    assert all(b.scope is not func_ir.blocks[k].scope for k, b in shared.items())
    # anything but a block is copied as copy.deepcopy copies it
    loc = ir.Loc("f.py", 1)
    assert once.deepcopy([loc]) == [loc]
