"""Every use of numba's private API in the engine, in one place.

The engine's fast path relies on things numba does not document as public, so they
are kept here, and pyproject.toml pins numba to the minor version they were tested with:

* ``kernel_jit`` (and ``short_kernel_jit``, which keeps the GIL): ``njit`` with numba's
  runtime switched off (the private ``_nrt`` option). numba keeps every array it passes
  between compiled functions alive by reference counting, one call into its runtime per
  array argument per call; arrays rebuilt from an ``ArrayTable`` have no count, so those
  calls are pure overhead. Without the runtime no array may be created (``np.empty``
  fails to compile): such a kernel takes its scratch arrays from its caller, which keeps
  every array alive. ``runtime_jit`` states ``_nrt=True`` for functions that need the
  runtime and may be called from a ``kernel_jit`` kernel (which would otherwise pass its
  setting on).
* ``f1`` .. ``i2``: a table entry (address and shape, see
  ``engine.multibody.kernels.array_table``) as an array (``table_addresses``: the
  table's addresses from its shapes' last row), built inline by an intrinsic
  from ``numba.core.cgutils`` and ``numba.np.arrayobj.populate_array`` (what
  ``numba.carray`` does, without returning an array from a function, which a kernel
  without the runtime may not call). With NUMBA_DISABLE_JIT they are numpy views.
* ``may_overlap``: whether two arrays' memory spans overlap, from their data pointers
  (read by an intrinsic), shapes and strides.
* ``rows``: a C-contiguous array of two or more dimensions as the 2-D array of its rows
  over the same memory, built inline like the table entries (``reshape`` in a kernel
  runs numba's general no-copy search, which costs more than a small operator's work).
* ``compiled_entry_point`` and ``signature_entry_point``: a dispatcher's compiled entry
  point for given arguments or types (``overloads``, ``typeof_pyval``), which skips the
  per-call type resolution.
* ``address_call``: a kernel called from other kernels at its compiled address instead
  of being linked into them (numba links the LLVM library of every jitted callee into its
  caller and optimises the whole again, so a large kernel called from several separately
  compiled kernels is compiled once per caller). The caller's machine code loads the
  callee's address from a cell, an external symbol registered with LLVM
  (``llvmlite.binding.add_symbol``) that numba's on-disk cache keeps as a relocation by
  name: no process-specific address is cached. A cell still empty in this process is
  filled on the first call through it by a callback into Python that compiles (or loads
  from the cache) the callee for its one signature; the call itself is numba's native
  calling convention, so the callee's exceptions reach the caller as if it were linked.
* ``checked_float64_array``: the numba type of an entry point's float64 array argument
  whose unboxing first checks what numba's does not: numba's own unboxing of an array
  argument checks only that the object is an ndarray and that its items have the declared
  size (an int64 array passes as float64) and copies as many dimensions as the object has
  into a struct sized for the declared number (an array of more dimensions overruns it).
  This one refuses with TypeError, before anything is copied, any object that is not an
  ndarray of exactly the declared number of dimensions with numpy's own float64 dtype
  (``np.dtype(np.float64)``, the same descriptor object), by reading the ``nd`` and
  ``descr`` fields of numpy's array struct (offsets checked against live arrays when this
  module is imported). ``checked_output_array``, the type of a caller's output array,
  besides reads its ``flags`` (numba's unboxing ignores them: a read-only or strided
  array would be written through as if it were writable and contiguous) and refuses one
  that is not C-contiguous, aligned and writable.
* ``JIT_ENABLED``: whether numba compiles at all (``numba.config.DISABLE_JIT``).
"""

from __future__ import annotations

import _thread
import ctypes
import hashlib
import re
import signal
import threading
import time
import traceback

import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.core.boxing import unbox_array
from numba.core.datamodel.models import ArrayModel
from numba.core.errors import TypingError
from numba.core.typing import signature as numba_signature
from numba.extending import NativeValue, intrinsic, register_model, unbox
from numba.np.arrayobj import populate_array

#: False when numba runs the kernels as Python (NUMBA_DISABLE_JIT=1)
JIT_ENABLED = not config.DISABLE_JIT

