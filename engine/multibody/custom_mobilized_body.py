"""MobilizedBody.Custom: a mobilizer whose kinematics the user writes in Python.

Port of Simbody's ``MobilizedBody::Custom`` and ``MobilizedBody::Custom::Implementation``::

    class PinZ(MobilizedBody.Custom.Implementation):
        def __init__(self, matter):
            super().__init__(matter, 1, 1, 1)          # nu, nq, nAngles
        def calcMobilizerTransformFromQ(self, state, q):
            return Transform(Rotation(q[0], ZAxis), Vec3(0, 0, 0))
        def multiplyByHMatrix(self, state, u):
            return np.array([[0, 0, u[0]], [0, 0, 0]])   # V_FM = [w_FM, v_FM] in F
        def multiplyByHDotMatrix(self, state, u):
            return np.zeros((2, 3))

    link = MobilizedBody.Custom(parent, X_PF, body, X_BM, PinZ(matter))

Spatial vectors are [angular, linear] of Mo in F, shape (2, 3) (a flat (6,) is accepted). The
kinematic operators default to N = NInv = I and NDot = 0, which requires nq == nu; a mobilizer
with nq != nu must override ``multiplyByN``, ``multiplyByNInv`` and ``multiplyByNDot``. The
setQToFit* / setUToFit* methods default to a numerical best fit (Levenberg-Marquardt on the
pose from the current q, least squares on H from the current u). H^T and HDot^T default to the
transposes of the columns of H and HDot.

With ``nAngles = 4`` the first four q are a quaternion [w, x, y, z], as in Simbody: the matter
subsystem counts it among the quaternions in use (its normalization error is a qErr entry,
``normalizeQuaternions`` and projection keep it unit length), and with
``matter.setUseEulerAngles(state, True)`` the mobilizer has nq - 1 coordinates, three x-y-z
angles in place of the quaternion, so the implementation's methods receive q of the length in
use (``getUseEulerAngles(state)`` tells which). Such a mobilizer has qdot != u, so it must
define ``multiplyByN``, ``multiplyByNInv`` and ``multiplyByNDot`` for both modes.

A last argument ``MobilizedBody.Reverse`` (or ``direction=``) reverses the mobilizer as
Simbody's direction argument does: the implementation still describes the joint from its own
"F" to its own "M", but those are the body's M and the parent's F, so its X(q) is X_MF and its
H u is V_MF (in M). The body moves with X_FM = ~X_MF and V_FM, A_FM reversed accordingly
(Simbody's calcReverseMobilizerH_FM / HDot_FM); q, u and N keep their meaning. Inside the
implementation ``getMobilizerTransform(state)`` gives the realized X_FM, as in Simbody, and
the fits hand the implementation the reversed request (~X_FM, V_MF).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError, SimTKError
from engine.math.rotation import Rotation
from engine.math.spatial import reverseRelativeVelocity
from engine.math.transform import Transform
from engine.multibody.body import Body
from engine.multibody.mobilized_body import MobilizedBody
from engine.multibody.mobilizers.custom import CustomMobilizerType

if TYPE_CHECKING:
    from engine.common.state import State


def as_spatial(V, what: str) -> np.ndarray:
    """A spatial vector as a (6,) float64 array [angular, linear]."""
    arr = np.asarray(V, dtype=np.float64)
    if arr.size != 6:
        raise InvalidArgumentError(f"{what} must return a spatial vector (2, 3), got {arr.shape}")
    arr = arr.reshape(6)
    if not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{what} returned non-finite values {arr.tolist()}")
    return arr


class CustomImplementation:
    """Base class of a Custom mobilizer's kinematics (Simbody's Custom::Implementation).

    Override at least ``calcMobilizerTransformFromQ``, ``multiplyByHMatrix`` and
    ``multiplyByHDotMatrix``. Inside them, ``getQ(state)`` / ``getU(state)`` give this
    mobilizer's own q and u, and ``getMobilizerTransform(state)`` the X_FM just computed.
    """

    def __init__(self, matter, nu: int, nq: int, nAngles: int = 0) -> None:
        nu, nq, nAngles = int(nu), int(nq), int(nAngles)
        if not 0 <= nu <= 6 or nq < nu or nq > 7:
            raise InvalidArgumentError(
                f"Custom mobilizer: need 0 <= nu <= 6 and nu <= nq <= 7, got nu={nu}, nq={nq}"
            )
        if nAngles == 4:
            if nq < 4 or nu < 3:
                raise InvalidArgumentError(
                    "Custom mobilizer: a quaternion (nAngles = 4) needs nq >= 4 and nu >= 3, "
                    f"got nq={nq}, nu={nu}"
                )
        elif not 0 <= nAngles <= min(3, nq):
            raise InvalidArgumentError(
                f"Custom mobilizer: nAngles must be 4 (a quaternion) or between 0 and "
                f"min(3, nq), got {nAngles}"
            )
        self._matter = matter
        self._nu, self._nq, self._nangles = nu, nq, nAngles
        self._mobod: MobilizedBody | None = None

    # ------------------------------------------------------------ sizes, owner
    def getNumU(self) -> int:
        return self._nu

    def getNumQ(self) -> int:
        return self._nq

    def getNumAngles(self) -> int:
        return self._nangles

    def getDefaultQ(self) -> np.ndarray:
        """This mobilizer's default q in quaternion mode (override; 0 unless overridden, with
        the identity quaternion [1, 0, 0, 0] first if nAngles = 4). The MobilizedBody's
        setDefaultQ takes precedence."""
        q = np.zeros(self._nq)
        if self._nangles == 4:
            q[0] = 1.0
        return q

    def usesQuaternion(self) -> bool:
        """True if the first four q are a quaternion (nAngles = 4)."""
        return self._nangles == 4

    def getMatterSubsystem(self):
        return self._matter

    def getMobilizedBody(self) -> MobilizedBody:
        if self._mobod is None:
            raise SimTKError("this Custom implementation is not attached to a MobilizedBody yet")
        return self._mobod

    def invalidateTopologyCache(self) -> None:
        """Call after changing a parameter that the kinematics depend on."""
        self._matter.invalidateSubsystemTopologyCache()

    # ------------------------------------------------------- state accessors
    def _q_slice(self, state: State) -> slice:
        topo = self._matter._topo(state)
        b = self.getMobilizedBody().getMobilizedBodyIndex()
        s = int(topo.qs[b])
        return slice(s, s + self._matter._num_q_in_use(state, b))

    def getQ(self, state: State) -> np.ndarray:
        """This mobilizer's q (read-only view)."""
        return self._matter.getQ(state)[self._q_slice(state)]

    def getU(self, state: State) -> np.ndarray:
        """This mobilizer's u (read-only view)."""
        return self.getMobilizedBody().getU(state)

    def getQDot(self, state: State) -> np.ndarray:
        """This mobilizer's qdot (available once Velocity-stage realization has computed it)."""
        sx = self._matter.getMySubsystemIndex()
        return state.updQDot(sx)[self._q_slice(state)].copy()

    def getMobilizerTransform(self, state: State) -> Transform:
        """X_FM as computed at the current Position-stage realization."""
        sx = self._matter.getMySubsystemIndex()
        pc = state.updCacheEntry(sx, self._matter._ix.position)
        b = self.getMobilizedBody().getMobilizedBodyIndex()
        return Transform(Rotation._from_matrix(pc.R_FM[b].copy()), pc.p_FM[b].copy())

    def getUseEulerAngles(self, state: State) -> bool:
        return self._matter.getUseEulerAngles(state)

    # ----------------------------------------------------------- kinematics
    def calcMobilizerTransformFromQ(self, state: State, q: np.ndarray) -> Transform:
        """X_FM for this mobilizer's q (nq values). Must be overridden."""
        raise NotImplementedError("a Custom implementation must define calcMobilizerTransformFromQ")

    def multiplyByHMatrix(self, state: State, u: np.ndarray):
        """V_FM = H u: [w_FM, v_FM] of Mo in F, shape (2, 3). Must be overridden."""
        raise NotImplementedError("a Custom implementation must define multiplyByHMatrix")

    def multiplyByHDotMatrix(self, state: State, u: np.ndarray):
        """(d/dt H) u, shape (2, 3) (so A_FM = H udot + HDot u). Must be overridden."""
        raise NotImplementedError("a Custom implementation must define multiplyByHDotMatrix")

    def _columns(self, state: State, fn, what: str) -> np.ndarray:
        cols = np.zeros((6, self._nu))
        for k in range(self._nu):
            e = np.zeros(self._nu)
            e[k] = 1.0
            cols[:, k] = as_spatial(fn(state, e), what)
        return cols

    def multiplyByHTranspose(self, state: State, F_FM) -> np.ndarray:
        """H^T F for a spatial force F (2, 3) in F: nu values (default from H's columns)."""
        H = self._columns(state, self.multiplyByHMatrix, "multiplyByHMatrix")
        return H.T @ as_spatial(F_FM, "F_FM")

    def multiplyByHDotTranspose(self, state: State, F_FM) -> np.ndarray:
        """HDot^T F (default from HDot's columns)."""
        Hd = self._columns(state, self.multiplyByHDotMatrix, "multiplyByHDotMatrix")
        return Hd.T @ as_spatial(F_FM, "F_FM")

    def _require_square(self, what: str) -> None:
        if self._nq != self._nu:
            raise NotImplementedError(
                f"Custom mobilizer with nq={self._nq} != nu={self._nu} must define {what}"
            )

    def multiplyByN(self, state: State, matrixOnRight: bool, inp) -> np.ndarray:
        """N x (x u-like; q-like result) or, with matrixOnRight, x N = N^T x (default I)."""
        self._require_square("multiplyByN")
        return np.array(inp, dtype=np.float64)

    def multiplyByNInv(self, state: State, matrixOnRight: bool, inp) -> np.ndarray:
        """NInv x (x q-like) or x NInv (default I)."""
        self._require_square("multiplyByNInv")
        return np.array(inp, dtype=np.float64)

    def multiplyByNDot(self, state: State, matrixOnRight: bool, inp) -> np.ndarray:
        """NDot x or x NDot (default 0)."""
        self._require_square("multiplyByNDot")
        return np.zeros(len(inp))

    # ------------------------------------------------------------ best fits
    def _fit_pose(self, state: State, q: np.ndarray, R_target, p_target) -> np.ndarray:
        """Levenberg-Marquardt on the differences of the rotation matrix and/or translation
        from the target, started from q and, if that does not reach
        the target, from q with quarter- and half-turn offsets of the angle coordinates."""
        q = np.array(q, dtype=np.float64)

        def error(qq):
            X = self.calcMobilizerTransformFromQ(state, qq)
            parts = []
            if R_target is not None:
                parts.append((np.asarray(X.R().asMat33()) - R_target).reshape(-1))
            if p_target is not None:
                parts.append(np.asarray(X.p(), dtype=np.float64) - p_target)
            return np.concatenate(parts)

        if q.shape[0] == 0:
            return q
        best_q, best_e = self._gauss_newton(error, q)
        offsets = (0.0, 0.5 * np.pi, -0.5 * np.pi, np.pi)
        n_angles = self._nangles if self._nangles < 4 else 0
        if best_e > 1e-12 and n_angles > 0:
            grids = np.meshgrid(*([offsets] * n_angles), indexing="ij")
            for combo in np.stack([g.reshape(-1) for g in grids], axis=1)[1:]:
                start = q.copy()
                start[:n_angles] += combo
                q_try, e_try = self._gauss_newton(error, start)
                if e_try < best_e:
                    best_q, best_e = q_try, e_try
                if best_e <= 1e-12:
                    break
        if self._nangles == 4 and not self.getUseEulerAngles(state):
            best_q[0:4] /= np.linalg.norm(best_q[0:4])
        return best_q

    def _gauss_newton(self, error, q: np.ndarray) -> tuple[np.ndarray, float]:
        """Levenberg-Marquardt from q (finite-difference Jacobian); (q, max |error|)."""
        h = 1e-7
        e = error(q)
        cost = float(e @ e)
        lam = -1.0
        for _ in range(200):
            if float(np.max(np.abs(e))) < 1e-15:
                break
            n = q.shape[0]
            J = np.empty((e.shape[0], n))
            for j in range(n):
                dq = np.zeros(n)
                dq[j] = h
                J[:, j] = (error(q + dq) - error(q - dq)) / (2 * h)
            JtJ, Jte = J.T @ J, J.T @ e
            if lam < 0.0:
                lam = 1e-3 * max(float(np.max(np.diag(JtJ))), 1e-12)
            for _ in range(40):
                step = np.linalg.solve(JtJ + lam * np.eye(n), -Jte)
                e_new = error(q + step)
                cost_new = float(e_new @ e_new)
                if cost_new < cost:
                    lam = max(lam / 3.0, 1e-15)
                    break
                lam *= 4.0
            else:
                break
            if not cost_new < cost:
                break
            q, e, cost = q + step, e_new, cost_new
        return q, float(np.max(np.abs(e)))

    def setQToFitTransform(self, state: State, X_FM, q: np.ndarray):
        """Best q (modify ``q``, which holds the current values, or return a new block)."""
        return self._fit_pose(state, q, np.asarray(X_FM.R().asMat33()), np.asarray(X_FM.p()))

    def setQToFitRotation(self, state: State, R_FM, q: np.ndarray):
        return self._fit_pose(state, q, np.asarray(R_FM.asMat33()), None)

    def setQToFitTranslation(self, state: State, p_FM, q: np.ndarray):
        return self._fit_pose(state, q, None, np.asarray(p_FM, dtype=np.float64))

    def _fit_velocity(self, state: State, u: np.ndarray, rows: slice, target) -> np.ndarray:
        H = self._columns(state, self.multiplyByHMatrix, "multiplyByHMatrix")[rows]
        u = np.array(u, dtype=np.float64)
        return u + np.linalg.lstsq(H, target - H @ u, rcond=None)[0]

    def setUToFitVelocity(self, state: State, V_FM, u: np.ndarray):
        """Best u for V_FM (least squares on H from the current u)."""
        return self._fit_velocity(state, u, slice(0, 6), as_spatial(V_FM, "V_FM"))

    def setUToFitAngularVelocity(self, state: State, w_FM, u: np.ndarray):
        return self._fit_velocity(state, u, slice(0, 3), np.asarray(w_FM, dtype=np.float64))

    def setUToFitLinearVelocity(self, state: State, v_FM, u: np.ndarray):
        return self._fit_velocity(state, u, slice(3, 6), np.asarray(v_FM, dtype=np.float64))


