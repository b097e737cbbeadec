"""System momentum, mass-center motion and central inertia of SimbodyMatterSubsystem.

Everything is measured and expressed in Ground. Spatial momentum is [angular, linear]
(kg m^2/s, kg m/s); "about the Ground origin" or "central" (about the system mass center C)
says which point the angular momentum is taken about.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.state import State
from engine.math.inertia import Inertia, point_mass_matrix
from engine.multibody.kernels.momentum import (
    mass_weighted_com_acceleration,
    system_momentum_about_ground_origin,
)


class MomentumMixin:
    """calcSystemMomentumAboutGroundOrigin, calcSystemCentralMomentum, mass-center velocity
    and acceleration, calcSystemCentralInertiaInGround."""

    def _total_mass(self, what: str) -> float:
        m = float(self._topo().mass[1:].sum())
        if m == 0.0:
            raise InvalidArgumentError(f"{what}: the system has no mass, so no mass center")
        return m

    def calcSystemMomentumAboutGroundOrigin(self, state: State) -> np.ndarray:
        """[angular momentum about the Ground origin, linear momentum] (2, 3) (Velocity stage)."""
        self._require_velocity_kinematics(state, "calcSystemMomentumAboutGroundOrigin")
        pc = self._position_cache(state)
        vc = self._velocity_cache(state)
        return system_momentum_about_ground_origin(pc.p_GB, pc.Phi_G, vc.V_GB).reshape(2, 3)

    def calcSystemCentralMomentum(self, state: State) -> np.ndarray:
        """[angular momentum about the system mass center, linear momentum] (2, 3) (Velocity
        stage). A massless system has none: both parts are zero."""
        self._require_velocity_kinematics(state, "calcSystemCentralMomentum")
        h = self.calcSystemMomentumAboutGroundOrigin(state)
        if float(self._topo().mass[1:].sum()) == 0.0:
            return np.zeros((2, 3))
        p_GC = self.calcSystemMassCenterLocationInGround(state)
        h[0] -= np.cross(p_GC, h[1])
        return h

    def calcSystemMassCenterVelocityInGround(self, state: State) -> np.ndarray:
        """Velocity of the system mass center in G (m/s) (Velocity stage)."""
        what = "calcSystemMassCenterVelocityInGround"
        self._require_velocity_kinematics(state, what)
        m = self._total_mass(what)
        return self.calcSystemMomentumAboutGroundOrigin(state)[1] / m

    def calcSystemMassCenterAccelerationInGround(self, state: State) -> np.ndarray:
        """Acceleration of the system mass center in G (m/s^2) (Acceleration stage)."""
        what = "calcSystemMassCenterAccelerationInGround"
        self._require(state, Stage.Acceleration, what)
        m = self._total_mass(what)
        topo = self._topo()
        pc = self._position_cache(state)
        vc = self._velocity_cache(state)
        ac = self._acceleration_cache(state)
        return mass_weighted_com_acceleration(topo.mass, pc.com_G, vc.V_GB, ac.A_GB) / m

    def calcSystemCentralInertiaInGround(self, state: State) -> Inertia:
        """Inertia of the whole system about its mass center, in G (kg m^2) (Position stage)."""
        what = "calcSystemCentralInertiaInGround"
        self._require_position_kinematics(state, what)
        m = self._total_mass(what)
        mp = self.calcSystemMassPropertiesInGround(state)
        I_O = mp.getInertia().toMat33()
        return Inertia(I_O - point_mass_matrix(mp.getMassCenter(), m))