#: njit for kernels that allocate nothing: no reference counting (see module docstring)
kernel_jit = njit(cache=True, nogil=True, _nrt=False)

#: njit for functions that need numba's runtime (they allocate) and may be called from a
#: kernel_jit kernel
runtime_jit = njit(cache=True, nogil=True, _nrt=True)

#: kernel_jit letting the compiler fuse a floating-point multiply and the add or subtract
#: that uses it into one FMA instruction (numba's fastmath flag "contract" alone: one
#: rounding instead of two, where the CPU has FMA; no other reassociation), for the
#: recursions limited by their arithmetic rather than by memory: the Velocity stage and
#: the articulated-body solve
fma_kernel_jit = njit(cache=True, nogil=True, _nrt=False, fastmath={"contract"})

#: kernel_jit keeping the GIL, for the O(n) matter operators' kernels that Python calls
#: (``checked_operators``): a whole call takes under a microsecond on a small tree and a
#: few on a large one, and releasing the GIL and taking it back costs about 25 ns a call.
#: Every other kernel releases it (the studio's GUI thread runs while a worker simulates).
short_kernel_jit = njit(cache=True, _nrt=False)

#: short_kernel_jit with fma_kernel_jit's "contract" flag, for an operator's recursion
#: limited by its arithmetic (J u)
short_fma_kernel_jit = njit(cache=True, _nrt=False, fastmath={"contract"})


def compiled_entry_point(dispatcher, args: tuple):
    """The compiled entry point of a numba ``dispatcher`` for exactly the types of
    ``args`` (a caller whose arguments never change type keeps it): calling it skips the
    dispatcher's per-call type resolution, which costs more than a small kernel. The
    dispatcher itself where there is no such entry point (NUMBA_DISABLE_JIT, or not
    compiled for these types)."""
    overloads = getattr(dispatcher, "overloads", None)
    typeof = getattr(dispatcher, "typeof_pyval", None)
    if overloads is None or typeof is None:
        return dispatcher
    cres = overloads.get(tuple(typeof(a) for a in args))
    return dispatcher if cres is None else cres.entry_point


def signature_entry_point(dispatcher, signature: tuple):
    """The compiled entry point of ``dispatcher`` for the numba types ``signature``
    (compiled, or loaded from numba's cache, now). When the JIT is off, the dispatcher
    itself, behind the same refusal (TypeError) of an argument declared
    ``checked_float64_array`` that does not match it."""
    if not JIT_ENABLED:
        checked = [
            (k, t.ndim, isinstance(t, CheckedOutputArray))
            for k, t in enumerate(signature)
            if isinstance(t, CheckedFloat64Array)
        ]
        if not checked:
            return dispatcher

        def checked_call(*args):
            for k, ndim, output in checked:
                arg = args[k]
                if output and not is_output_array(arg, ndim):
                    raise TypeError(f"expected a writable C-contiguous float64 ndarray of {ndim}d")
                if not isinstance(arg, np.ndarray) or arg.dtype is not _FLOAT64 or arg.ndim != ndim:
                    raise TypeError(f"expected an ndarray of {ndim} dimension(s) and dtype float64")
            return dispatcher(*args)

        return checked_call
    dispatcher.compile(signature)
    return dispatcher.overloads[signature].entry_point


class _AddressCell:
    """One kernel called by address: its dispatcher and numba argument types, and the
    cell (an int64 registered with LLVM as ``symbol``) that holds its compiled native
    entry's address once known in this process (0 before)."""

    def __init__(self, dispatcher, signature, symbol: str) -> None:
        self.dispatcher = dispatcher
        self.signature = signature
        self.symbol = symbol
        self.cell = ctypes.c_int64(0)

    def resolve(self) -> int:
        """The callee's native entry address, compiled or loaded from the cache now.
        Raises TypeError if the compiled callee returns another type than declared."""
        if self.cell.value == 0:
            argtypes = tuple(self.signature.args)
            self.dispatcher.compile(argtypes)
            cres = self.dispatcher.overloads[argtypes]
            if cres.signature.return_type != self.signature.return_type:
                raise TypeError(
                    f"{self.symbol}: the kernel returns {cres.signature.return_type}, "
                    f"its address_call declares {self.signature.return_type}"
                )
            self.cell.value = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        return self.cell.value


