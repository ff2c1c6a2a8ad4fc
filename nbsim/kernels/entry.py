"""A compiled kernel called from other kernels by its address, not linked
into them (Numba).

When a compiled function calls another, numba links the callee's code into
the caller's module and optimizes and emits the whole again, in every
library above it (docs/layout.md, "Measurements behind the kernels'
form"). A ``KernelEntry`` is the other way: Python compiles the callee once,
for one signature, and passes its native entry point into the kernels as
data, an int64 pair (address, tag) in an array; ``call`` calls it through
that address with numba's own calling convention, so an exception raised
inside the callee reaches the caller as from a direct call. The caller's
compiled code holds no address, so it caches like any other kernel, and
the callee's code is compiled (or loaded from the cache) once per process.

The pair carries no numba type of its own, so an entry can sit in a record
that its own signature contains: the seats' policy record holds the
engine's entry, and the engine's signature holds the record. What stands
for the type is the tag, a 62-bit hash of the signature's text
(``signature_tag``): ``call`` works out the signature from the argument
types and the stated result type when numba types the call, and compares
the tags when it runs; a null entry (0, 0) or an entry compiled for other
types raises RuntimeError instead of calling.

Addresses mean nothing in another process: ``entry_at`` finds the
``KernelEntry`` behind an address of this process, and a pickled
``KernelEntry`` carries the function's name and argument types, so a
record of pairs pickles by its entries (``policies.catalog.Policies``).
"""
import hashlib
import importlib

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = ["KernelEntry", "call", "entry_at", "signature_tag", "NULL"]

# the pair of no entry: calling it raises
NULL = (0, 0)

# every entry made in this process, by address (``entry_at``)
_BY_ADDRESS: dict = {}


def signature_tag(sig) -> int:
    """The tag of a numba Signature ``sig``: a positive 62-bit int, the
    first bytes of the BLAKE2b hash of its text, its result type taken
    without a literal value (a callee that always returns True returns a
    bool: the same machine value); the same in every process and numba
    run for the same types."""
    sig = types.unliteral(sig.return_type)(*sig.args)
    h = hashlib.blake2b(str(sig).encode(), digest_size=8).digest()
    return (int.from_bytes(h, "little") >> 2) or 1


class KernelEntry:
    """The native entry of ``dispatcher`` (a ``numba.njit`` function)
    compiled for the argument types ``argtypes`` (a tuple of numba types).

    Building one compiles the dispatcher for those types, or loads it from
    numba's cache. ``signature``: the compiled numba Signature; ``address``:
    int, the entry point in this process (valid while the dispatcher
    lives: the instance keeps it); ``tag``: ``signature_tag(signature)``;
    ``pair``: int64[2] (address, tag), what kernels are given. Raises
    numba's errors if the dispatcher does not compile for ``argtypes``."""

    def __init__(self, dispatcher, argtypes):
        argtypes = tuple(argtypes)
        dispatcher.compile(argtypes)
        cres = dispatcher.overloads[argtypes]
        self.dispatcher = dispatcher
        self.signature = cres.signature
        self.address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        self.tag = signature_tag(self.signature)
        _BY_ADDRESS[self.address] = self

    @property
    def pair(self) -> np.ndarray:
        """int64[2]: (address, tag), the entry as kernels take it."""
        return np.array([self.address, self.tag], np.int64)

    def __reduce__(self):
        # an address means nothing in another process: a copy compiles or
        # loads the same function there
        fn = self.dispatcher.py_func
        return (_rebuild, (fn.__module__, fn.__qualname__, tuple(self.signature.args)))

    def __repr__(self):
        return f"KernelEntry({self.dispatcher.py_func.__qualname__}{self.signature})"


def entry_at(address: int):
    """The ``KernelEntry`` made in this process at ``address``, or None
    (address 0, or not an entry's)."""
    return _BY_ADDRESS.get(int(address))


def _rebuild(module, qualname, argtypes):
    """A pickled ``KernelEntry`` in this process: the dispatcher found by
    its module and name, compiled (or loaded) for ``argtypes``."""
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return KernelEntry(obj, argtypes)


@intrinsic
def call(typingctx, address, tag, result, args):
    """``call(address, tag, R, (a, b, ...))``: the function whose entry is
    (``address``, ``tag``) (int64 each: a ``KernelEntry.pair``) called with
    the arguments of the tuple; ``R`` (a numba type, e.g. ``types.int64``
    held in a global) is its result type. The signature ``R(a, b, ...)``
    must be the entry's: when the tags differ (a null entry, or one
    compiled for other argument types) it raises RuntimeError instead of
    calling. An exception the callee raises propagates."""
    ret = getattr(result, "instance_type", None)
    if not isinstance(address, types.Integer) or not isinstance(tag, types.Integer):
        raise TypingError(f"entry.call: an int64 address and tag, got {address}, {tag}")
    if not isinstance(ret, types.Type):
        raise TypingError(f"entry.call: the result's numba type, got {result}")
    if not isinstance(args, types.BaseTuple):
        raise TypingError(f"entry.call: the arguments as a tuple, got {args}")
    argtys = tuple(args)
    sig = ret(*argtys)
    expected = signature_tag(sig)
    message = ("entry.call: the entry was not compiled for this call "
               "(a null entry, or other argument types): " + str(sig)[:400])

    def codegen(context, builder, signature, llargs):
        addr, got, _, tup = llargs
        i64 = ir.IntType(64)
        addr = context.cast(builder, addr, signature.args[0], types.int64)
        got = context.cast(builder, got, signature.args[1], types.int64)
        with cgutils.if_unlikely(builder, builder.icmp_unsigned("!=", got,
                                                                ir.Constant(i64, expected))):
            context.call_conv.return_user_exc(builder, RuntimeError, (message,))
        vals = [builder.extract_value(tup, i) for i in range(len(argtys))]
        fnty = context.call_conv.get_function_type(ret, argtys)
        fn = builder.inttoptr(addr, fnty.as_pointer())
        status, res = context.call_conv.call_function(builder, fn, ret, argtys, vals)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res
    return ret(address, tag, result, args), codegen
