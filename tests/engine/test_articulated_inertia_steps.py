"""The per-body steps of the articulated-body inertia recursion
(``stage_kernels.articulated_inertias``) against the recursion written out in numpy.

The kernel has steps specialised by the number of mobilities (one: Pin, Slider; three:
Ball, Gimbal, Translation, computing only the upper triangles of the symmetric D and
P - U D^-1 U^T) beside the general one (two, four to six). On a random tree mixing them,
in a random state, every body's P, D^-1 and U = P H must equal the textbook recursion

    P_b = Phi_b + sum over children c of  S(r_c) (P_c - U_c D_c^-1 U_c^T) S(r_c)^T

to 1e-12 relative, P must stay symmetric, and the kernel's Python body (the JIT
off) must give the compiled results."""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)
from engine.multibody.kernels import layout
from engine.multibody.kernels.stage_kernels import articulated_inertias

# (mobilizer, number of mobilities): the one-, three- and general-mobility steps
_KINDS = (
    (MobilizedBody.Pin, 1),
    (MobilizedBody.Slider, 1),
    (MobilizedBody.Ball, 3),
    (MobilizedBody.Gimbal, 3),
    (MobilizedBody.Universal, 2),
    (MobilizedBody.Planar, 3),
    (MobilizedBody.Free, 6),
)


def _random_tree(rng: np.random.Generator, n: int):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    mobods = [matter.Ground()]
    for i in range(n):
        kind = _KINDS[i % len(_KINDS)][0]
        parent = mobods[int(rng.integers(0, len(mobods)))]
        axis = rng.normal(size=3)
        X_PF = Transform(
            Rotation(rng.uniform(0, 3), axis / np.linalg.norm(axis)), Vec3(*rng.normal(size=3))
        )
        X_BM = Transform(Vec3(*rng.normal(scale=0.3, size=3)))
        mass = rng.uniform(0.5, 3.0)
        com = Vec3(*rng.normal(scale=0.2, size=3))
        central = np.diag(rng.uniform(0.05, 0.1, size=3))  # triangle inequality holds
        body = Body.Rigid(
            MassProperties(mass, com, Inertia(central).shiftFromMassCenter(com, mass))
        )
        mobods.append(kind(parent, X_PF, body, X_BM))
    state = system.realizeTopology()
    state.setQ(rng.normal(scale=0.7, size=state.getNQ()))
    system.realize(state, Stage.Position)
    return matter, state


def _kernel_arrays(matter, state) -> dict:
    ctx = matter._context(state)
    table = layout.build_table(matter._kernel_homes(ctx), matter._kernel_dims(ctx))
    return {entry.name: array for entry, array in zip(layout.LAYOUT, table.arrays, strict=True)}


def _shift(T: np.ndarray, r: np.ndarray) -> np.ndarray:
    """S(r) T S(r)^T with S(r) = [[1, [r]x], [0, 1]]."""
    S = np.eye(6)
    S[:3, 3:] = [[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]]
    return S @ T @ S.T


def _numpy_recursion(k: dict):
    parent, nus, H_G, Phi_G, p_GB = k["parent"], k["nus"], k["H_G"], k["Phi_G"], k["p_GB"]
    nb = parent.shape[0]
    P = Phi_G.copy()
    D_inv, U = np.zeros((nb, 6, 6)), np.zeros((nb, 6, 6))
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        H = H_G[b, :, :nu]
        U[b, :, :nu] = P[b] @ H
        D_inv[b, :nu, :nu] = np.linalg.inv(H.T @ P[b] @ H)
        Pa = P[b] - U[b, :, :nu] @ D_inv[b, :nu, :nu] @ U[b, :, :nu].T
        P[parent[b]] += _shift(Pa, p_GB[b] - p_GB[parent[b]])
    return P, D_inv, U


def _run(fn, k: dict):
    nb = k["parent"].shape[0]
    P, D_inv, U = np.zeros((nb, 6, 6)), np.zeros((nb, 6, 6)), np.zeros((nb, 6, 6))
    known = np.zeros(nb, dtype=np.int64)
    work, Pa = np.zeros((6, 12)), np.zeros((6, 6))
    fn(k["parent"], k["nus"], known, k["H_G"], k["Phi_G"], k["p_GB"], P, D_inv, U, work, Pa)
    return P, D_inv, U


def test_specialised_steps_give_the_textbook_recursion_on_random_trees() -> None:
    rng = np.random.default_rng(15)
    for _ in range(4):
        matter, state = _random_tree(rng, 21)
        k = _kernel_arrays(matter, state)
        assert {1, 2, 3, 6} <= set(k["nus"][1:].tolist())  # every kind of step is taken
        got = _run(articulated_inertias, k)
        expected = _numpy_recursion(k)
        for name, g, e in zip(("P", "D^-1", "U"), got, expected, strict=True):
            for b in range(1, g.shape[0]):
                scale = np.abs(e[b]).max()
                err = np.abs(g[b] - e[b]).max() / scale
                assert err < 1e-12, f"{name} of body {b} (nu {k['nus'][b]}): {err:.1e}"
        P = got[0]
        scale = np.abs(P).max()  # symmetric (the projections exactly, the shifts to rounding)
        np.testing.assert_allclose(P, np.transpose(P, (0, 2, 1)), rtol=0, atol=1e-14 * scale)
        # the kernel's Python body (as with NUMBA_DISABLE_JIT) gives the compiled results
        py = _run(articulated_inertias.py_func, k)
        for g, p in zip(got, py, strict=True):
            np.testing.assert_allclose(p, g, rtol=1e-14, atol=1e-14 * np.abs(g).max())
