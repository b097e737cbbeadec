"""Task (station and frame) Jacobian kernels, O(n + nt).

A task is a point S fixed on body B, given by ``r_G[k] = R_GB s_B`` (the vector from Bo to S,
expressed in Ground). Body quantities are rows [angular, linear] about Bo, in Ground (see
``engine.multibody.kernels``). The frame Jacobian of a task is ``[J_w; J_v - [r]x J_w]``; the
station Jacobian is its linear half.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def shift_motion_to_tasks(V_GB, bodies, r_G, out):
    """out[k] = velocity of task k's frame: [w, v + w x r] from its body's V_GB (or any
    motion-like body quantity, e.g. J u)."""
    for k in range(bodies.shape[0]):
        V = V_GB[bodies[k]]
        r = r_G[k]
        out[k, 0] = V[0]
        out[k, 1] = V[1]
        out[k, 2] = V[2]
        out[k, 3] = V[3] + V[1] * r[2] - V[2] * r[1]
        out[k, 4] = V[4] + V[2] * r[0] - V[0] * r[2]
        out[k, 5] = V[5] + V[0] * r[1] - V[1] * r[0]


@njit(cache=True, nogil=True)
def task_bias(bias_GB, V_GB, bodies, r_G, out):
    """out[k] = (JDot u) of task k's frame: [alpha_b, a_b + alpha_b x r + w x (w x r)], from
    its body's block ``bias_GB`` of JDot u and angular velocity w."""
    for k in range(bodies.shape[0]):
        b = bodies[k]
        A = bias_GB[b]
        w = V_GB[b]
        r = r_G[k]
        wxr0 = w[1] * r[2] - w[2] * r[1]
        wxr1 = w[2] * r[0] - w[0] * r[2]
        wxr2 = w[0] * r[1] - w[1] * r[0]
        out[k, 0] = A[0]
        out[k, 1] = A[1]
        out[k, 2] = A[2]
        out[k, 3] = A[3] + A[1] * r[2] - A[2] * r[1] + w[1] * wxr2 - w[2] * wxr1
        out[k, 4] = A[4] + A[2] * r[0] - A[0] * r[2] + w[2] * wxr0 - w[0] * wxr2
        out[k, 5] = A[5] + A[0] * r[1] - A[1] * r[0] + w[0] * wxr1 - w[1] * wxr0


@njit(cache=True, nogil=True)
def accumulate_task_forces(bodies, r_G, F_tasks, F_body):
    """F_body[b] += [t + r x f, f] for every task k on body b: spatial forces [t, f] applied at
    the task points moved to the body origins (all in Ground)."""
    for k in range(bodies.shape[0]):
        b = bodies[k]
        F = F_tasks[k]
        r = r_G[k]
        F_body[b, 0] += F[0] + r[1] * F[5] - r[2] * F[4]
        F_body[b, 1] += F[1] + r[2] * F[3] - r[0] * F[5]
        F_body[b, 2] += F[2] + r[0] * F[4] - r[1] * F[3]
        F_body[b, 3] += F[3]
        F_body[b, 4] += F[4]
        F_body[b, 5] += F[5]


@njit(cache=True, nogil=True)
def calc_frame_jacobian(parent, us, nus, H_G, p_GB, bodies, p_task_G, J):
    """J (6 nt x nu, zeroed by the caller): rows 6k..6k+5 are task k's frame Jacobian. Only
    the mobilities of the task body and its ancestors contribute; each column of body j's
    hinge matrix (about Jo) is shifted to the task point: [h_w, h_v + h_w x (p_S - p_Jo)]."""
    for k in range(bodies.shape[0]):
        p = p_task_G[k]
        j = bodies[k]
        row = 6 * k
        while j > 0:
            nu = nus[j]
            s = us[j]
            d0 = p[0] - p_GB[j, 0]
            d1 = p[1] - p_GB[j, 1]
            d2 = p[2] - p_GB[j, 2]
            for c in range(nu):
                h = H_G[j, :, c]
                J[row, s + c] = h[0]
                J[row + 1, s + c] = h[1]
                J[row + 2, s + c] = h[2]
                J[row + 3, s + c] = h[3] + h[1] * d2 - h[2] * d1
                J[row + 4, s + c] = h[4] + h[2] * d0 - h[0] * d2
                J[row + 5, s + c] = h[5] + h[0] * d1 - h[1] * d0
            j = parent[j]


@njit(cache=True, nogil=True)
def body_acceleration_from_udot(parent, us, nus, H_G, p_GB, coriolis, udot, A_GB):
    """A_GB = J udot + JDot u: body accelerations (at Bo, in G) for accelerations udot, with
    the velocity terms ``coriolis`` (each body's own share of JDot u) from the state."""
    nb = parent.shape[0]
    A_GB[0, :] = 0.0
    a = np.empty(6)
    for b in range(1, nb):
        P = A_GB[parent[b]]
        r = p_GB[b] - p_GB[parent[b]]
        a[0] = P[0]
        a[1] = P[1]
        a[2] = P[2]
        a[3] = P[3] + P[1] * r[2] - P[2] * r[1]
        a[4] = P[4] + P[2] * r[0] - P[0] * r[2]
        a[5] = P[5] + P[0] * r[1] - P[1] * r[0]
        for i in range(6):
            a[i] += coriolis[b, i]
        nu = nus[b]
        s = us[b]
        for c in range(nu):
            for i in range(6):
                a[i] += H_G[b, i, c] * udot[s + c]
        A_GB[b] = a
