"""MobilizedBody setQToFit* / setUToFit*: set a mobilizer's q or u to the best fit of a desired
mobilizer pose X_FM or velocity V_FM (a mixin of MobilizedBody).

The per-type fitting lives beside each mobilizer's kernels (``fit_q_rotation``,
``fit_q_translation``, ``fit_u_angular``, ``fit_u_linear``; see ``mobilizers/fit.py``). As in
Simbody, a mobilizer reproduces only what its freedoms can: the q or u a fit does not concern
keep their values, and fitting a whole transform is the rotation fit followed by the
translation fit (velocity: angular then linear). A reversed mobilizer (whose q and u give X_MF
and V_MF) fits the inverse pose ~X_FM and the reversed velocity, as Simbody does; the fits of a
translation alone or a linear velocity alone then use the current rotation (and angular
velocity).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_array
from engine.common.stage import Stage
from engine.math.transform import Transform
from engine.math.vec import as_vec3
from engine.multibody.mobilizers.dispatch import h_fm_any, x_fm_any
from engine.multibody.mobilizers.fit import rotation_matrix

if TYPE_CHECKING:
    from engine.common.state import State


class MobilizedBodyFitMixin:
    """setQToFitTransform/Rotation/Translation and setUToFitVelocity/AngularVelocity/
    LinearVelocity."""

    def _fit_block(self, state: State, what: str, level: str):
        """(module, matter, block start, block size, euler) after the checks."""
        if self._module is None:
            raise InvalidArgumentError(f"{what}: Ground has no mobilizer to fit")
        matter = self._matter
        matter._require(state, Stage.Model, what)
        topo = matter._topo(state)
        b = self._index
        if level == "q":
            return matter, int(topo.qs[b]), int(topo.nqs[b]), matter.getUseEulerAngles(state)
        return matter, int(topo.us[b]), int(topo.nus[b]), matter.getUseEulerAngles(state)

    def _write_q(self, state: State, what: str, fit_name: str, value) -> None:
        matter, s, n, euler = self._fit_block(state, what, "q")
        fit = getattr(self._module, fit_name)
        q = np.array(matter.getQ(state)[s : s + n], dtype=np.float64)
        fit(q, self._params, euler, value)
        if not np.all(np.isfinite(q)):
            raise InvalidArgumentError(f"{what}: the fit gave non-finite q {q.tolist()}")
        matter.updQ(state)[s : s + n] = q

    def _write_u(self, state: State, what: str, fit_name: str, value) -> None:
        matter, s, n, euler = self._fit_block(state, what, "u")
        fit = getattr(self._module, fit_name)
        _, qs, nq, _ = self._fit_block(state, what, "q")
        q = np.array(matter.getQ(state)[qs : qs + nq], dtype=np.float64)
        u = np.array(matter.getU(state)[s : s + n], dtype=np.float64)
        fit(q, u, self._params, euler, value)
        if not np.all(np.isfinite(u)):
            raise InvalidArgumentError(f"{what}: the fit gave non-finite u {u.tolist()}")
        matter.updU(state)[s : s + n] = u

    def _current_reversed_motion(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(R_MF, p_MF, w_MF) of this reversed mobilizer from the State's q and u."""
        matter, qs, nq, euler = self._fit_block(state, "fit", "q")
        _, us, nu, _ = self._fit_block(state, "fit", "u")
        q = np.array(matter.getQ(state)[qs : qs + nq], dtype=np.float64)
        u = np.array(matter.getU(state)[us : us + nu], dtype=np.float64)
        t = int(self._module.TYPE_ID)  # the forward type: X_MF(q), V_MF = H_MF u
        R = np.zeros((3, 3))
        p = np.zeros(3)
        H = np.zeros((6, nu))
        x_fm_any(t, q, self._params, bool(euler), R, p)
        h_fm_any(t, q, self._params, bool(euler), R, p, H)
        return R, p, (H @ u)[0:3]

    @staticmethod
    def _rotation(R_FM, what: str) -> np.ndarray:
        if not hasattr(R_FM, "asMat33"):
            R_FM = real_array(R_FM, f"{what}: R_FM", "a Rotation or 3x3 matrix")
        try:
            R = rotation_matrix(R_FM)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"{what}: R_FM: expected a Rotation or 3x3 matrix") from exc
        if not np.all(np.isfinite(R)):
            raise InvalidArgumentError(f"{what}: the rotation must be finite")
        return R

    @staticmethod
    def _spatial(V, what: str) -> tuple[np.ndarray, np.ndarray]:
        arr = real_array(V, what, "a spatial vector [angular, linear] of shape (2, 3)")
        if arr.size != 6:
            raise InvalidArgumentError(
                f"{what}: expected a spatial vector [angular, linear] of shape (2, 3), "
                f"got shape {arr.shape}"
            )
        arr = arr.reshape(2, 3)
        if not np.all(np.isfinite(arr)):
            raise InvalidArgumentError(f"{what}: values must be finite")
        return arr[0].copy(), arr[1].copy()

    def _write_reversed_linear(self, state: State, what: str, R_MF, p_MF, w_MF, v_FM) -> None:
        """Fit v_MF, the velocity of Fo in M (in M), from the desired v_FM: with
        w_FM = -R_FM w_MF, v_FM = -R_FM (v_MF - w_MF x p_MF)."""
        v_MF = -(R_MF @ v_FM) + np.cross(w_MF, p_MF)
        self._write_u(state, what, "fit_u_linear", v_MF)

    # ------------------------------------------------------------------ q
    def setQToFitRotation(self, state: State, R_FM) -> None:
        """Set q to best reproduce the mobilizer rotation R_FM (Rotation or 3x3)."""
        R = self._rotation(R_FM, "setQToFitRotation")
        if self._reversed:
            R = R.T.copy()
        self._write_q(state, "setQToFitRotation", "fit_q_rotation", R)

    def setQToFitTranslation(self, state: State, p_FM) -> None:
        """Set q to best reproduce the mobilizer translation p_FM (Mo from Fo, in F, m)."""
        p = as_vec3(p_FM, "p_FM")
        if self._reversed:
            R_MF = self._current_reversed_motion(state)[0]
            p = -(R_MF @ p)
        self._write_q(state, "setQToFitTranslation", "fit_q_translation", p)

    def setQToFitTransform(self, state: State, X_FM) -> None:
        """Set q to best reproduce X_FM: the rotation fit, then the translation fit."""
        X = X_FM if isinstance(X_FM, Transform) else Transform(X_FM)
        if self._reversed:
            X_MF = ~X
            self._write_q(state, "setQToFitTransform", "fit_q_rotation", X_MF.R().asMat33())
            self._write_q(state, "setQToFitTransform", "fit_q_translation", X_MF.p())
            return
        self.setQToFitRotation(state, X.R())
        self.setQToFitTranslation(state, X.p())

    # ------------------------------------------------------------------ u
    def setUToFitAngularVelocity(self, state: State, w_FM) -> None:
        """Set u to best reproduce the angular velocity w_FM of M in F (in F, rad/s)."""
        w = as_vec3(w_FM, "w_FM")
        if self._reversed:
            w = -(self._current_reversed_motion(state)[0] @ w)
        self._write_u(state, "setUToFitAngularVelocity", "fit_u_angular", w)

    def setUToFitLinearVelocity(self, state: State, v_FM) -> None:
        """Set u to best reproduce the velocity v_FM of Mo in F (in F, m/s)."""
        v = as_vec3(v_FM, "v_FM")
        if self._reversed:
            R_MF, p_MF, w_MF = self._current_reversed_motion(state)
            self._write_reversed_linear(state, "setUToFitLinearVelocity", R_MF, p_MF, w_MF, v)
            return
        self._write_u(state, "setUToFitLinearVelocity", "fit_u_linear", v)

    def setUToFitVelocity(self, state: State, V_FM) -> None:
        """Set u to best reproduce V_FM = [w_FM, v_FM]: the angular fit, then the linear."""
        w, v = self._spatial(V_FM, "setUToFitVelocity")
        if self._reversed:
            R_MF, p_MF, _ = self._current_reversed_motion(state)
            w_MF = -(R_MF @ w)
            self._write_u(state, "setUToFitVelocity", "fit_u_angular", w_MF)
            self._write_reversed_linear(state, "setUToFitVelocity", R_MF, p_MF, w_MF, v)
            return
        self.setUToFitAngularVelocity(state, w)
        self.setUToFitLinearVelocity(state, v)
