"""Mobilizer-specific accessors of Simbody's MobilizedBody subclasses: Pin's angle,
Slider's length, Translation's translation and Ellipsoid's default radii, by their Simbody
names.

Each is the generic q/u accessor of the mobilizer written in its own terms (angle in rad,
length in m, rates in rad/s or m/s, translation p_FM in F).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vec3
from engine.multibody.mobilizers.params import ELLIPSOID_RADII


def _one_coordinate(noun: str) -> dict:
    """set/get{noun}, setDefault{noun}/getDefault{noun}, setRate/getRate, getAcceleration
    for a one-coordinate mobilizer (q = u)."""

    def set_value(self, state, value: float) -> None:
        self.setOneQ(state, 0, value)

    def get_value(self, state) -> float:
        return self.getOneQ(state, 0)

    def set_default(self, value: float):
        return self.setDefaultQ([float(value)])

    def get_default(self) -> float:
        return float(self.getDefaultQ()[0])

    def set_rate(self, state, rate: float) -> None:
        self.setOneU(state, 0, rate)

    def get_rate(self, state) -> float:
        return self.getOneU(state, 0)

    def get_acceleration(self, state) -> float:
        return float(self.getUDot(state)[0])

    return {
        f"set{noun}": set_value,
        f"get{noun}": get_value,
        f"setDefault{noun}": set_default,
        f"getDefault{noun}": get_default,
        "setRate": set_rate,
        "getRate": get_rate,
        "getAcceleration": get_acceleration,
    }


def _translation() -> dict:
    def set_translation(self, state, p_FM) -> None:
        self.setQ(state, np.asarray(p_FM, dtype=np.float64))

    def get_translation(self, state) -> np.ndarray:
        return np.array(self.getQ(state))

    def set_default_translation(self, p_FM):
        return self.setDefaultQ(np.asarray(p_FM, dtype=np.float64))

    def get_default_translation(self) -> np.ndarray:
        return np.array(self.getDefaultQ())

    def set_velocity(self, state, v_FM) -> None:
        self.setU(state, np.asarray(v_FM, dtype=np.float64))

    def get_velocity(self, state) -> np.ndarray:
        return np.array(self.getU(state))

    def get_acceleration(self, state) -> np.ndarray:
        return np.array(self.getUDot(state))

    return {
        "setTranslation": set_translation,
        "getTranslation": get_translation,
        "setDefaultTranslation": set_default_translation,
        "getDefaultTranslation": get_default_translation,
        "setVelocity": set_velocity,
        "getVelocity": get_velocity,
        "getAcceleration": get_acceleration,
    }


def _ellipsoid() -> dict:
    def set_default_radii(self, radii):
        """Semi-axes (a, b, c) along Fx, Fy, Fz (m), positive; a topology change."""
        r = as_vec3(radii, "radii")
        if not np.all(r > 0):
            raise InvalidArgumentError(
                f"MobilizedBody.Ellipsoid.setDefaultRadii: radii must be positive, got {r}"
            )
        params = self._params.copy()  # (a body's params array is replaced, never written)
        params[ELLIPSOID_RADII] = r
        self._params = params
        self._matter._invalidate_body_row(self._index)
        return self

    def get_default_radii(self) -> np.ndarray:
        return np.array(self._params[ELLIPSOID_RADII])

    return {"setDefaultRadii": set_default_radii, "getDefaultRadii": get_default_radii}


#: mobilizer type name -> the accessors its MobilizedBody subclass gets
ACCESSORS = {
    "Pin": _one_coordinate("Angle"),
    "Slider": _one_coordinate("Length"),
    "Translation": _translation(),
    "Ellipsoid": _ellipsoid(),
}