#: cell address -> its _AddressCell (the callback receives the address of the cell)
_ADDRESS_CELLS: dict[int, _AddressCell] = {}
_RESOLVER_SYMBOL = "mbstudio_resolve_kernel_address"
#: (dispatcher, signature) -> its address_call (one cell and symbol per kernel)
_ADDRESS_CALLS: dict = {}


def _resolve(cell_address: int) -> int:
    """Called (holding the GIL, which ctypes takes) by compiled code that finds a cell
    empty, through ``_resolve_address``: fills it. 0 if that failed (the caller then raises
    RuntimeError; the reason is printed to stderr)."""
    cell = _ADDRESS_CELLS[cell_address]
    interrupted = None
    while True:
        try:
            address = cell.resolve()
        except Exception:  # a compile failure cannot cross into compiled code
            traceback.print_exc()
            address = 0
        except BaseException as exc:  # noqa: BLE001  (delivered again below)
            # A signal's handler raised here (KeyboardInterrupt): no exception may cross
            # into compiled code, so the cell is filled all the same
            interrupted = getattr(exc, "signum", signal.SIGINT)
            continue
        break
    if interrupted is not None:
        deliver_after_return(interrupted)
    return address


_resolve_address = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(_resolve)


def in_compiled_callback(frame) -> bool:
    """True if ``frame`` (where a signal handler was called) is inside a callback from
    compiled code (``_resolve_address``, a kernel's callee being loaded). An exception
    raised there cannot cross the compiled caller: the callback would return garbage and
    the kernel crash. A handler called there should ``deliver_after_return`` its signal
    and return instead of raising."""
    code = _resolve.__code__
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def deliver_after_return(signum: int) -> None:
    """Deliver ``signum`` to the main thread again a few milliseconds from now, from another
    thread: its handler then runs once the compiled caller of ``_resolve_address`` has
    returned to Python (the callback itself returns within microseconds)."""

    def deliver() -> None:
        time.sleep(0.005)
        _thread.interrupt_main(signum)

    threading.Thread(target=deliver, name="mbstudio-signal-redelivery", daemon=True).start()


if JIT_ENABLED:
    llvm_binding.add_symbol(_RESOLVER_SYMBOL, ctypes.cast(_resolve_address, ctypes.c_void_p).value)


def address_call(dispatcher, signature):
    """A function for kernels that calls the kernel ``dispatcher`` (a kernel_jit or
    runtime_jit function) compiled for the numba ``signature`` (``restype(*argtypes)``,
    the one the dispatcher's Python callers compile too) at its address, so that it is
    compiled once and not linked into (and optimised again inside) each separately
    compiled caller; see the module docstring. Callers pass exactly these argument types
    (literal constants are cast; another array layout or writability is refused when the
    caller is compiled). The dispatcher itself when the JIT is off."""
    if not JIT_ENABLED:
        return dispatcher
    known = _ADDRESS_CALLS.get((dispatcher, signature))
    if known is not None:
        return known
    argtypes, restype = tuple(signature.args), signature.return_type
    py_func = dispatcher.py_func
    name = re.sub(r"\W", "_", f"{py_func.__module__}.{py_func.__qualname__}")
    # the same symbol in every process: a stable digest of the signature
    digest = hashlib.sha1(str(signature).encode()).hexdigest()[:12]
    symbol = f"mbstudio_kernel_address_{name}_{digest}"
    entry = _AddressCell(dispatcher, signature, symbol)
    address = ctypes.addressof(entry.cell)
    _ADDRESS_CELLS[address] = entry
    llvm_binding.add_symbol(symbol, address)

    def codegen(context, builder, sig, args):
        module = builder.module
        cell = module.globals.get(symbol)
        if cell is None:
            cell = ir.GlobalVariable(module, ir.IntType(64), symbol)
            cell.linkage = "external"
        resolver = cgutils.get_or_insert_function(
            module, ir.FunctionType(ir.IntType(64), [ir.IntType(64)]), _RESOLVER_SYMBOL
        )
        slot = cgutils.alloca_once_value(builder, builder.load(cell))
        with cgutils.if_unlikely(builder, cgutils.is_null(builder, builder.load(slot))):
            builder.store(builder.call(resolver, [builder.ptrtoint(cell, ir.IntType(64))]), slot)
            with cgutils.if_unlikely(builder, cgutils.is_null(builder, builder.load(slot))):
                context.call_conv.return_user_exc(
                    builder, RuntimeError, (f"{name} could not be compiled (see stderr)",)
                )
        fnty = context.call_conv.get_function_type(restype, argtypes)
        callee = builder.inttoptr(builder.load(slot), fnty.as_pointer())
        status, out = context.call_conv.call_function(builder, callee, restype, argtypes, args)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return out

    def typer(typingctx, *args):
        given = tuple(types.unliteral(t) for t in args)
        if given != argtypes:
            raise TypingError(f"{name} by address takes {argtypes}, not {given}")
        return numba_signature(restype, *argtypes), codegen

    # numba's intrinsic needs named parameters: one per argument
    params = ", ".join(f"a{k}" for k in range(len(argtypes)))
    scope: dict = {"typer": typer}
    source = f"def by_address(typingctx, {params}):\n    return typer(typingctx, {params})\n"
    exec(source, scope)
    by_address = scope["by_address"]
    by_address.__name__ = by_address.__qualname__ = f"{name}_by_address"
    _ADDRESS_CALLS[dispatcher, signature] = call = intrinsic(by_address)
    return call


