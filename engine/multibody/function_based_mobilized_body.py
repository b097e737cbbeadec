"""MobilizedBody.FunctionBased: a mobilizer whose six spatial coordinates are Functions of q.

Port of Simbody's ``MobilizedBody::FunctionBased(parent, X_PF, body, X_BM, nmobilities,
functions, coordIndices[, axes])``: ``functions[0..2]`` give three rotation angles (rad)
about ``axes[0..2]``, applied in order, each about its axis in the frame rotated by the
ones before (a body-fixed sequence; default axes x, y, z); ``functions[3..5]`` give the
translations (m) along ``axes[3..5]`` of F (default x, y, z). Function i takes the q listed
in ``coordIndices[i]`` (a Function of argument size 0, such as ``Function.Constant(0, 0)``,
takes none). There are ``nmobilities`` q and as many u, with qdot = u. Built on
MobilizedBody.Custom, with H and HDot from the functions' first and second derivatives:

* w_FM = sum_k thetadot_k e_k, e_k = R_0..R_(k-1) a_k, thetadot_k = grad f_k . u;
* v_FM = sum_k tdot_k a_(3+k);
* HDot u adds the second derivatives u^T Hess f u and the turning axes
  edot_k = (sum_(m<k) thetadot_m e_m) x e_k.

A last argument ``MobilizedBody.Reverse`` (or ``direction=``) reverses it as Simbody does: the
functions then give X_MF (the pose of the parent's F in the body's M) and the body moves with
X_FM = ~X_MF (see MobilizedBody.Custom).
"""

from __future__ import annotations

import numpy as np

from engine.common.count_arg import count_value
from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.math.function import Function
from engine.math.rotation import Rotation
from engine.math.transform import Transform
from engine.multibody.body import Body
from engine.multibody.custom_mobilized_body import Custom, CustomImplementation
from engine.multibody.mobilized_body import MobilizedBody

