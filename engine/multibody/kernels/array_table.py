"""Arrays handed to a kernel by address: ``ArrayTable`` and the helpers that rebuild them.

Passing an array from Python to a numba kernel costs about 50 ns to unbox, and every
numba-to-numba call passing a reference-counted array costs an atomic increment and
decrement (about 20 ns per array per call). A kernel with tens of array arguments called
from Python therefore spends most of a small system's time on its arguments. An
``ArrayTable`` holds a fixed list of arrays with their addresses (int64 (n,)) and shapes
(int64 (n, 3)); a kernel given those two arrays rebuilds each array as numba.carray would
(``f1`` .. ``i2`` below: float64 or int64, one to three dimensions), without a reference
count. The table keeps its arrays alive; the caller keeps them
unmoved (never resized or replaced) while the table is in use.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

_DTYPES = {"f": np.dtype(np.float64), "i": np.dtype(np.int64)}


class ArrayTable:
    """The addresses and shapes of ``arrays``, which must match ``spec``: a sequence of
    (name, kind, ndim) with kind "f" (float64) or "i" (int64), each array C-contiguous.
    Keeps the arrays alive (``arrays``)."""

    __slots__ = ("arrays", "addresses", "shapes")

    def __init__(self, spec: tuple, arrays: tuple) -> None:
        if len(arrays) != len(spec):
            raise ValueError(f"ArrayTable: expected {len(spec)} arrays, got {len(arrays)}")
        self.arrays = arrays
        self.addresses = np.zeros(len(arrays), dtype=np.int64)
        self.shapes = np.zeros((len(arrays), 3), dtype=np.int64)
        for k, ((name, kind, ndim), a) in enumerate(zip(spec, arrays, strict=True)):
            if (
                type(a) is not np.ndarray
                or a.dtype != _DTYPES[kind]
                or a.ndim != ndim
                or not a.flags.c_contiguous
            ):
                raise ValueError(
                    f"ArrayTable: {name} must be a C-contiguous {_DTYPES[kind]} array of "
                    f"{ndim} dimensions"
                )
            self.addresses[k] = a.ctypes.data
            self.shapes[k, :ndim] = a.shape


def _array_intrinsic(element_type, ndim: int):
    """An intrinsic ``(address, shape) -> array``: the C-contiguous ``ndim``-dimensional
    array of ``element_type`` at the int64 ``address``, with the int64 tuple ``shape``, and
    no reference count (what numba.carray makes, built inline: carray's implementation
    returns an array from a function, which a kernel compiled without numba's runtime may
    not call)."""
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


_float64_1d = _array_intrinsic(types.float64, 1)
_float64_2d = _array_intrinsic(types.float64, 2)
_float64_3d = _array_intrinsic(types.float64, 3)
_int64_1d = _array_intrinsic(types.int64, 1)
_int64_2d = _array_intrinsic(types.int64, 2)


# numba fixes an array's number of dimensions at compile time, so one helper per shape.
# Inlined into their callers by numba (a kernel compiled without numba's runtime,
# engine.common.kernel_jit, may not call a function returning an array it was not given).
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


if config.DISABLE_JIT:  # the kernels run as Python: the same entries as numpy views

    def _view(address, shape: tuple, ctype) -> np.ndarray:
        count = int(np.prod(shape))
        buffer = (ctype * count).from_address(int(address))
        return np.ctypeslib.as_array(buffer).reshape(tuple(int(n) for n in shape))

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