class Custom(MobilizedBody):
    """A mobilized body whose mobilizer is a Python ``Custom.Implementation``:
    ``Custom(parent, X_PF, body, X_BM, implementation)`` or ``Custom(parent, body,
    implementation)``."""

    Implementation = CustomImplementation

    def __init__(self, parent: MobilizedBody, *args, direction=None) -> None:
        if args and isinstance(args[-1], MobilizedBody.Direction):
            if direction is not None:
                raise InvalidArgumentError("MobilizedBody.Custom: the direction is given twice")
            direction, args = args[-1], args[:-1]
        if direction is None:
            direction = MobilizedBody.Forward
        if not isinstance(direction, (MobilizedBody.Direction, bool, int)) or int(
            direction
        ) not in (0, 1):
            raise InvalidArgumentError(
                "MobilizedBody.Custom: direction must be MobilizedBody.Forward or "
                f"MobilizedBody.Reverse, got {direction!r}"
            )
        if not args or not isinstance(args[-1], CustomImplementation):
            raise InvalidArgumentError(
                "MobilizedBody.Custom(parent, X_PF, body, X_BM, implementation) or "
                "(parent, body, implementation): the last argument must be a "
                "MobilizedBody.Custom.Implementation"
            )
        impl = args[-1]
        if impl._mobod is not None:
            raise InvalidArgumentError("this Custom implementation already has a MobilizedBody")
        if not isinstance(parent, MobilizedBody) or parent._matter is not impl._matter:
            raise InvalidArgumentError(
                "MobilizedBody.Custom: the implementation was made for another matter subsystem"
            )
        if len(args) not in (2, 4) or not isinstance(args[-2 if len(args) == 2 else 1], Body):
            raise InvalidArgumentError(
                "MobilizedBody.Custom(parent, X_PF, body, X_BM, implementation) or "
                "(parent, body, implementation)"
            )
        self._module = CustomMobilizerType(impl)
        self._impl = impl
        impl._mobod = self
        super().__init__(parent, *args[:-1], direction=int(direction))

    def getImplementation(self) -> CustomImplementation:
        return self._impl

    updImplementation = getImplementation

    # The fits call the implementation (they may need the State).
    def _custom_fit(self, state: State, level: str, method: str, value) -> None:
        matter, s, n, _ = self._fit_block(state, method, level)
        current = matter.getQ(state) if level == "q" else matter.getU(state)
        block = np.array(current[s : s + n], dtype=np.float64)
        result = getattr(self._impl, method)(state, value, block)
        new = block if result is None else np.asarray(result, dtype=np.float64).reshape(-1)
        if new.shape != (n,) or not np.all(np.isfinite(new)):
            raise InvalidArgumentError(f"Custom {method} gave an invalid {level}: {new}")
        (matter.updQ(state) if level == "q" else matter.updU(state))[s : s + n] = new

    def _current_X_MF(self, state: State) -> Transform:
        """A reversed mobilizer's X_MF = X(q) from the implementation at the State's q."""
        matter, s, _, _ = self._fit_block(state, "fit", "q")
        nq = matter._num_q_in_use(state, self._index)
        q = np.array(matter.getQ(state)[s : s + nq], dtype=np.float64)
        return self._impl.calcMobilizerTransformFromQ(state, q)

    def _current_w_MF(self, state: State) -> np.ndarray:
        """A reversed mobilizer's w_MF (in M) from the implementation's H at the State's u."""
        u = np.array(self.getU(state), dtype=np.float64)
        return as_spatial(self._impl.multiplyByHMatrix(state, u), "multiplyByHMatrix")[0:3]

    # A reversed mobilizer's implementation gives X_MF and V_MF (in M); the fits hand it the
    # reversed request, as Simbody's node wrappers do.
    def setQToFitTransform(self, state: State, X_FM) -> None:
        X = X_FM if isinstance(X_FM, Transform) else Transform(X_FM)
        self._custom_fit(state, "q", "setQToFitTransform", ~X if self._reversed else X)

    def setQToFitRotation(self, state: State, R_FM) -> None:
        R = R_FM if isinstance(R_FM, Rotation) else Rotation(R_FM)
        self._custom_fit(state, "q", "setQToFitRotation", ~R if self._reversed else R)

    def setQToFitTranslation(self, state: State, p_FM) -> None:
        p = np.asarray(p_FM, dtype=np.float64)
        if self._reversed:  # p_MF = -R_MF p_FM with the current rotation
            p = -(np.asarray(self._current_X_MF(state).R().asMat33()) @ p)
        self._custom_fit(state, "q", "setQToFitTranslation", p)

    def setUToFitVelocity(self, state: State, V_FM) -> None:
        V = as_spatial(V_FM, "V_FM").reshape(2, 3)
        if self._reversed:
            V = reverseRelativeVelocity(~self._current_X_MF(state), V)
        self._custom_fit(state, "u", "setUToFitVelocity", V)

    def setUToFitAngularVelocity(self, state: State, w_FM) -> None:
        w = np.asarray(w_FM, dtype=np.float64)
        if self._reversed:  # w_MF = -R_MF w_FM
            w = -(np.asarray(self._current_X_MF(state).R().asMat33()) @ w)
        self._custom_fit(state, "u", "setUToFitAngularVelocity", w)

    def setUToFitLinearVelocity(self, state: State, v_FM) -> None:
        v = np.asarray(v_FM, dtype=np.float64)
        if self._reversed:  # v_MF = -R_MF v_FM + w_MF x p_MF with the current w_MF
            X_MF = self._current_X_MF(state)
            R_MF = np.asarray(X_MF.R().asMat33())
            w_MF = self._current_w_MF(state)
            v = -(R_MF @ v) + np.cross(w_MF, np.asarray(X_MF.p(), dtype=np.float64))
        self._custom_fit(state, "u", "setUToFitLinearVelocity", v)


Custom.__qualname__ = "MobilizedBody.Custom"
MobilizedBody.Custom = Custom
