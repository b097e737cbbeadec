"""Simbody's Matrix_<SpatialVec> / Matrix_<Vec3> (and RowVector_) Jacobian overloads
(issue 21): calcSystemJacobian, calcFrameJacobian and calcStationJacobian with each
element as its own axes, checked against finite differences of the body poses on a chain
whose mobilizers have qdot = u."""

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
    XAxis,
)


def _chain():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.1, 0.2, 0), Inertia(0.3)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    slider = MobilizedBody.Slider(
        pin, Transform(Rotation(0.4, XAxis), Vec3(0.5, 0, 0)), body, Transform()
    )
    universal = MobilizedBody.Universal(slider, Transform(Vec3(0, 0.3, 0)), body, Transform())
    tip = MobilizedBody.Pin(universal, Transform(Vec3(0.2, 0.7, 0.1)), body, Transform())
    state = system.realizeTopology()
    state.updQ()[:] = [0.3, 0.25, -0.4, 0.6, 1.1]
    system.realize(state, Stage.Position)
    return system, matter, [pin, slider, universal, tip], state


def _poses(system, matter, state, q):
    s = state.copy()
    s.updQ()[:] = q
    system.realize(s, Stage.Position)
    return [
        (
            matter.getMobilizedBody(b).getBodyTransform(s).R().asMat33(),
            matter.getMobilizedBody(b).getBodyTransform(s).p(),
        )
        for b in range(matter.getNumBodies())
    ]


def _fd_frame_jacobian(system, matter, state, stations):
    """(nb, 2, 3, nu) by central differences: angular columns from dR R^T, linear from
    the motion of each body's station (qdot = u on this chain)."""
    q0 = np.array(state.getQ())
    nb, nu = matter.getNumBodies(), q0.size
    J = np.zeros((nb, 2, 3, nu))
    h = 1e-6
    for j in range(nu):
        e = np.zeros(nu)
        e[j] = h
        plus, minus = _poses(system, matter, state, q0 + e), _poses(system, matter, state, q0 - e)
        R0 = _poses(system, matter, state, q0)
        for b in range(nb):
            dR = (plus[b][0] - minus[b][0]) / (2 * h)
            W = dR @ R0[b][0].T
            J[b, 0, :, j] = [W[2, 1], W[0, 2], W[1, 0]]
            pp = plus[b][1] + plus[b][0] @ stations[b]
            pm = minus[b][1] + minus[b][0] @ stations[b]
            J[b, 1, :, j] = (pp - pm) / (2 * h)
    return J


def test_system_jacobian_as_spatial_vecs_matches_finite_differences():
    system, matter, bodies, state = _chain()
    J = matter.calcSystemJacobianAsSpatialVecs(state)
    nb, nu = matter.getNumBodies(), state.getNU()
    assert J.shape == (nb, 2, 3, nu)
    fd = _fd_frame_jacobian(system, matter, state, np.zeros((nb, 3)))
    np.testing.assert_allclose(J, fd, atol=1e-8)
    # the same numbers as the scalar Matrix form, and J[b, :, :, j] is a SpatialVec element
    np.testing.assert_array_equal(J.reshape(6 * nb, nu), matter.calcSystemJacobian(state))
    u = np.array([0.5, -1.0, 0.3, 2.0, -0.7])
    np.testing.assert_allclose(
        np.einsum("bijk,k->bij", J, u), matter.multiplyBySystemJacobian(state, u), atol=1e-14
    )


def test_frame_and_station_jacobian_element_forms():
    system, matter, bodies, state = _chain()
    nu = state.getNU()
    stations = np.array([[0, 0, 0], [0.3, -0.2, 0.1], [0, 0.4, 0], [1.0, 0, 0.5], [0.2, 0.2, 0.2]])
    fd = _fd_frame_jacobian(system, matter, state, stations)
    which = [4, 2, 1, 4]
    JF = matter.calcFrameJacobianAsSpatialVecs(state, which, stations[which])
    assert JF.shape == (4, 2, 3, nu)
    np.testing.assert_allclose(JF, fd[which], atol=1e-8)
    np.testing.assert_array_equal(
        JF.reshape(24, nu), matter.calcFrameJacobian(state, which, stations[which])
    )
    JS = matter.calcStationJacobianAsVec3s(state, which, stations[which])
    assert JS.shape == (4, 3, nu)
    np.testing.assert_allclose(JS, fd[which, 1], atol=1e-8)
    # single-task (RowVector_) forms, by handle or by index
    tip = bodies[-1]
    row = matter.calcFrameJacobianAsSpatialVecs(state, tip, stations[4])
    assert row.shape == (2, 3, nu)
    np.testing.assert_allclose(row, fd[4], atol=1e-8)
    srow = matter.calcStationJacobianAsVec3s(state, 4, stations[4])
    assert srow.shape == (3, nu)
    np.testing.assert_allclose(srow, fd[4, 1], atol=1e-8)
