"""Broad phase: sweep and prune along one axis over bounding spheres.

The intervals ``[c - r, c + r]`` along the axis where the centres spread most are sorted
and swept once; only pairs whose intervals overlap (and whose bounding spheres overlap) are
returned. For bodies spread over space that is O(N log N) for the sort plus the number of
close pairs, instead of all N(N-1)/2 pairs.
"""

from __future__ import annotations

import numpy as np

from engine.contact.kernels.sweep_kernel import sweep_pairs


def sweep_and_prune(centers: np.ndarray, radii: np.ndarray) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, of bounding spheres that overlap (indices into the inputs)."""
    return [(int(i), int(j)) for i, j in sweep_and_prune_array(centers, radii)]


def sweep_and_prune_array(centers: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """The pairs of ``sweep_and_prune`` as an (m, 2) int64 array."""
    count = len(radii)
    if count < 2:
        return np.zeros((0, 2), dtype=np.int64)
    axis = int(np.argmax(np.ptp(centers, axis=0)))
    lo = centers[:, axis] - radii
    hi = centers[:, axis] + radii
    order = np.argsort(lo, kind="stable")
    centers = np.ascontiguousarray(centers, dtype=np.float64)
    radii = np.ascontiguousarray(radii, dtype=np.float64)
    capacity = 4 * count
    while True:
        pairs = np.empty((capacity, 2), dtype=np.int64)
        found = sweep_pairs(order, lo[order], hi[order], centers, radii, pairs)
        if found <= capacity:
            return pairs[:found]
        capacity = found
