"""MobilizedBody setQToFit* / setUToFit*: set a mobilizer's q or u to the best fit of a desired
mobilizer pose X_FM or velocity V_FM (a mixin of MobilizedBody).

The per-type fitting lives beside each mobilizer's kernels (``fit_q_rotation``,
``fit_q_translation``, ``fit_u_angular``, ``fit_u_linear``; see ``mobilizers/fit.py``). As in
Simbody, a mobilizer reproduces only what its freedoms can: the q or u a fit does not concern
keep their values, and fitting a whole transform is the rotation fit followed by the
translation fit (velocity: angular then linear).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.math.transform import Transform
from engine.math.vec import as_vec3
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

    @staticmethod
    def _rotation(R_FM, what: str) -> np.ndarray:
        try:
            R = rotation_matrix(R_FM)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"{what}: expected a Rotation or 3x3 matrix") from exc
        if not np.all(np.isfinite(R)):
            raise InvalidArgumentError(f"{what}: the rotation must be finite")
        return R

    @staticmethod
    def _spatial(V, what: str) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray(V, dtype=np.float64)
        if arr.size != 6:
            raise InvalidArgumentError(
                f"{what}: expected a spatial vector [angular, linear] of shape (2, 3), "
                f"got shape {arr.shape}"
            )
        arr = arr.reshape(2, 3)
        if not np.all(np.isfinite(arr)):
            raise InvalidArgumentError(f"{what}: values must be finite")
        return arr[0].copy(), arr[1].copy()

    # ------------------------------------------------------------------ q
    def setQToFitRotation(self, state: State, R_FM) -> None:
        """Set q to best reproduce the mobilizer rotation R_FM (Rotation or 3x3)."""
        R = self._rotation(R_FM, "setQToFitRotation")
        self._write_q(state, "setQToFitRotation", "fit_q_rotation", R)

    def setQToFitTranslation(self, state: State, p_FM) -> None:
        """Set q to best reproduce the mobilizer translation p_FM (Mo from Fo, in F, m)."""
        p = as_vec3(p_FM, "p_FM")
        self._write_q(state, "setQToFitTranslation", "fit_q_translation", p)

    def setQToFitTransform(self, state: State, X_FM) -> None:
        """Set q to best reproduce X_FM: the rotation fit, then the translation fit."""
        X = X_FM if isinstance(X_FM, Transform) else Transform(X_FM)
        self.setQToFitRotation(state, X.R())
        self.setQToFitTranslation(state, X.p())

    # ------------------------------------------------------------------ u
    def setUToFitAngularVelocity(self, state: State, w_FM) -> None:
        """Set u to best reproduce the angular velocity w_FM of M in F (in F, rad/s)."""
        w = as_vec3(w_FM, "w_FM")
        self._write_u(state, "setUToFitAngularVelocity", "fit_u_angular", w)

    def setUToFitLinearVelocity(self, state: State, v_FM) -> None:
        """Set u to best reproduce the velocity v_FM of Mo in F (in F, m/s)."""
        v = as_vec3(v_FM, "v_FM")
        self._write_u(state, "setUToFitLinearVelocity", "fit_u_linear", v)

    def setUToFitVelocity(self, state: State, V_FM) -> None:
        """Set u to best reproduce V_FM = [w_FM, v_FM]: the angular fit, then the linear."""
        w, v = self._spatial(V_FM, "setUToFitVelocity")
        self.setUToFitAngularVelocity(state, w)
        self.setUToFitLinearVelocity(state, v)