def _array_intrinsic(element_type, ndim: int):
    """An intrinsic ``(address, shape) -> array``: the C-contiguous ``ndim``-dimensional
    array of ``element_type`` at the int64 ``address``, with the int64 tuple ``shape``,
    and no reference count."""
    array_type = types.Array(element_type, ndim, "C")
    pointer_type = types.CPointer(element_type)

    @intrinsic
    def from_address(typingctx, address, shape):
        def codegen(context, builder, signature, args):
            data = builder.inttoptr(args[0], context.get_value_type(pointer_type))
            dims = cgutils.unpack_tuple(builder, args[1], ndim)
            itemsize = context.get_abi_sizeof(context.get_data_type(element_type))
            strides = [context.get_constant(types.intp, itemsize)]
            for n in reversed(dims[1:]):
                strides.insert(0, builder.mul(strides[0], n))
            array = context.make_array(array_type)(context, builder)
            populate_array(
                array, data=data, shape=dims, strides=strides, itemsize=itemsize, meminfo=None
            )
            return array._getvalue()

        return array_type(address, shape), codegen

    return from_address


@intrinsic
def _rows(typingctx, x):
    if not isinstance(x, types.Array) or x.layout != "C" or x.ndim < 2:
        return None
    rows_type = types.Array(x.dtype, 2, "C")

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, args[0])
        dims = cgutils.unpack_tuple(builder, src.shape, x.ndim)
        width = dims[1]
        for n in dims[2:]:
            width = builder.mul(width, n)
        itemsize = context.get_abi_sizeof(context.get_data_type(x.dtype))
        item = context.get_constant(types.intp, itemsize)
        out = context.make_array(rows_type)(context, builder)
        populate_array(
            out,
            data=src.data,
            shape=[dims[0], width],
            strides=[builder.mul(width, item), item],
            itemsize=src.itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return rows_type(x), codegen


@njit(cache=True, nogil=True, inline="always")
def rows(x):
    """A C-contiguous array x of shape (n, ...) as its (n, m) rows (same memory)."""
    return _rows(x)


@intrinsic
def _data_address(typingctx, x):
    if not isinstance(x, types.Array):
        return None

    def codegen(context, builder, signature, args):
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.ptrtoint(arr.data, ir.IntType(64))

    return types.int64(x), codegen


@njit(cache=True, nogil=True, inline="always")
def _byte_bounds(x):
    """The first and one-past-last byte addresses the array x spans (both 0 if empty)."""
    lo = _data_address(x)
    hi = lo
    for k in range(x.ndim):
        n = x.shape[k]
        if n == 0:
            return 0, 0
        step = x.strides[k] * (n - 1)
        if step < 0:
            lo += step
        else:
            hi += step
    return lo, hi + x.itemsize


@njit(cache=True, nogil=True, inline="always")
def may_overlap(x, y) -> bool:
    """Whether the memory spans of the arrays x and y overlap (``np.may_share_memory``:
    their byte bounds alone; empty arrays overlap nothing)."""
    x_lo, x_hi = _byte_bounds(x)
    y_lo, y_hi = _byte_bounds(y)
    return x_lo < x_hi and y_lo < y_hi and x_lo < y_hi and y_lo < x_hi


_float64_1d = _array_intrinsic(types.float64, 1)
_float64_2d = _array_intrinsic(types.float64, 2)
_float64_3d = _array_intrinsic(types.float64, 3)
_int64_1d = _array_intrinsic(types.int64, 1)
_int64_2d = _array_intrinsic(types.int64, 2)


# numba fixes an array's number of dimensions at compile time, so one accessor per kind
# and shape; inlined into their callers (a kernel_jit kernel may not call a function
# returning an array it was not given). ``a`` the table's addresses, ``s`` its shapes,
# ``k`` the slot (engine.multibody.kernels.layout.SLOT).
@njit(cache=True, nogil=True, inline="always")
def f1(a, s, k):
    """Table entry k as a float64 vector."""
    return _float64_1d(a[k], (s[k, 0],))


@njit(cache=True, nogil=True, inline="always")
def f2(a, s, k):
    """Table entry k as a float64 matrix."""
    return _float64_2d(a[k], (s[k, 0], s[k, 1]))


@njit(cache=True, nogil=True, inline="always")
def f3(a, s, k):
    """Table entry k as a float64 array of three dimensions."""
    return _float64_3d(a[k], (s[k, 0], s[k, 1], s[k, 2]))


@njit(cache=True, nogil=True, inline="always")
def i1(a, s, k):
    """Table entry k as an int64 vector."""
    return _int64_1d(a[k], (s[k, 0],))


@njit(cache=True, nogil=True, inline="always")
def i2(a, s, k):
    """Table entry k as an int64 matrix."""
    return _int64_2d(a[k], (s[k, 0], s[k, 1]))


@njit(cache=True, nogil=True, inline="always")
def table_addresses(s):
    """The addresses array of the table whose shapes are ``s`` (the shapes' last row holds
    its address and length: ``engine.multibody.kernels.array_table``)."""
    n = s.shape[0] - 1
    return _int64_1d(s[n, 0], (s[n, 1],))


if not JIT_ENABLED:  # the kernels run as Python: the same entries as numpy views

    def _view(address, shape: tuple, ctype) -> np.ndarray:
        shape = tuple(int(n) for n in shape)
        count = int(np.prod(shape))
        if count == 0:  # (an empty placeholder entry)
            return np.zeros(shape, dtype=np.float64 if ctype is ctypes.c_double else np.int64)
        buffer = (ctype * count).from_address(int(address))
        return np.ctypeslib.as_array(buffer).reshape(shape)

    def f1(a, s, k):  # noqa: F811
        return _view(a[k], (s[k, 0],), ctypes.c_double)

    def f2(a, s, k):  # noqa: F811
        return _view(a[k], (s[k, 0], s[k, 1]), ctypes.c_double)

    def f3(a, s, k):  # noqa: F811
        return _view(a[k], (s[k, 0], s[k, 1], s[k, 2]), ctypes.c_double)

    def i1(a, s, k):  # noqa: F811
        return _view(a[k], (s[k, 0],), ctypes.c_int64)

    def i2(a, s, k):  # noqa: F811
        return _view(a[k], (s[k, 0], s[k, 1]), ctypes.c_int64)

    def table_addresses(s):  # noqa: F811
        n = s.shape[0] - 1
        return _view(s[n, 0], (s[n, 1],), ctypes.c_int64)

    def rows(x):  # noqa: F811
        return x.reshape(x.shape[0], -1)

    def may_overlap(x, y):  # noqa: F811
        return bool(np.may_share_memory(x, y))


# ----------------------------------------------------------------- checked array arguments
#: byte offsets in numpy's array struct (PyArrayObject_fields) of ``nd`` (int),
#: ``descr`` (PyArray_Descr *) and ``flags`` (int), and of ``ob_type`` in every Python object
_OB_TYPE_OFFSET, _ND_OFFSET, _DESCR_OFFSET, _FLAGS_OFFSET = 8, 24, 56, 64
#: the flags an output array must have: NPY_ARRAY_C_CONTIGUOUS, NPY_ARRAY_ALIGNED and
#: NPY_ARRAY_WRITEABLE
_OUTPUT_FLAGS = 0x0001 | 0x0100 | 0x0400
_FLOAT64 = np.dtype(np.float64)
#: cells holding the addresses of numpy's ndarray type and float64 descriptor in this
#: process, registered with LLVM by name (compiled code loads them; nothing
#: process-specific is cached)
_NDARRAY_TYPE_SYMBOL, _FLOAT64_DESCR_SYMBOL = "mbstudio_ndarray_type", "mbstudio_float64_descr"
_NDARRAY_TYPE_CELL = ctypes.c_int64(id(np.ndarray))
_FLOAT64_DESCR_CELL = ctypes.c_int64(id(_FLOAT64))


def _check_array_struct_offsets() -> None:
    """Raise ImportError unless ``nd``, ``descr`` and ``ob_type`` are read at the offsets
    above in this numpy (read from live arrays of 0 to 3 dimensions)."""

    def read(address: int, ctype):
        return ctype.from_address(address).value

    base = np.zeros((4, 4))
    samples = [
        np.zeros((1,) * ndim, dtype=np.int64 if ndim == 2 else np.float64) for ndim in range(4)
    ]
    samples += [base[:, ::2], base.T, np.zeros(0)[:0]]
    samples[-1].flags.writeable = False
    for arr in samples:
        if (
            read(id(arr) + _OB_TYPE_OFFSET, ctypes.c_int64) != id(np.ndarray)
            or read(id(arr) + _ND_OFFSET, ctypes.c_int32) != arr.ndim
            or read(id(arr) + _DESCR_OFFSET, ctypes.c_int64) != id(arr.dtype)
            or read(id(arr) + _FLAGS_OFFSET, ctypes.c_int32) != arr.flags.num
        ):
            raise ImportError(
                "numba_internals: numpy's array struct differs from the one "
                "checked_float64_array reads (see pyproject.toml's numpy pin)"
            )


class CheckedFloat64Array(types.Array):
    """The numba type of a float64 array argument of ``ndim`` dimensions whose unboxing
    refuses (TypeError) anything but an ndarray of exactly ``ndim`` dimensions and dtype
    ``np.dtype(np.float64)`` (see the module docstring). Inside a kernel it is an array
    like any other."""

    def __init__(self, dtype, ndim, layout, readonly=False, name=None, aligned=True):
        if name is None:
            name = f"checked_array({dtype}, {ndim}d, {layout})"
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name, aligned=aligned)


