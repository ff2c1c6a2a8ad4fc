"""A record passed by its address (Numba): one pointer where numba would
pass every field.

Numba passes a tuple or named tuple to a function it does not inline field
by field, and every array as seven machine words: the policy scratch
(``policies.view.Scratch``, which holds a search policy's working memory)
is 542 arguments, a ``View`` 216. A call through an address
(``nbsim.kernels.entry``) can be neither inlined nor pruned, so every
decision the engine asked paid for them all (docs/layout.md, "Measurements
behind the kernels' form"). A ``Ref`` is the address of such a record held
in memory: the engine hands the policies' decisions their View and scratch
as Refs, and a decision loads only the fields it reads (``deref``).

``ref_of(x)``: a Ref to a copy of ``x`` in the calling function's frame
(valid until that function returns; for an argument of a call made there).
``stash(buf, x)`` copies ``x`` into ``buf`` (a contiguous int64 array long
enough for ``x``: ``STASH_WORDS`` words hold the policy scratch), and
``stashed(buf, x)`` is a Ref to that copy without copying again: the engine
stashes a game's policy scratch once per deal (``engine.loop.play_from``)
and every decision of the deal gets a Ref to it. A stashed copy holds the
record's arrays as they were stashed (their data pointers, not their
values): it stays right while the record's arrays live and are not
replaced, which holds for a ``Game``, whose fields never change.
``deref(r)``: the record ``r`` points to. ``r.name`` reads one field of
the named tuple ``r`` points to (one load of that field, as ``x.name``
reads it from the record ``x``), so a function written for a record runs
unchanged on a Ref to it: the engine passes its ``Game`` as a Ref
(``engine.loop.play_from``) instead of some 290 machine words a call.

A Ref is a kernel-only value: it cannot be passed from or returned to
Python.
"""
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.core.imputils import impl_ret_borrowed, lower_getattr_generic
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.extending import intrinsic, models, register_model

__all__ = ["RefType", "ref_of", "as_ref", "stash", "stashed", "deref", "STASH_WORDS"]

# int64 words of a stash buffer: room for a record of up to 8 KiB (the
# policy scratch takes about 4.3 KiB)
STASH_WORDS = 1024


class RefType(types.Type):
    """The numba type of a Ref to a value of numba type ``dtype``."""

    def __init__(self, dtype):
        self.dtype = dtype
        super().__init__(name=f"Ref[{dtype}]")


register_model(RefType)(models.PointerModel)


def _check_buffer(buf, who):
    # contiguous: the record is written over the buffer's data as one block
    if not (isinstance(buf, types.Array) and buf.dtype == types.int64 and buf.ndim == 1
            and buf.layout == "C"):
        raise TypingError(f"ref.{who}: a contiguous 1-D int64 buffer, got {buf}")


def _buffer_pointer(context, builder, buf_t, buf, x_t):
    """The data pointer of the int64 array ``buf``, cast to a pointer to
    ``x_t``'s data."""
    arr = context.make_array(buf_t)(context, builder, buf)
    pointee = context.data_model_manager[x_t].get_data_type()
    return builder.bitcast(arr.data, pointee.as_pointer())


def _copy_to_frame(x):
    """The codegen of ``ref_of(x)``: ``x`` stored in the frame, its address."""
    def codegen(context, builder, sig, args):
        dm = context.data_model_manager[x]
        ptr = cgutils.alloca_once(builder, dm.get_data_type())
        builder.store(dm.as_data(builder, args[0]), ptr)
        return ptr
    return codegen


@intrinsic
def ref_of(typingctx, x):
    """A Ref to a copy of ``x`` in the calling function's frame."""
    return RefType(x)(x), _copy_to_frame(x)


@intrinsic
def as_ref(typingctx, x):
    """``x`` itself when it is a Ref, else ``ref_of(x)``: what a function
    written for a record passes on where a Ref is wanted, whether it was
    called with the record or with a Ref to it."""
    if isinstance(x, RefType):
        return x(x), lambda context, builder, sig, args: args[0]
    return RefType(x)(x), _copy_to_frame(x)


@intrinsic
def stash(typingctx, buf, x):
    """Copy ``x`` into ``buf`` (a contiguous 1-D int64 array long enough
    for ``x``: ``STASH_WORDS`` words hold the policy scratch); raises
    ValueError when ``buf`` is too short for ``x``."""
    _check_buffer(buf, "stash")

    def codegen(context, builder, sig, args):
        dm = context.data_model_manager[x]
        need = context.get_abi_sizeof(dm.get_data_type())
        arr = context.make_array(buf)(context, builder, args[0])
        have = builder.mul(arr.nitems, ir.Constant(arr.nitems.type, 8))
        with cgutils.if_unlikely(builder, builder.icmp_signed(
                "<", have, ir.Constant(have.type, need))):
            context.call_conv.return_user_exc(
                builder, ValueError, (f"ref.stash: the buffer is shorter than {need} bytes",))
        ptr = _buffer_pointer(context, builder, buf, args[0], x)
        builder.store(dm.as_data(builder, args[1]), ptr)
        return context.get_dummy_value()
    return types.none(buf, x), codegen


@intrinsic
def stashed(typingctx, buf, x):
    """The Ref to the copy of a record of ``x``'s type that ``stash`` put in
    ``buf`` (``x`` only gives the type; nothing is copied)."""
    _check_buffer(buf, "stashed")

    def codegen(context, builder, sig, args):
        return _buffer_pointer(context, builder, buf, args[0], x)
    return RefType(x)(buf, x), codegen


def _load(builder, ptr):
    """Load ``*ptr`` field by field, so that the optimizer drops the loads
    of the fields nobody reads."""
    ty = ptr.type.pointee
    if isinstance(ty, (ir.LiteralStructType, ir.IdentifiedStructType)):
        n = len(ty.elements)
    elif isinstance(ty, ir.ArrayType):
        n = ty.count
    else:
        return builder.load(ptr)
    val = ir.Constant(ty, ir.Undefined)
    for i in range(n):
        val = builder.insert_value(val, _load(builder, cgutils.gep_inbounds(builder, ptr, 0, i)),
                                   i)
    return val


@intrinsic
def deref(typingctx, r):
    """The value the Ref ``r`` points to (borrowed: the caller keeps it
    alive)."""
    if not isinstance(r, RefType):
        raise TypingError(f"ref.deref: a Ref, got {r}")

    def codegen(context, builder, sig, args):
        dm = context.data_model_manager[r.dtype]
        val = dm.from_data(builder, _load(builder, args[0]))
        return impl_ret_borrowed(context, builder, r.dtype, val)
    return r.dtype(r), codegen


@infer_getattr
class _RefFields(AttributeTemplate):
    """``r.name`` for a Ref ``r`` to a named tuple: the type of that field."""
    key = RefType

    def generic_resolve(self, r, attr):
        rec = r.dtype
        if isinstance(rec, types.BaseNamedTuple) and attr in rec.fields:
            return rec.types[rec.fields.index(attr)]
        return None


@lower_getattr_generic(RefType)
def _ref_field(context, builder, typ, value, attr):
    """Load one field of the named tuple a Ref points to (borrowed, as
    ``deref``)."""
    rec = typ.dtype
    i = rec.fields.index(attr)
    ftype = rec.types[i]
    val = context.data_model_manager[ftype].from_data(
        builder, _load(builder, cgutils.gep_inbounds(builder, value, 0, i)))
    return impl_ret_borrowed(context, builder, ftype, val)
