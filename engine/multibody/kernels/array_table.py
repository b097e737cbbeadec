"""Arrays handed to a kernel by address: ``ArrayTable``.

Passing an array from Python to a numba kernel costs about 50 ns to unbox, and every
numba-to-numba call passing a reference-counted array costs an atomic increment and
decrement. A kernel with tens of array arguments called from Python therefore spends most
of a small system's time on its arguments. An ``ArrayTable`` holds a fixed list of arrays
with their addresses (int64 (n,)) and shapes (int64 (n + 1, 3); the last row is the
addresses array's own address and length); a kernel given those two arrays rebuilds each
entry with the accessors ``f1`` .. ``i2`` (float64 or int64, one to three dimensions;
``engine.common.numba_internals``), without a reference count, and a kernel given the
shapes alone rebuilds the addresses with ``table_addresses``. The
table keeps its arrays alive; the caller keeps them unmoved (never resized or replaced)
while the table is in use. The matter kernels' table is declared in
``engine.multibody.kernels.layout``.
"""

from __future__ import annotations

import numpy as np

from engine.common.numba_internals import f1, f2, f3, i1, i2, table_addresses

__all__ = ["ArrayTable", "f1", "f2", "f3", "i1", "i2", "table_addresses"]

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
        # one row more: the addresses array itself (its address and length), so that a
        # kernel given only the shapes rebuilds the whole table (``table_addresses``)
        self.shapes = np.zeros((len(arrays) + 1, 3), dtype=np.int64)
        self.shapes[-1, 0], self.shapes[-1, 1] = self.addresses.ctypes.data, len(arrays)
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
