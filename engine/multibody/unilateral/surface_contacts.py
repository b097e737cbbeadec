"""Contacts between surfaces, with Coulomb friction: PointPlaneContact, SpherePlaneContact
and SphereSphereContact (Simbody's ConditionalConstraint.h).

Each gives perr = the signed gap along the contact normal, a normal row (the rate of the
gap) and two friction rows: the slip velocity, in the tangent plane, of the follower's
material point at the contact relative to the coincident material point of the other body.
Friction coefficients: mu_s (static), mu_d (dynamic, <= mu_s), mu_v (viscous, per m/s of
slip); the friction limit while slipping at speed v is (mu_d + mu_v v) times the normal
impulse.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.state import State
from engine.math.transform import Transform
from engine.math.vec import as_vec3
from engine.multibody.unilateral.unilateral_contact import (
    ContactRows,
    UnilateralContact,
    _finite,
    body_frame,
    check_friction,
    check_positive,
    mobod_of,
    station_rows,
    tangent_basis,
)


class _FrictionalContact(UnilateralContact):
    def __init__(self, minCOR, mu_s, mu_d, mu_v) -> None:  # noqa: N803
        super().__init__(1.0, minCOR)
        self._mu = check_friction(mu_s, mu_d, mu_v, type(self).__name__)

    def hasFriction(self, state: State | None = None) -> bool:
        return self._mu[0] > 0 or self._mu[1] > 0 or self._mu[2] > 0

    def getStaticFrictionCoef(self) -> float:
        return self._mu[0]

    def getDynamicFrictionCoef(self) -> float:
        return self._mu[1]

    def getViscousFrictionCoef(self) -> float:
        return self._mu[2]

    def setFrictionCoefficients(self, mu_s, mu_d, mu_v) -> None:
        self._mu = check_friction(
            mu_s, mu_d, mu_v, f"{type(self).__name__}.setFrictionCoefficients"
        )

    def _surface_rows(self, state, matter, b1, p1, b2, p2, n, t1, t2, perr) -> ContactRows:
        """Rows for body b1's point p1 and body b2's point p2 (Ground), normal n from 1 to 2."""
        dirs = [n, t1, t2] if self.hasFriction() else [n]
        rows = station_rows(
            matter, state, b1.getMobilizedBodyIndex(), p1, b2.getMobilizedBodyIndex(), p2, dirs
        )
        friction = rows[1:3].copy() if self.hasFriction() else None
        return ContactRows(perr, rows[0].copy(), friction, 0.5 * (p1 + p2))


class PointPlaneContact(_FrictionalContact):
    """``PointPlaneContact(planeBodyB, normal_B, height, followerBodyF, point_F, minCOR,
    mu_s, mu_d, mu_v)``: the follower's station point_F stays on the +normal side of the
    plane {x : normal_B . x = height} fixed in B."""

    def __init__(
        self, planeBody, normal_B, height, followerBody, point_F, minCOR, mu_s, mu_d, mu_v
    ):  # noqa: N803
        super().__init__(minCOR, mu_s, mu_d, mu_v)
        self._B = mobod_of(planeBody, "PointPlaneContact: planeBody")
        self._F = mobod_of(followerBody, "PointPlaneContact: followerBody")
        if self._B is self._F:
            raise InvalidArgumentError(
                "PointPlaneContact: the plane and the point must be on different bodies"
            )
        n = as_vec3(normal_B, "PointPlaneContact: normal")
        norm = float(np.linalg.norm(n))
        if norm == 0:
            raise InvalidArgumentError("PointPlaneContact: the plane normal must not be zero")
        self._n_B = n / norm
        self._h = _finite(height, "PointPlaneContact: height")
        self._p_F = as_vec3(point_F, "PointPlaneContact: point")

    def _bodies(self) -> list:
        return [self._B, self._F]

    def getPlaneBody(self):
        return self._B

    def getFollowerBody(self):
        return self._F

    def _rows(self, state: State, matter) -> ContactRows:
        R_GB, p_GB = body_frame(matter, state, self._B)
        R_GF, p_GF = body_frame(matter, state, self._F)
        n = R_GB @ self._n_B
        t1, t2 = tangent_basis(n)
        p = p_GF + R_GF @ self._p_F
        perr = float(n @ (p - p_GB)) - self._h
        return self._surface_rows(state, matter, self._B, p, self._F, p, n, t1, t2, perr)


class SpherePlaneContact(_FrictionalContact):
    """``SpherePlaneContact(planeBody, X_BP, sphereBody, p_SC, radius, minCOR, mu_s, mu_d,
    mu_v)``: a sphere of ``radius`` centred at station p_SC of the sphere body stays on the
    +z side of the x-y plane of frame P (placed on the plane body by X_BP)."""

    def __init__(self, planeBody, X_BP, sphereBody, p_SC, radius, minCOR, mu_s, mu_d, mu_v):  # noqa: N803
        super().__init__(minCOR, mu_s, mu_d, mu_v)
        self._B = mobod_of(planeBody, "SpherePlaneContact: planeBody")
        self._S = mobod_of(sphereBody, "SpherePlaneContact: sphereBody")
        if self._B is self._S:
            raise InvalidArgumentError(
                "SpherePlaneContact: the plane and the sphere must be on different bodies"
            )
        if not isinstance(X_BP, Transform):
            raise InvalidArgumentError(
                f"SpherePlaneContact: X_BP must be a Transform, got {type(X_BP).__name__}"
            )
        self._X_BP = X_BP
        self._R_BP = np.array(X_BP.R().asMat33(), dtype=float)
        self._p_BP = np.array(X_BP.p(), dtype=float)
        self._p_SC = as_vec3(p_SC, "SpherePlaneContact: sphere center")
        self._r = check_positive(radius, "SpherePlaneContact: radius")

    def _bodies(self) -> list:
        return [self._B, self._S]

    def getRadius(self) -> float:
        return self._r

    def getPlaneFrame(self) -> Transform:
        return self._X_BP

    def _rows(self, state: State, matter) -> ContactRows:
        R_GB, p_GB = body_frame(matter, state, self._B)
        R_GS, p_GS = body_frame(matter, state, self._S)
        R_GP = R_GB @ self._R_BP
        t1, t2, n = R_GP[:, 0], R_GP[:, 1], R_GP[:, 2]
        origin = p_GB + R_GB @ self._p_BP
        c = p_GS + R_GS @ self._p_SC
        perr = float(n @ (c - origin)) - self._r
        p = c - self._r * n
        return self._surface_rows(state, matter, self._B, p, self._S, p, n, t1, t2, perr)


class SphereSphereContact(_FrictionalContact):
    """``SphereSphereContact(mobod1, center1, radius1, mobod2, center2, radius2, minCOR,
    mu_s, mu_d, mu_v)``: two spheres (centres are stations on their bodies) do not overlap."""

    def __init__(
        self, mobod1, center1, radius1, mobod2, center2, radius2, minCOR, mu_s, mu_d, mu_v
    ):  # noqa: N803
        super().__init__(minCOR, mu_s, mu_d, mu_v)
        self._b1 = mobod_of(mobod1, "SphereSphereContact: mobod1")
        self._b2 = mobod_of(mobod2, "SphereSphereContact: mobod2")
        if self._b1 is self._b2:
            raise InvalidArgumentError(
                "SphereSphereContact: the spheres must be on different bodies"
            )
        self._c1 = as_vec3(center1, "SphereSphereContact: center1")
        self._c2 = as_vec3(center2, "SphereSphereContact: center2")
        self._r1 = check_positive(radius1, "SphereSphereContact: radius1")
        self._r2 = check_positive(radius2, "SphereSphereContact: radius2")

    def _bodies(self) -> list:
        return [self._b1, self._b2]

    def getRadii(self) -> tuple[float, float]:
        return self._r1, self._r2

    def _rows(self, state: State, matter) -> ContactRows:
        R1, p1 = body_frame(matter, state, self._b1)
        R2, p2 = body_frame(matter, state, self._b2)
        c1 = p1 + R1 @ self._c1
        c2 = p2 + R2 @ self._c2
        r = c2 - c1
        dist = float(np.linalg.norm(r))
        n = r / dist if dist > 0 else np.array([0.0, 0.0, 1.0])
        t1, t2 = tangent_basis(n)
        perr = dist - self._r1 - self._r2
        return self._surface_rows(
            state, matter, self._b1, c1 + self._r1 * n, self._b2, c2 - self._r2 * n, n, t1, t2, perr
        )
