"""Numba kernel for Force.Gravity: the body forces of uniform gravity, in one pass."""

from __future__ import annotations

from engine.common.kernel_jit import kernel_jit


@kernel_jit
def add_gravity_forces(mass, com_G, excluded, g0, g1, g2, body_forces):
    """body_forces[b] += [c_b x (m_b g), m_b g] for every body b > 0 not listed in
    ``excluded`` (int64 body indices, any order; indices past the last body are ignored).

    mass (nb,), com_G (nb, 3) mass-centre offsets from Bo in G, g = (g0, g1, g2) in m/s^2
    in G, body_forces (nb, 2, 3) torque about Bo and force, in G (N m, N)."""
    nb = mass.shape[0]
    n_excluded = excluded.shape[0]
    for b in range(1, nb):
        skip = False
        for j in range(n_excluded):
            if excluded[j] == b:
                skip = True
                break
        if skip:
            continue
        m = mass[b]
        f0, f1, f2 = m * g0, m * g1, m * g2
        c0, c1, c2 = com_G[b, 0], com_G[b, 1], com_G[b, 2]
        body_forces[b, 0, 0] += c1 * f2 - c2 * f1
        body_forces[b, 0, 1] += c2 * f0 - c0 * f2
        body_forces[b, 0, 2] += c0 * f1 - c1 * f0
        body_forces[b, 1, 0] += f0
        body_forces[b, 1, 1] += f1
        body_forces[b, 1, 2] += f2