_DEFAULT_AXES = np.eye(3).tolist() * 2


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` about the unit ``axis`` (Rodrigues)."""
    x, y, z = axis
    K = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * (K @ K)


class _FunctionBasedImplementation(CustomImplementation):
    def __init__(self, matter, nmobilities, functions, coordIndices, axes) -> None:
        super().__init__(matter, nmobilities, nmobilities, 0)
        self._f = functions
        self._ix = coordIndices
        self._axes = axes

    def _args(self, i: int, q: np.ndarray) -> np.ndarray:
        return np.asarray(q, dtype=np.float64)[self._ix[i]]

    def _grad(self, i: int, q: np.ndarray) -> np.ndarray:
        """d f_i / dq (n,)."""
        g = np.zeros(self._nq)
        x = self._args(i, q)
        for k, j in enumerate(self._ix[i]):
            g[j] += self._f[i].calcDerivative([k], x)
        return g

    def _second(self, i: int, q: np.ndarray, u: np.ndarray) -> float:
        """u^T (d2 f_i / dq2) u."""
        x = self._args(i, q)
        ux = u[self._ix[i]]
        n = len(self._ix[i])
        return float(
            sum(
                self._f[i].calcDerivative([a, b], x) * ux[a] * ux[b]
                for a in range(n)
                for b in range(n)
            )
        )

    def _rotation_axes(self, q: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """(R_FM, [e_0, e_1, e_2]) with e_k the k-th rotation axis in F."""
        R = np.eye(3)
        axes = []
        for k in range(3):
            a = self._axes[k]
            axes.append(R @ a)
            R = R @ _axis_rotation(a, self._f[k].calcValue(self._args(k, q)))
        return R, axes

    def calcMobilizerTransformFromQ(self, state, q) -> Transform:
        R, _ = self._rotation_axes(q)
        p = sum(
            self._f[3 + k].calcValue(self._args(3 + k, q)) * self._axes[3 + k] for k in range(3)
        )
        return Transform(Rotation._from_matrix(R), np.asarray(p, dtype=np.float64))

    def multiplyByHMatrix(self, state, u):
        q = np.array(self.getQ(state))
        u = np.asarray(u, dtype=np.float64)
        _, e = self._rotation_axes(q)
        w = sum((self._grad(k, q) @ u) * e[k] for k in range(3))
        v = sum((self._grad(3 + k, q) @ u) * self._axes[3 + k] for k in range(3))
        return np.array([w, v])

    def multiplyByHDotMatrix(self, state, u):
        q = np.array(self.getQ(state))
        qdot = np.array(self.getMobilizedBody().getU(state))  # qdot = u
        u = np.asarray(u, dtype=np.float64)
        _, e = self._rotation_axes(q)
        rates = [self._grad(k, q) @ qdot for k in range(3)]
        w = np.zeros(3)
        w_before = np.zeros(3)
        for k in range(3):
            # d/dt (grad f_k(q) . u) with u held: u^T Hess f_k qdot
            x = self._args(k, q)
            ix = self._ix[k]
            n = len(ix)
            hess = sum(
                self._f[k].calcDerivative([a, b], x) * u[ix[a]] * qdot[ix[b]]
                for a in range(n)
                for b in range(n)
            )
            w += hess * e[k] + (self._grad(k, q) @ u) * np.cross(w_before, e[k])
            w_before = w_before + rates[k] * e[k]
        v = np.zeros(3)
        for k in range(3):
            x = self._args(3 + k, q)
            ix = self._ix[3 + k]
            n = len(ix)
            hess = sum(
                self._f[3 + k].calcDerivative([a, b], x) * u[ix[a]] * qdot[ix[b]]
                for a in range(n)
                for b in range(n)
            )
            v += hess * self._axes[3 + k]
        return np.array([w, v])


class FunctionBased(Custom):
    """``FunctionBased(parent, [X_PF,] body, [X_BM,] nmobilities, functions, coordIndices
    [, axes] [, direction])``, Simbody's four constructors (the frames default to identity):
    see the module docstring."""

    def __init__(self, parent, *args, direction=None) -> None:
        what = "MobilizedBody.FunctionBased"
        args = list(args)
        if args and isinstance(args[-1], MobilizedBody.Direction):
            if direction is not None:
                raise InvalidArgumentError(f"{what}: the direction is given twice")
            direction = args.pop()
        if args and isinstance(args[0], Body):  # (parent, body, nmobilities, ...)
            args = [Transform(), args[0], Transform(), *args[1:]]
        if len(args) not in (6, 7) or not isinstance(args[1], Body):
            raise InvalidArgumentError(
                f"{what}(parent, [X_PF,] body, [X_BM,] nmobilities, functions, coordIndices"
                "[, axes][, direction])"
            )
        X_PF, body, X_BM, nmobilities, functions, coordIndices = args[:6]
        axes = args[6] if len(args) == 7 else None
        n = count_value(nmobilities, f"{what}: nmobilities", 1)
        if not 1 <= n <= 6:
            raise InvalidArgumentError(f"{what}: nmobilities must be 1..6, got {nmobilities}")
        functions = list(functions)
        where = f"{what}: coordIndices"
        coordIndices = [[index_value(j, where) for j in ix] for ix in coordIndices]
        if len(functions) != 6 or len(coordIndices) != 6:
            raise InvalidArgumentError(
                f"{what}: needs 6 functions and 6 coordinate index lists (3 rotations, then 3 "
                f"translations), got {len(functions)} and {len(coordIndices)}"
            )
        for i, (f, ix) in enumerate(zip(functions, coordIndices, strict=True)):
            if not isinstance(f, Function) or f.getArgumentSize() != len(ix):
                raise InvalidArgumentError(
                    f"{what}: function {i} must be a Function taking {len(ix)} argument(s)"
                )
            if any(not 0 <= j < n for j in ix):
                raise InvalidArgumentError(
                    f"{what}: coordIndices[{i}] = {ix} names a q outside 0..{n - 1}"
                )
        axes = _DEFAULT_AXES if axes is None else list(axes)
        if len(axes) != 6:
            raise InvalidArgumentError(f"{what}: needs 6 axes, got {len(axes)}")
        unit = []
        for a in axes:
            a = a.asVec3() if hasattr(a, "asVec3") else a  # (a CoordinateAxis or -Direction)
            a = np.asarray(a, dtype=np.float64).reshape(3)
            norm = float(np.linalg.norm(a))
            if not np.isfinite(norm) or norm == 0:
                raise InvalidArgumentError(f"{what}: axes must be finite and nonzero, got {a}")
            unit.append(a / norm)
        impl = _FunctionBasedImplementation(parent._matter, n, functions, coordIndices, unit)
        super().__init__(parent, X_PF, body, X_BM, impl, direction=direction)


MobilizedBody.FunctionBased = FunctionBased
