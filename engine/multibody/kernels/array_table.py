"""Arrays handed to a kernel by address: ``ArrayTable`` and the helpers that rebuild them.

Passing an array from Python to a numba kernel costs about 50 ns to unbox, and every
numba-to-numba call passing a reference-counted array costs an atomic increment and
decrement (about 20 ns per array per call). A kernel with tens of array arguments called
from Python therefore spends most of a small system's time on its arguments. An
``ArrayTable`` holds a fixed list of arrays with their addresses (int64 (n,)) and shapes
(int64 (n, 3)); a kernel given those two arrays rebuilds each array with ``numba.carray``
(``f1`` .. ``i2`` below: float64 or int64, one to three dimensions), which makes arrays
without a reference count. The table keeps its arrays alive; the caller keeps them
unmoved (never resized or replaced) while the table is in use.
"""

from __future__ import annotations

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

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


def _pointer_intrinsic(element_type):
    """An intrinsic turning an int64 address into an ``element_type`` pointer (for
    numba.carray)."""
    ptr_type = types.CPointer(element_type)

    @intrinsic
    def pointer(typingctx, address):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(ptr_type))

        return ptr_type(address), codegen

    return pointer


_float64_pointer = _pointer_intrinsic(types.float64)
_int64_pointer = _pointer_intrinsic(types.int64)


# numba fixes an array's number of dimensions at compile time, so one helper per shape.
@njit(cache=True, nogil=True)
def f1(a, s, k):
    """Table entry k as a float64 vector."""
    return carray(_float64_pointer(a[k]), (s[k, 0],))


@njit(cache=True, nogil=True)
def f2(a, s, k):
    """Table entry k as a float64 matrix."""
    return carray(_float64_pointer(a[k]), (s[k, 0], s[k, 1]))


@njit(cache=True, nogil=True)
def f3(a, s, k):
    """Table entry k as a float64 array of three dimensions."""
    return carray(_float64_pointer(a[k]), (s[k, 0], s[k, 1], s[k, 2]))


@njit(cache=True, nogil=True)
def i1(a, s, k):
    """Table entry k as an int64 vector."""
    return carray(_int64_pointer(a[k]), (s[k, 0],))


@njit(cache=True, nogil=True)
def i2(a, s, k):
    """Table entry k as an int64 matrix."""
    return carray(_int64_pointer(a[k]), (s[k, 0], s[k, 1]))
