"""Force elements as compiled terms: what the fused Position-to-Acceleration realization
(``engine.multibody.fused_realization``) applies inside its one kernel call.

A force element that can be written as a term returns it from ``Force._compiled_term``:
``(opcode, ints, floats)`` with at most ``INTS`` ints and ``FLOATS`` floats, read from the
State's current parameters. ``GeneralForceSubsystem._compiled_program`` stacks the terms of
its enabled elements into ``(term_ints (n, INTS) int64, term_floats (n, FLOATS) float64,
excluded (k,) int64)``; ``apply_force_terms`` adds their forces into the accumulators in
the same order, with the same arithmetic, as the elements' own ``calcForce``. An element
that returns ``None`` (a Force.Custom, a spring between two stations, ...) makes its
subsystem's realization take the ordinary per-element path.

Indices in the terms: b a body (MobilizedBodyIndex), iq/iu an index into the matter
subsystem's q/u. Units as the elements': N, N m, m/s^2.
"""

from __future__ import annotations

import numpy as np

from engine.common.kernel_jit import kernel_jit
from engine.forces.gravity_kernel import add_gravity_forces

INTS = 4
FLOATS = 6

#: gravity: floats (g0, g1, g2) the gravity vector in G (m/s^2); ints (first, count) the
#: slice of ``excluded`` listing the bodies it does not act on
GRAVITY = 1
#: mobility spring: ints (iq, iu); floats (k, q0): f_u += -k (q - q0)
MOBILITY_SPRING = 2
#: mobility damper: ints (iu,); floats (c,): f_u += -c u
MOBILITY_DAMPER = 3
#: constant mobility force: ints (iu,); floats (f,): f_u += f
MOBILITY_FORCE = 4
#: constant torque: ints (b,); floats (t0, t1, t2) in G: torque_b += t
BODY_TORQUE = 5
#: constant force at a station: ints (b,); floats (s0, s1, s2) station in B, (f0, f1, f2)
#: force in G: torque_b += (R_GB s) x f, force_b += f
STATION_FORCE = 6
#: global damper: floats (c,): f_u += -c u for every u
GLOBAL_DAMPER = 7


@kernel_jit
def apply_force_terms(
    term_ints, term_floats, excluded, mass, com_G, R_GB, q, u, body_forces, mobility_forces
):
    """Add the forces of the terms (see module docstring) into ``body_forces`` (nb, 6):
    torque about Bo and force, in G, and ``mobility_forces`` (nu,). ``com_G`` (nb, 3) the
    mass-centre offsets from Bo in G, ``R_GB`` (nb, 3, 3), q and u the matter subsystem's."""
    nb = mass.shape[0]
    for k in range(term_ints.shape[0]):
        op = term_ints[k, 0]
        a = term_ints[k, 1]
        b = term_ints[k, 2]
        fl = term_floats[k]
        if op == GRAVITY:
            add_gravity_forces(
                mass, com_G, excluded[a : a + b], fl[0], fl[1], fl[2], body_forces.reshape(nb, 2, 3)
            )
        elif op == MOBILITY_SPRING:
            mobility_forces[b] += -fl[0] * (q[a] - fl[1])
        elif op == MOBILITY_DAMPER:
            mobility_forces[a] += -fl[0] * u[a]
        elif op == MOBILITY_FORCE:
            mobility_forces[a] += fl[0]
        elif op == BODY_TORQUE:
            body_forces[a, 0] += fl[0]
            body_forces[a, 1] += fl[1]
            body_forces[a, 2] += fl[2]
        elif op == STATION_FORCE:
            R = R_GB[a]
            r0 = R[0, 0] * fl[0] + R[0, 1] * fl[1] + R[0, 2] * fl[2]
            r1 = R[1, 0] * fl[0] + R[1, 1] * fl[1] + R[1, 2] * fl[2]
            r2 = R[2, 0] * fl[0] + R[2, 1] * fl[1] + R[2, 2] * fl[2]
            f0, f1, f2 = fl[3], fl[4], fl[5]
            body_forces[a, 0] += r1 * f2 - r2 * f1
            body_forces[a, 1] += r2 * f0 - r0 * f2
            body_forces[a, 2] += r0 * f1 - r1 * f0
            body_forces[a, 3] += f0
            body_forces[a, 4] += f1
            body_forces[a, 5] += f2
        elif op == GLOBAL_DAMPER:
            c = fl[0]
            for i in range(mobility_forces.shape[0]):
                mobility_forces[i] -= c * u[i]


def stack_terms(terms: list[tuple[int, tuple, tuple]], excluded: list[int]):
    """(term_ints, term_floats, excluded) arrays of ``terms`` (see module docstring)."""
    n = len(terms)
    term_ints = np.zeros((n, INTS), dtype=np.int64)
    term_floats = np.zeros((n, FLOATS))
    for k, (op, ints, floats) in enumerate(terms):
        term_ints[k, 0] = op
        term_ints[k, 1 : 1 + len(ints)] = ints
        term_floats[k, : len(floats)] = floats
    return term_ints, term_floats, np.array(excluded, dtype=np.int64)
