"""Broad phase: sweep and prune along one axis over bounding spheres.

The intervals ``[c - r, c + r]`` along the axis where the centres spread most are sorted
and swept once; only pairs whose intervals overlap (and whose bounding spheres overlap) are
returned. For bodies spread over space that is O(N log N) for the sort plus the number of
close pairs, instead of all N(N-1)/2 pairs.
"""

from __future__ import annotations

import numpy as np


def sweep_and_prune(centers: np.ndarray, radii: np.ndarray) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, of bounding spheres that overlap (indices into the inputs)."""
    count = len(radii)
    if count < 2:
        return []
    axis = int(np.argmax(np.ptp(centers, axis=0)))
    lo = centers[:, axis] - radii
    hi = centers[:, axis] + radii
    order = np.argsort(lo, kind="stable")
    lo_sorted = lo[order]
    hi_sorted = hi[order]
    # for each interval, the sorted intervals that start before it ends
    ends = np.searchsorted(lo_sorted, hi_sorted, side="right")
    pairs = []
    for a in range(count):
        end = int(ends[a])
        if end <= a + 1:
            continue
        i = int(order[a])
        js = order[a + 1 : end]
        d = centers[js] - centers[i]
        close = np.einsum("ij,ij->i", d, d) <= (radii[js] + radii[i]) ** 2
        for j in js[close]:
            j = int(j)
            pairs.append((i, j) if i < j else (j, i))
    return pairs
