"""Sweep-and-prune kernel: overlapping bounding spheres among intervals sorted by their
lower end along one axis."""

from __future__ import annotations

from engine.common.kernel_jit import kernel_jit


@kernel_jit
def sweep_pairs(order, lo_sorted, hi_sorted, centers, radii, pairs):
    """Write into ``pairs`` (capacity, 2) the index pairs (i, j), i < j, of bounding spheres
    (centers (n, 3), radii (n,)) whose intervals and spheres overlap; ``order`` sorts the
    intervals by lower end (lo_sorted, hi_sorted in that order). Returns the number of
    pairs found, which may exceed the capacity (then only the first ones were written)."""
    count = 0
    capacity = pairs.shape[0]
    n = order.shape[0]
    for a in range(n):
        i = order[a]
        top = hi_sorted[a]
        for c in range(a + 1, n):
            if lo_sorted[c] > top:
                break
            j = order[c]
            d0 = centers[j, 0] - centers[i, 0]
            d1 = centers[j, 1] - centers[i, 1]
            d2 = centers[j, 2] - centers[i, 2]
            reach = radii[i] + radii[j]
            if d0 * d0 + d1 * d1 + d2 * d2 <= reach * reach:
                if count < capacity:
                    if i < j:
                        pairs[count, 0], pairs[count, 1] = i, j
                    else:
                        pairs[count, 0], pairs[count, 1] = j, i
                count += 1
    return count
