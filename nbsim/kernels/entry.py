"""A compiled kernel called from other kernels by its address, not linked
into them (Numba).

When a compiled function calls another, numba links the callee's code into
the caller's module and optimizes and emits the whole again, in every
library above it: the engine's machine code was emitted once more for each
of the search's entries that plays it out (docs/layout.md, "Measurements
behind the kernels' form"). A ``KernelEntry`` is the other way: Python
compiles the callee once, for one signature, and passes its native entry
point into the kernels as an argument (numba type ``Entry``); ``call``
calls it through that address with numba's own calling convention, so an
exception raised inside the callee reaches the caller as from a direct
call. The caller's compiled code holds no address, so it caches like any
other kernel, and the callee's code is compiled (or loaded from the cache)
once per process.

``Entry`` types carry the callee's signature: ``call`` checks the argument
types against it when numba types the call, and a mismatch is a numba
TypingError naming both. ``no_entry`` makes the null entry of a type (a
kernel that never calls it still has a value of the same type to pass), and
``is_null`` tells it apart. A pickled ``KernelEntry`` carries the
function's name and argument types, not its address: unpickled in another
process it compiles or loads the function there.
"""
import importlib

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import (
    NativeValue,
    intrinsic,
    models,
    register_model,
    typeof_impl,
    unbox,
)

__all__ = ["Entry", "KernelEntry", "call", "no_entry", "is_null"]


class Entry(types.Type):
    """The numba type of a compiled function's native entry point for one
    signature ``sig`` (a numba Signature: ``sig.return_type(*sig.args)``)."""

    def __init__(self, sig):
        self.sig = sig
        super().__init__(name=f"Entry[{sig}]")


@register_model(Entry)
class _EntryModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.IntType(8).as_pointer())


class KernelEntry:
    """The native entry of ``dispatcher`` (a ``numba.njit`` function)
    compiled for the argument types ``argtypes`` (a tuple of numba types),
    to pass into kernels (numba type ``Entry(signature)``).

    Building one compiles the dispatcher for those types, or loads it from
    numba's cache. ``signature``: the compiled numba Signature; ``address``:
    int, the entry point in this process (valid while the dispatcher
    lives: the instance keeps it). Raises numba's errors if the dispatcher
    does not compile for ``argtypes``."""

    def __init__(self, dispatcher, argtypes):
        argtypes = tuple(argtypes)
        dispatcher.compile(argtypes)
        cres = dispatcher.overloads[argtypes]
        self.dispatcher = dispatcher
        self.signature = cres.signature
        self.address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)

    @classmethod
    def null(cls, signature):
        """The null entry of the numba Signature ``signature`` (address 0):
        an argument for a kernel that must not call it (``is_null``)."""
        self = cls.__new__(cls)
        self.dispatcher = None
        self.signature = signature
        self.address = 0
        return self

    def __reduce__(self):
        # an address means nothing in another process: a copy compiles or
        # loads the same function there
        if self.dispatcher is None:
            return (KernelEntry.null, (self.signature,))
        fn = self.dispatcher.py_func
        return (_rebuild, (fn.__module__, fn.__qualname__, tuple(self.signature.args)))

    def __repr__(self):
        if self.dispatcher is None:
            return f"KernelEntry.null({self.signature})"
        return f"KernelEntry({self.dispatcher.py_func.__qualname__}{self.signature})"


def _rebuild(module, qualname, argtypes):
    """A pickled ``KernelEntry`` in this process: the dispatcher found by
    its module and name, compiled (or loaded) for ``argtypes``."""
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return KernelEntry(obj, argtypes)


@typeof_impl.register(KernelEntry)
def _typeof_kernel_entry(val, c):
    return Entry(val.signature)


@unbox(Entry)
def _unbox_entry(typ, obj, c):
    addr = c.pyapi.object_getattr_string(obj, "address")
    ptr = c.pyapi.long_as_voidptr(addr)
    c.pyapi.decref(addr)
    return NativeValue(ptr, is_error=c.pyapi.c_api_error())


@intrinsic
def call(typingctx, entry, args):
    """``call(entry, (a, b, ...))``: the function behind ``entry`` (an
    ``Entry``) called with the arguments of the tuple, which must have
    exactly the entry's argument types; returns its result. An exception
    the callee raises propagates. The entry must not be null."""
    if not isinstance(entry, Entry):
        raise TypingError(f"entry.call: an Entry, got {entry}")
    sig = entry.sig
    if not isinstance(args, types.BaseTuple) or tuple(args) != tuple(sig.args):
        raise TypingError(f"entry.call: the arguments {args} do not match the entry's "
                          f"signature {sig}")

    def codegen(context, builder, signature, llargs):
        ptr, tup = llargs
        vals = [builder.extract_value(tup, i) for i in range(len(sig.args))]
        fnty = context.call_conv.get_function_type(sig.return_type, sig.args)
        fn = builder.bitcast(ptr, fnty.as_pointer())
        status, res = context.call_conv.call_function(builder, fn, sig.return_type,
                                                      sig.args, vals)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res
    return sig.return_type(entry, args), codegen


@intrinsic
def no_entry(typingctx, entry_type):
    """``no_entry(T)``: the null entry of the ``Entry`` type ``T`` (a type
    captured from Python)."""
    ty = getattr(entry_type, "instance_type", None)
    if not isinstance(ty, Entry):
        raise TypingError(f"entry.no_entry: an Entry type, got {entry_type}")

    def codegen(context, builder, signature, llargs):
        return context.get_constant_null(types.voidptr)
    return ty(entry_type), codegen


@intrinsic
def is_null(typingctx, entry):
    """True when ``entry`` (an ``Entry``) is the null entry."""
    if not isinstance(entry, Entry):
        raise TypingError(f"entry.is_null: an Entry, got {entry}")

    def codegen(context, builder, signature, llargs):
        return cgutils.is_null(builder, llargs[0])
    return types.boolean(entry), codegen