def checked_float64_array(ndim: int, layout: str = "A") -> CheckedFloat64Array:
    """The type of a float64 array argument of ``ndim`` dimensions checked when unboxed."""
    return CheckedFloat64Array(types.float64, ndim, layout)


class CheckedOutputArray(CheckedFloat64Array):
    """The numba type of a C-contiguous float64 output array of ``ndim`` dimensions whose
    unboxing refuses (TypeError) anything ``CheckedFloat64Array`` refuses and, besides,
    an array that is not C-contiguous, aligned and writable (numpy's ``flags``)."""

    def __init__(self, dtype, ndim, layout="C", readonly=False, name=None, aligned=True):
        if name is None:
            name = f"checked_output({dtype}, {ndim}d, {layout})"
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name, aligned=aligned)


def checked_output_array(ndim: int) -> CheckedOutputArray:
    """The type of a caller's C-contiguous, writable float64 output array of ``ndim``
    dimensions, checked when unboxed."""
    return CheckedOutputArray(types.float64, ndim, "C")


def is_output_array(arr, ndim: int) -> bool:
    """Whether ``arr`` passes ``checked_output_array(ndim)``'s unboxing check: an ndarray
    of ``ndim`` dimensions, dtype float64, C-contiguous, aligned and writable."""
    return (
        isinstance(arr, np.ndarray)
        and arr.dtype is _FLOAT64
        and arr.ndim == ndim
        and (arr.flags.num & _OUTPUT_FLAGS) == _OUTPUT_FLAGS
    )


