"""Station and frame (task) Jacobians of SimbodyMatterSubsystem, and the system Jacobian bias.

A task is a point S fixed on a body B, given as the vector from Bo to S in B (m). A station
task's velocity is the velocity of S measured and expressed in Ground; a frame task's is
``[w_GB, v_GS]``. Forces for the transposed operators are applied at S and expressed in
Ground. Multi-task forms take a list of bodies (MobilizedBodyIndex or MobilizedBody) and a
list of stations; single-task forms take one body and one Vec3. Explicit Jacobians come in
Simbody's scalar Matrix form: 3 rows (station) or 6 rows (frame, [angular; linear]) per task.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.state import State
from engine.multibody.kernels.jacobian import (
    multiply_by_system_jacobian,
    multiply_by_system_jacobian_transpose,
)
from engine.multibody.kernels.task_jacobians import (
    accumulate_task_forces,
    calc_frame_jacobian,
    shift_motion_to_tasks,
    task_bias,
)
from engine.multibody.matter.arguments import body_index, finite_array, is_single_body, vec3


class TaskJacobianMixin:
    """multiplyBy/calc/calcBiasFor Station and Frame Jacobians, calcBiasForSystemJacobian."""

    # ------------------------------------------------------------------ helpers
    def _tasks(self, state: State, onBodyB, stationPInB, what: str, station: str = "stationPInB"):
        """(single, bodies (nt,), r_G (nt, 3) from Bo to S in G, p_GS (nt, 3))."""
        single = is_single_body(onBodyB)
        if single:
            bodies = np.array([body_index(self, onBodyB, f"{what}: onBodyB")], dtype=np.int64)
            stations = vec3(stationPInB, f"{what}: {station}").reshape(1, 3)
        else:
            try:
                items = list(onBodyB)
            except TypeError:
                items = [onBodyB]
            bodies = np.array(
                [body_index(self, b, f"{what}: onBodyB") for b in items], dtype=np.int64
            )
            stations = (
                np.zeros((0, 3))
                if not items and hasattr(stationPInB, "__len__") and len(stationPInB) == 0
                else finite_array(stationPInB, (-1, 3), f"{what}: {station}")
            )
            if stations.shape[0] != bodies.shape[0]:
                raise InvalidArgumentError(
                    f"{what}: onBodyB has {bodies.shape[0]} bodies but {station} has "
                    f"{stations.shape[0]} stations; give one station per body"
                )
        pc = self._position_cache(state)
        r_G = np.einsum("kij,kj->ki", pc.R_GB[bodies], stations)
        return single, bodies, np.ascontiguousarray(r_G), pc.p_GB[bodies] + r_G

    def _task_velocities(self, state: State, bodies, r_G, u) -> np.ndarray:
        topo = self._topo()
        pc = self._position_cache(state)
        V = np.zeros((topo.nb, 6))
        multiply_by_system_jacobian(topo.parent, topo.us, topo.nus, pc.H_G, pc.p_GB, u, V)
        out = np.zeros((bodies.shape[0], 6))
        shift_motion_to_tasks(V, bodies, r_G, out)
        return out

    def _task_forces_to_mobility(self, state: State, bodies, r_G, F_tasks) -> np.ndarray:
        topo = self._topo()
        pc = self._position_cache(state)
        F = np.zeros((topo.nb, 6))
        accumulate_task_forces(bodies, r_G, np.ascontiguousarray(F_tasks), F)
        f = np.zeros(topo.nu)
        multiply_by_system_jacobian_transpose(topo.parent, topo.us, topo.nus, pc.H_G, pc.p_GB, F, f)
        return f

    def _task_jacobian(self, state: State, bodies, p_GS) -> np.ndarray:
        topo = self._topo()
        pc = self._position_cache(state)
        J = np.zeros((6 * bodies.shape[0], topo.nu))
        calc_frame_jacobian(topo.parent, topo.us, topo.nus, pc.H_G, pc.p_GB, bodies, p_GS, J)
        return J

    def _task_bias(self, state: State, bodies, r_G) -> np.ndarray:
        vc = self._velocity_cache(state)
        out = np.zeros((bodies.shape[0], 6))
        task_bias(vc.total_coriolis, vc.V_GB, bodies, r_G, out)
        return out

    # ------------------------------------------------------------------ system
    def calcBiasForSystemJacobian(self, state: State) -> np.ndarray:
        """JDot u: each body's velocity-dependent acceleration (nb, 2, 3), [angular, linear]
        at Bo in G (Velocity stage). ``.reshape(-1)`` gives the 6 nb Vector form."""
        self._require_velocity_kinematics(state, "calcBiasForSystemJacobian")
        vc = self._velocity_cache(state)
        return vc.total_coriolis.reshape(-1, 2, 3).copy()

    # ------------------------------------------------------------------ stations
    def multiplyByStationJacobian(self, state: State, onBodyB, stationPInB, u) -> np.ndarray:
        """JS u: velocities in G of the stations (nt, 3), or (3,) for one body and station
        (Position stage; O(n + nt))."""
        what = "multiplyByStationJacobian"
        self._require_position_kinematics(state, what)
        u = self._vector(u, self._topo().nu, f"{what}: u")
        single, bodies, r_G, _ = self._tasks(state, onBodyB, stationPInB, what)
        v = self._task_velocities(state, bodies, r_G, u)[:, 3:6]
        return v[0].copy() if single else v.copy()

    def multiplyByStationJacobianTranspose(
        self, state: State, onBodyB, stationPInB, f_GP
    ) -> np.ndarray:
        """JS^T f: generalized forces (nu,) of forces f_GP (in G) applied at the stations
        ((nt, 3), or one Vec3 for the single-task form) (Position stage; O(n + nt))."""
        what = "multiplyByStationJacobianTranspose"
        self._require_position_kinematics(state, what)
        single, bodies, r_G, _ = self._tasks(state, onBodyB, stationPInB, what)
        shape = (3,) if single else (bodies.shape[0], 3)
        f = finite_array(f_GP, shape, f"{what}: f_GP").reshape(-1, 3)
        F = np.zeros((bodies.shape[0], 6))
        F[:, 3:6] = f
        return self._task_forces_to_mobility(state, bodies, r_G, F)

    def calcStationJacobian(self, state: State, onBodyB, stationPInB) -> np.ndarray:
        """The (3 nt) x nu station Jacobian in scalar form (3 x nu for one station), rows
        [vx, vy, vz] of each station in G (Position stage)."""
        what = "calcStationJacobian"
        self._require_position_kinematics(state, what)
        _, bodies, _, p_GS = self._tasks(state, onBodyB, stationPInB, what)
        nt, nu = bodies.shape[0], self._topo().nu
        J = self._task_jacobian(state, bodies, p_GS).reshape(nt, 2, 3, nu)
        return np.ascontiguousarray(J[:, 1].reshape(3 * nt, nu))

    def calcBiasForStationJacobian(self, state: State, onBodyB, stationPInB) -> np.ndarray:
        """JSDot u: velocity-dependent accelerations in G of the stations (nt, 3), or (3,) for
        one station (Velocity stage). ``.reshape(-1)`` gives the 3 nt Vector form."""
        what = "calcBiasForStationJacobian"
        self._require_velocity_kinematics(state, what)
        single, bodies, r_G, _ = self._tasks(state, onBodyB, stationPInB, what)
        a = self._task_bias(state, bodies, r_G)[:, 3:6]
        return a[0].copy() if single else a.copy()

    # ------------------------------------------------------------------ frames
    def multiplyByFrameJacobian(self, state: State, onBodyB, originAoInB, u) -> np.ndarray:
        """JF u: spatial velocities [w, v_Ao] in G of the task frames (nt, 2, 3), or (2, 3)
        for one frame (Position stage; O(n + nt))."""
        what = "multiplyByFrameJacobian"
        self._require_position_kinematics(state, what)
        u = self._vector(u, self._topo().nu, f"{what}: u")
        single, bodies, r_G, _ = self._tasks(state, onBodyB, originAoInB, what, "originAoInB")
        V = self._task_velocities(state, bodies, r_G, u).reshape(-1, 2, 3)
        return V[0].copy() if single else V

    def multiplyByFrameJacobianTranspose(
        self, state: State, onBodyB, originAoInB, F_GAo
    ) -> np.ndarray:
        """JF^T F: generalized forces (nu,) of spatial forces [torque, force] in G applied at
        the frame origins Ao ((nt, 2, 3), or (2, 3) for one frame) (Position stage)."""
        what = "multiplyByFrameJacobianTranspose"
        self._require_position_kinematics(state, what)
        single, bodies, r_G, _ = self._tasks(state, onBodyB, originAoInB, what, "originAoInB")
        shape = (2, 3) if single else (bodies.shape[0], 2, 3)
        F = finite_array(F_GAo, shape, f"{what}: F_GAo").reshape(-1, 6)
        return self._task_forces_to_mobility(state, bodies, r_G, F)

    def calcFrameJacobian(self, state: State, onBodyB, originAoInB) -> np.ndarray:
        """The (6 nt) x nu frame Jacobian in scalar form (6 x nu for one frame), rows
        [w; v_Ao] of each frame in G (Position stage)."""
        what = "calcFrameJacobian"
        self._require_position_kinematics(state, what)
        _, bodies, _, p_GS = self._tasks(state, onBodyB, originAoInB, what, "originAoInB")
        return self._task_jacobian(state, bodies, p_GS)

    # ------------------------------------------------ element (Matrix_<...>) forms
    # Simbody's Matrix_<SpatialVec> / Matrix_<Vec3> (and RowVector_) overloads: the same
    # numbers as the scalar Matrix forms, with each task's block as its own axes, so that
    # J[i, :, :, j] (J[i, :, j]) is the element in task row i, mobility column j.

    def calcSystemJacobianAsSpatialVecs(self, state: State) -> np.ndarray:
        """Simbody's ``calcSystemJacobian(state, Matrix_<SpatialVec>& J_G)``: (nb, 2, 3, nu),
        J[b, :, :, j] = [w; v] of body b's origin in G per unit u_j (Position stage)."""
        J = self.calcSystemJacobian(state)
        return J.reshape(self._topo().nb, 2, 3, J.shape[1])

    def calcFrameJacobianAsSpatialVecs(self, state: State, onBodyB, originAoInB) -> np.ndarray:
        """Simbody's ``calcFrameJacobian`` into a ``Matrix_<SpatialVec>``: (nt, 2, 3, nu); for
        one body and origin the ``RowVector_<SpatialVec>`` form (2, 3, nu) (Position
        stage)."""
        single = is_single_body(onBodyB)
        J = self.calcFrameJacobian(state, onBodyB, originAoInB)
        J = J.reshape(-1, 2, 3, J.shape[1])
        return J[0] if single else J

    def calcStationJacobianAsVec3s(self, state: State, onBodyB, stationPInB) -> np.ndarray:
        """Simbody's ``calcStationJacobian`` into a ``Matrix_<Vec3>``: (nt, 3, nu); for one
        body and station the ``RowVector_<Vec3>`` form (3, nu) (Position stage)."""
        single = is_single_body(onBodyB)
        J = self.calcStationJacobian(state, onBodyB, stationPInB)
        J = J.reshape(-1, 3, J.shape[1])
        return J[0] if single else J

    def calcBiasForFrameJacobian(self, state: State, onBodyB, originAoInB) -> np.ndarray:
        """JFDot u: velocity-dependent spatial accelerations in G of the frames (nt, 2, 3), or
        (2, 3) for one frame (Velocity stage). ``.reshape(-1)`` gives the 6 nt Vector form."""
        what = "calcBiasForFrameJacobian"
        self._require_velocity_kinematics(state, what)
        single, bodies, r_G, _ = self._tasks(state, onBodyB, originAoInB, what, "originAoInB")
        A = self._task_bias(state, bodies, r_G).reshape(-1, 2, 3)
        return A[0].copy() if single else A
