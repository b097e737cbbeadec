"""System Jacobian products (O(n)): V = J u (body velocities) and f = J^T F."""

from __future__ import annotations

from numba import njit

from engine.multibody.kernels.spatial_kernels import (
    add_h_times,
    h_transpose_times,
    shift_force_to_parent_add,
    shift_motion_to_child,
)


@njit(cache=True, nogil=True, inline="always")
def _offset_from_parent(p_GB, b, P):
    """p_GB[b] - p_GB[P] as a 3-tuple (no array allocated)."""
    return (p_GB[b, 0] - p_GB[P, 0], p_GB[b, 1] - p_GB[P, 1], p_GB[b, 2] - p_GB[P, 2])


@njit(cache=True, nogil=True)
def multiply_by_system_jacobian(parent, us, nus, H_G, p_GB, u, V):
    """V[b] = (J u)_b: spatial velocity of each body (at Bo, in G) for speeds u."""
    nb = parent.shape[0]
    V[0, :] = 0.0
    for b in range(1, nb):
        shift_motion_to_child(V[parent[b]], _offset_from_parent(p_GB, b, parent[b]), V[b])
        nu = nus[b]
        if nu > 0:
            add_h_times(H_G[b], nu, u, us[b], V[b])


@njit(cache=True, nogil=True)
def multiply_by_system_jacobian_transpose(parent, us, nus, H_G, p_GB, F_in, f):
    """f = J^T F: generalized forces of body forces F (at Bo, in G)."""
    multiply_by_system_jacobian_transpose_in_place(parent, us, nus, H_G, p_GB, F_in.copy(), f)


@njit(cache=True, nogil=True)
def multiply_by_system_jacobian_transpose_in_place(parent, us, nus, H_G, p_GB, F, f):
    """f = J^T F as ``multiply_by_system_jacobian_transpose``, with F (nb, 6) used as the
    scratch of the tip-to-base sweep (overwritten: each body's force gets its children's
    shifted forces added), so that no array is allocated."""
    nb = parent.shape[0]
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        if nu > 0:
            h_transpose_times(H_G[b], nu, F[b], f, us[b])
        shift_force_to_parent_add(F[b], _offset_from_parent(p_GB, b, parent[b]), F[parent[b]])