if JIT_ENABLED:
    _check_array_struct_offsets()
    llvm_binding.add_symbol(_NDARRAY_TYPE_SYMBOL, ctypes.addressof(_NDARRAY_TYPE_CELL))
    llvm_binding.add_symbol(_FLOAT64_DESCR_SYMBOL, ctypes.addressof(_FLOAT64_DESCR_CELL))
    register_model(CheckedFloat64Array)(ArrayModel)
    register_model(CheckedOutputArray)(ArrayModel)

    @unbox(CheckedFloat64Array)
    def _unbox_checked_float64_array(typ, obj, c):
        """Python object -> native array for a CheckedFloat64Array argument: the object's
        type is ndarray or a subclass, then its ``nd`` is the declared number and its
        ``descr`` numpy's float64 descriptor (for a CheckedOutputArray also its ``flags``
        C-contiguous, aligned and writable), and only then numba's own unboxing; else
        TypeError (the entry point returns NULL with it set)."""
        builder, i64 = c.builder, ir.IntType(64)
        module = builder.module

        def cell(symbol: str):
            var = module.globals.get(symbol)
            if var is None:
                var = ir.GlobalVariable(module, i64, symbol)
                var.linkage = "external"
            return builder.load(var)

        def field(offset: int, kind):
            address = builder.add(builder.ptrtoint(obj, i64), ir.Constant(i64, offset))
            return builder.load(builder.inttoptr(address, kind.as_pointer()))

        ndarray_type = cell(_NDARRAY_TYPE_SYMBOL)
        ob_type = field(_OB_TYPE_OFFSET, i64)
        is_array = cgutils.alloca_once_value(
            builder, builder.icmp_unsigned("==", ob_type, ndarray_type)
        )
        with builder.if_then(builder.not_(builder.load(is_array)), likely=False):
            subtype = cgutils.get_or_insert_function(
                module,
                ir.FunctionType(ir.IntType(32), [c.pyapi.pyobj, c.pyapi.pyobj]),
                "PyType_IsSubtype",
            )
            answer = builder.call(
                subtype,
                [
                    builder.inttoptr(ob_type, c.pyapi.pyobj),
                    builder.inttoptr(ndarray_type, c.pyapi.pyobj),
                ],
            )
            builder.store(
                builder.icmp_signed("!=", answer, ir.Constant(ir.IntType(32), 0)), is_array
            )
        fits = cgutils.alloca_once_value(builder, cgutils.false_bit)
        with builder.if_then(builder.load(is_array), likely=True):
            nd = field(_ND_OFFSET, ir.IntType(32))
            descr = field(_DESCR_OFFSET, i64)
            same_nd = builder.icmp_signed("==", nd, ir.Constant(ir.IntType(32), typ.ndim))
            same_descr = builder.icmp_unsigned("==", descr, cell(_FLOAT64_DESCR_SYMBOL))
            fit = builder.and_(same_nd, same_descr)
            if isinstance(typ, CheckedOutputArray):
                mask = ir.Constant(ir.IntType(32), _OUTPUT_FLAGS)
                flags = builder.and_(field(_FLAGS_OFFSET, ir.IntType(32)), mask)
                fit = builder.and_(fit, builder.icmp_unsigned("==", flags, mask))
            builder.store(fit, fits)
        native = cgutils.alloca_once(builder, c.context.get_value_type(typ))
        builder.store(ir.Constant(native.type.pointee, None), native)
        failed = cgutils.alloca_once_value(builder, cgutils.true_bit)
        with builder.if_else(builder.load(fits), likely=True) as (then, otherwise):
            with then:
                value = unbox_array(typ, obj, c)
                builder.store(value.value, native)
                builder.store(value.is_error, failed)
            with otherwise:
                c.pyapi.err_set_string(
                    "PyExc_TypeError",
                    f"expected an ndarray of {typ.ndim} dimension(s) and dtype float64"
                    + (
                        ", C-contiguous and writable" if isinstance(typ, CheckedOutputArray) else ""
                    ),
                )
        return NativeValue(builder.load(native), is_error=builder.load(failed))
