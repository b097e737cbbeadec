"""SmoothSphereHalfSpaceForce: Simbody 3.7's smooth Hunt-Crossley contact between one sphere
and one half space (a Force element of a GeneralForceSubsystem)."""

from __future__ import annotations

import math

import numpy as np

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError, StageTooLowError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.forces.force import Force
from engine.forces.hollars_friction import hollars_friction_coefficient
from engine.math.transform import Transform

#: Simbody 3.7's defaults of setParameters' arguments
_DEFAULTS = {
    "stiffness": 1.0,
    "dissipation": 0.0,
    "staticFriction": 0.0,
    "dynamicFriction": 0.0,
    "viscousFriction": 0.0,
    "transitionVelocity": 0.01,
    "cf": 1e-5,
    "bd": 300.0,
    "bv": 50.0,
}


class SmoothSphereHalfSpaceForce(Force):
    """SmoothSphereHalfSpaceForce(forces): a sphere on one body against a half space on another,
    with forces that are smooth functions of the state (for optimization), after Simbody 3.7.

    Geometry: a sphere of radius r (m) centred at station ``p_BS`` of the sphere body, and a
    half space occupying ``x > 0`` of frame H on the half-space body (``X_BH``); ``n = Hx`` in
    G points into the half space. With the indentation ``x = (c - o_H)·n + r`` (c the sphere
    centre in G) and the contact point ``P = c + r n - (x/2) n``:

    * Hertz: ``k = E^(2/3) / 2``, ``fh = (4/3) k sqrt(r k) (x^2 + cf)^(3/4) (1 + tanh(bd x))/2``
      (E the stiffness, N/m^2); potential energy ``(2/5) fh x`` (Simbody's approximation).
    * Hunt-Crossley: ``fhc = fh (1 + (3/2) c vn) (1 + tanh(bv (vn + 2/(3c))))/2`` with
      ``v = v_sphere(P) - v_halfspace(P)``, ``vn = v·n``, c the dissipation (s/m).
    * Friction: ``vs = sqrt(|vT|^2 + cf)``, ``F = fhc n + fhc mu vT/vs`` with Hollars' ``mu``
      (static, dynamic, viscous coefficients and transition velocity vt).

    The half-space body gets ``+F`` at P and the sphere body ``-F``. The force never vanishes
    exactly, even with the surfaces apart. Parameters and geometry are part of the model: a
    setter is a Topology change (``system.realizeTopology()`` again). Set the two bodies and
    the radius before realizing Topology. The potential energy depends only on positions, so
    it is available from Position stage on.
    """

    def __init__(self, forces) -> None:
        self._bind(forces)
        self._sphere_body = None
        self._half_space_body = None
        self._sphere_radius: float | None = None
        self._sphere_location = np.zeros(3)
        self._half_space_frame = Transform()
        super().__init__(forces, dict(_DEFAULTS))

    # ------------------------------------------------------------------ parameters
    def _positive(self, value, what: str) -> float:
        x = self._real(value, what)
        if x <= 0:
            raise NonPhysicalError(f"{self._where()}: {what} must be > 0, got {x}")
        return x

    def setParameters(
        self,
        stiffness: float,
        dissipation: float,
        staticFriction: float,
        dynamicFriction: float,
        viscousFriction: float,
        transitionVelocity: float,
        cf: float,
        bd: float,
        bv: float,
    ) -> None:
        """Set every contact parameter (all checked before any changes): stiffness E > 0
        (plain strain modulus, N/m^2), dissipation c >= 0 (s/m), friction coefficients >= 0
        (viscous in s/m), transition velocity > 0 (m/s), cf >= 0 (smoothing constant),
        bd >= 0 and bv >= 0 (tanh steepness of the Hertz and Hunt-Crossley transitions)."""
        values = {
            "stiffness": self._positive(stiffness, "stiffness"),
            "dissipation": self._nonnegative(dissipation, "dissipation"),
            "staticFriction": self._nonnegative(staticFriction, "static friction"),
            "dynamicFriction": self._nonnegative(dynamicFriction, "dynamic friction"),
            "viscousFriction": self._nonnegative(viscousFriction, "viscous friction"),
            "transitionVelocity": self._positive(transitionVelocity, "transition velocity"),
            "cf": self._nonnegative(cf, "constant contact force cf"),
            "bd": self._nonnegative(bd, "Hertz smoothing bd"),
            "bv": self._nonnegative(bv, "Hunt-Crossley smoothing bv"),
        }
        self._set_default(**values)

    def setStiffness(self, stiffness: float) -> None:
        """Plain strain modulus E > 0, N/m^2 (default 1)."""
        self._set_default(stiffness=self._positive(stiffness, "stiffness"))

    def setDissipation(self, dissipation: float) -> None:
        """Dissipation coefficient c >= 0, s/m (default 0)."""
        self._set_default(dissipation=self._nonnegative(dissipation, "dissipation"))

    def setStaticFriction(self, staticFriction: float) -> None:
        self._set_default(staticFriction=self._nonnegative(staticFriction, "static friction"))

    def setDynamicFriction(self, dynamicFriction: float) -> None:
        self._set_default(dynamicFriction=self._nonnegative(dynamicFriction, "dynamic friction"))

    def setViscousFriction(self, viscousFriction: float) -> None:
        self._set_default(viscousFriction=self._nonnegative(viscousFriction, "viscous friction"))

    def setTransitionVelocity(self, transitionVelocity: float) -> None:
        """Transition velocity vt > 0 of the friction curve, m/s (default 0.01)."""
        self._set_default(
            transitionVelocity=self._positive(transitionVelocity, "transition velocity")
        )

    def setConstantContactForce(self, cf: float) -> None:
        """The constant cf >= 0 that keeps the derivatives nonzero (default 1e-5)."""
        self._set_default(cf=self._nonnegative(cf, "constant contact force cf"))

    def setHertzSmoothing(self, bd: float) -> None:
        """Steepness bd >= 0 of the tanh switching the Hertz force on (default 300)."""
        self._set_default(bd=self._nonnegative(bd, "Hertz smoothing bd"))

    def setHuntCrossleySmoothing(self, bv: float) -> None:
        """Steepness bv >= 0 of the tanh switching the Hunt-Crossley force on (default 50)."""
        self._set_default(bv=self._nonnegative(bv, "Hunt-Crossley smoothing bv"))

    def getStiffness(self) -> float:
        return self._defaults["stiffness"]

    def getDissipation(self) -> float:
        return self._defaults["dissipation"]

    def getStaticFriction(self) -> float:
        return self._defaults["staticFriction"]

    def getDynamicFriction(self) -> float:
        return self._defaults["dynamicFriction"]

    def getViscousFriction(self) -> float:
        return self._defaults["viscousFriction"]

    def getTransitionVelocity(self) -> float:
        return self._defaults["transitionVelocity"]

    def getConstantContactForce(self) -> float:
        return self._defaults["cf"]

    def getHertzSmoothing(self) -> float:
        return self._defaults["bd"]

    def getHuntCrossleySmoothing(self) -> float:
        return self._defaults["bv"]

    # ------------------------------------------------------------------ geometry
    def setContactSphereBody(self, bodyInput1) -> None:
        """The MobilizedBody that carries the sphere."""
        self._sphere_body = self._check_mobod(bodyInput1, "sphere body")
        self._forces.invalidateSubsystemTopologyCache()

    def setContactSphereLocationInBody(self, locationSphere) -> None:
        """The sphere's centre, a station of the sphere body (m, in B)."""
        self._sphere_location = self._vec(locationSphere, 3, "sphere location")
        self._forces.invalidateSubsystemTopologyCache()

    def setContactSphereRadius(self, radius: float) -> None:
        """The sphere's radius r > 0, m."""
        self._sphere_radius = self._positive(radius, "sphere radius")
        self._forces.invalidateSubsystemTopologyCache()

    def setContactHalfSpaceBody(self, bodyInput2) -> None:
        """The MobilizedBody that carries the half space."""
        self._half_space_body = self._check_mobod(bodyInput2, "half-space body")
        self._forces.invalidateSubsystemTopologyCache()

    def setContactHalfSpaceFrame(self, halfSpaceFrame: Transform) -> None:
        """The half-space frame H on its body (X_BH); the half space is ``x > 0`` of H."""
        if not isinstance(halfSpaceFrame, Transform):
            raise InvalidArgumentError(
                f"{self._where()}: the half-space frame must be a Transform, "
                f"got {type(halfSpaceFrame).__name__}"
            )
        self._half_space_frame = Transform(halfSpaceFrame.R(), halfSpaceFrame.p())
        self._forces.invalidateSubsystemTopologyCache()

    def getBodySphere(self):
        return self._sphere_body

    def getBodyHalfSpace(self):
        return self._half_space_body

    def getContactSphereLocationInBody(self) -> np.ndarray:
        return self._sphere_location.copy()

    def getContactSphereRadius(self) -> float | None:
        return self._sphere_radius

    def getContactHalfSpaceTransform(self) -> Transform:
        return Transform(self._half_space_frame.R(), self._half_space_frame.p())

    # ------------------------------------------------------------------ realization
    def _realize_topology(self, forces, state: State) -> None:
        missing = [
            what
            for what, value in (
                ("setContactSphereBody", self._sphere_body),
                ("setContactSphereRadius", self._sphere_radius),
                ("setContactHalfSpaceBody", self._half_space_body),
            )
            if value is None
        ]
        if missing:
            raise InvalidArgumentError(
                f"{self._where()} {self._index}: call {', '.join(missing)} before "
                "realizing the System's Topology"
            )
        super()._realize_topology(forces, state)

    def _geometry(self, state: State):
        """(n, c, x, P): the half-space direction n = Hx in G, the sphere centre c, the
        indentation x and the contact point P (Position stage)."""
        matter = self._forces.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        bs = self._sphere_body.getMobilizedBodyIndex()
        bh = self._half_space_body.getMobilizedBodyIndex()
        R_H = pc.R_GB[bh]
        n = R_H @ self._half_space_frame.R().asMat33()[:, 0]
        o = pc.p_GB[bh] + R_H @ self._half_space_frame.p()
        c = pc.p_GB[bs] + pc.R_GB[bs] @ self._sphere_location
        r = self._sphere_radius
        x = float(np.dot(c - o, n)) + r
        P = c + (r - 0.5 * x) * n
        return n, c, x, P

    def _hertz(self, x: float) -> float:
        """The smoothed Hertz force fh at indentation x, N."""
        p = self._defaults
        k = 0.5 * p["stiffness"] ** (2.0 / 3.0)
        r = self._sphere_radius
        fh = (4.0 / 3.0) * k * math.sqrt(r * k) * math.sqrt(x * x + p["cf"]) ** 1.5
        return fh * (0.5 + 0.5 * math.tanh(p["bd"] * x))

    def calcContactForce(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """(F, P): the force on the half-space body at the contact point P, both in G
        (Velocity stage); the sphere body gets ``-F`` at P."""
        p = self._defaults
        n, _, x, P = self._geometry(state)
        matter = self._forces.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        vc = matter._velocity_cache(state)
        bs = self._sphere_body.getMobilizedBodyIndex()
        bh = self._half_space_body.getMobilizedBodyIndex()
        Vs, Vh = vc.V_GB[bs], vc.V_GB[bh]
        v_s = Vs[3:6] + np.cross(Vs[0:3], P - pc.p_GB[bs])
        v_h = Vh[3:6] + np.cross(Vh[0:3], P - pc.p_GB[bh])
        v = v_s - v_h
        vn = float(np.dot(v, n))
        vT = v - vn * n
        fh = self._hertz(x)
        c = p["dissipation"]
        fhc = fh * (1.0 + 1.5 * c * vn)
        if c > 0.0:
            fhc *= 0.5 + 0.5 * math.tanh(p["bv"] * (vn + 2.0 / (3.0 * c)))
        elif p["bv"] == 0.0:
            fhc *= 0.5
        force = fhc * n
        vs = math.sqrt(float(np.dot(vT, vT)) + p["cf"])
        if vs > 0.0:
            mu = hollars_friction_coefficient(
                p["staticFriction"],
                p["dynamicFriction"],
                p["viscousFriction"],
                vs,
                p["transitionVelocity"],
            )
            force = force + (fhc * mu / vs) * vT
        return force, P

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        force, P = self.calcContactForce(state)
        matter = self._forces.getSystem().getMatterSubsystem()
        p_GB = matter._position_cache(state).p_GB
        bs = self._sphere_body.getMobilizedBodyIndex()
        bh = self._half_space_body.getMobilizedBodyIndex()
        bodyForces[bs, 0] -= np.cross(P - p_GB[bs], force)
        bodyForces[bs, 1] -= force
        bodyForces[bh, 0] += np.cross(P - p_GB[bh], force)
        bodyForces[bh, 1] += force

    def _compiled_term(self, state: State, excluded: list[int]):
        """This element as a SMOOTH_SPHERE_HALF_SPACE force term (compiled_terms)."""
        from engine.forces.compiled_terms import SMOOTH_SPHERE_HALF_SPACE

        p = self._defaults
        X = self._half_space_frame
        floats = (
            *self._sphere_location,
            *X.R().asMat33()[:, 0],
            *X.p(),
            self._sphere_radius,
            0.5 * p["stiffness"] ** (2.0 / 3.0),
            p["dissipation"],
            p["staticFriction"],
            p["dynamicFriction"],
            p["viscousFriction"],
            p["transitionVelocity"],
            p["cf"],
            p["bd"],
            p["bv"],
        )
        ints = (
            self._sphere_body.getMobilizedBodyIndex(),
            self._half_space_body.getMobilizedBodyIndex(),
        )
        return SMOOTH_SPHERE_HALF_SPACE, ints, tuple(float(f) for f in floats)

    def calcPotentialEnergy(self, state: State) -> float:
        """``(2/5) fh x`` (J; Position stage)."""
        stage = state.getSystemStage()
        if stage < Stage.Position:
            raise StageTooLowError(
                f"{self._where()}: the potential energy needs the State realized to Position "
                f"stage, but it is at {stage.getName()}",
                needed=Stage.Position,
                current=stage,
            )
        _, _, x, _ = self._geometry(state)
        return 0.4 * self._hertz(x) * x

    def calcDecorativeGeometryAndAppend(self, state: State, stage: Stage, geometry: list) -> None:
        """At Topology stage: the contact sphere, drawn as a wireframe on its body."""
        if (
            stage_value(stage, "calcDecorativeGeometryAndAppend") != Stage.Topology
            or self._sphere_body is None
        ):
            return
        from engine.common.decorations.shapes import DecorativeSphere

        sphere = DecorativeSphere(self._sphere_radius)
        sphere.setBodyId(self._sphere_body.getMobilizedBodyIndex())
        sphere.setTransform(Transform(self._sphere_location))
        geometry.append(sphere.setColor((0.9, 0.6, 0.2)).setOpacity(0.5))
