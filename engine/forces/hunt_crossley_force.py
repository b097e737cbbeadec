"""HuntCrossleyForce: Simbody 3.7's Hertz + Hunt-Crossley contact with Hollars friction,
acting on the contacts of one set of a GeneralContactSubsystem."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.common.exceptions import (
    NonPhysicalError,
    StageTooLowError,
)
from engine.common.stage import Stage
from engine.common.state import State
from engine.contact.contact import PointContact
from engine.forces.contact_set_force import ContactSetForce
from engine.forces.hollars_friction import hollars_friction_coefficient


@dataclass(frozen=True)
class _SurfaceParameters:
    """One surface's material: stiffness as given (N/m^2) and its 2/3 power, which is what
    the force law uses; dissipation (s/m); static, dynamic, viscous (s/m) friction."""

    stiffness: float
    k: float
    dissipation: float
    staticFriction: float
    dynamicFriction: float
    viscousFriction: float


_DEFAULT = _SurfaceParameters(1.0, 1.0, 0.0, 0.0, 0.0, 0.0)


def _combined(u1: float, u2: float) -> float:
    """Friction coefficients of two surfaces combined as 2 u1 u2 / (u1 + u2) (0 if either is)."""
    return 0.0 if u1 == 0.0 or u2 == 0.0 else 2.0 * u1 * u2 / (u1 + u2)


class HuntCrossleyForce(ContactSetForce):
    """HuntCrossleyForce(forces, generalContact, contactSet): compliant contact forces for
    every PointContact that ``generalContact.getContacts(state, contactSet)`` reports.

    Per contact (surface 1 / 2 with stiffness E_i, ``k_i = E_i^(2/3)``, dissipation c_i, depth
    x, normal n from surface 1 into 2, halfway point O, effective radius R):
    ``s1 = k2/(k1 + k2)``, contact point ``C = O + x (1/2 - s1) n``, ``k = k1 s1``,
    ``c = c1 s1 + c2 (1 - s1)``, Hertz force ``fH = (4/3) k x sqrt(R k x)`` with potential
    energy ``(2/5) fH x``; with ``v = v_1(C) - v_2(C)``, ``vn = v·n`` (> 0 approaching),
    ``vT = v - vn n``: normal force ``f = fH (1 + (3/2) c vn)`` and friction
    ``mu f vT/|vT|`` (Hollars' curve, coefficients combined as ``2 u1 u2/(u1 + u2)``, the
    element's transition velocity). Body 2 gets ``f n + mu f vT/|vT|`` at C, body 1 the
    negative.

    Contacts other than PointContacts (a TriangleMesh's) are skipped, as Simbody 3.7's
    element skips them. Simbody 3.7's behaviour is kept: when a contact's f <= 0 (surfaces
    separating faster than 2/(3c)) the element stops, so that contact and every later one in
    the list get no force; that contact's energy is counted, the later ones' not. The
    energy therefore depends on velocities: it needs the State realized to Dynamics stage. Surface
    parameters and the transition velocity are part of the model (a setter is a Topology
    change); surfaces without ``setBodyParameters`` have Simbody's defaults (stiffness 1,
    everything else 0).
    """

    _body_params: dict[int, _SurfaceParameters]

    def setBodyParameters(
        self,
        bodyIndex,
        stiffness: float,
        dissipation: float,
        staticFriction: float,
        dynamicFriction: float,
        viscousFriction: float,
    ) -> None:
        """Material of surface ``bodyIndex`` of the contact set: stiffness > 0 (N/m^2; the
        element keeps its 2/3 power), dissipation >= 0 (s/m), friction coefficients >= 0
        (viscous in s/m). All are checked before anything changes."""
        i = self._surface(bodyIndex)
        stiffness = self._real(stiffness, "stiffness")
        if stiffness <= 0:
            raise NonPhysicalError(f"{self._where()}: stiffness must be > 0, got {stiffness}")
        params = _SurfaceParameters(
            stiffness,
            stiffness ** (2.0 / 3.0),
            self._nonnegative(dissipation, "dissipation"),
            self._nonnegative(staticFriction, "static friction"),
            self._nonnegative(dynamicFriction, "dynamic friction"),
            self._nonnegative(viscousFriction, "viscous friction"),
        )
        self._body_params[i] = params
        self._forces.invalidateSubsystemTopologyCache()

    def getBodyParameters(self, bodyIndex) -> tuple[float, float, float, float, float]:
        """(stiffness, dissipation, static, dynamic, viscous friction) of surface
        ``bodyIndex`` as given to setBodyParameters (Simbody's defaults if never set)."""
        p = self._body_params.get(self._surface(bodyIndex), _DEFAULT)
        return (p.stiffness, p.dissipation, p.staticFriction, p.dynamicFriction, p.viscousFriction)

    # ------------------------------------------------------------------ computation
    def _evaluate(self, state: State, bodyForces) -> float:
        """Walk the contacts as Simbody 3.7 does, adding forces into ``bodyForces`` (if
        given); returns the potential energy counted, J."""
        contacts = self._contacts.getContacts(state, self._set_index)
        if not contacts:
            return 0.0
        matter = self._forces.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        V_GB = matter._velocity_cache(state).V_GB
        vt = self._transition_velocity
        pe = 0.0
        for contact in contacts:
            if not isinstance(contact, PointContact):  # a mesh's: ElasticFoundationForce's
                continue
            s1, s2 = int(contact.getSurface1()), int(contact.getSurface2())
            p1 = self._body_params.get(s1, _DEFAULT)
            p2 = self._body_params.get(s2, _DEFAULT)
            share1 = p2.k / (p1.k + p2.k)
            share2 = 1.0 - share1
            depth = contact.getDepth()
            n = np.asarray(contact.getNormal(), dtype=np.float64)
            C = contact.getLocation() + (depth * (0.5 - share1)) * n
            k = p1.k * share1
            c = p1.dissipation * share1 + p2.dissipation * share2
            R = contact.getEffectiveRadius()
            fH = (4.0 / 3.0) * k * depth * math.sqrt(R * k * depth)
            pe += 0.4 * fH * depth
            b1 = self._contacts.getBody(self._set_index, s1).getMobilizedBodyIndex()
            b2 = self._contacts.getBody(self._set_index, s2).getMobilizedBodyIndex()
            V1, V2 = V_GB[b1], V_GB[b2]
            r1 = C - pc.p_GB[b1]
            r2 = C - pc.p_GB[b2]
            v = (V1[3:6] + np.cross(V1[0:3], r1)) - (V2[3:6] + np.cross(V2[0:3], r2))
            vn = float(np.dot(v, n))
            vT = v - vn * n
            f = fH * (1.0 + 1.5 * c * vn)
            if f <= 0.0:
                return pe
            force = f * n
            vslip = math.sqrt(float(np.dot(vT, vT)))
            if vslip != 0.0:
                mu = hollars_friction_coefficient(
                    _combined(p1.staticFriction, p2.staticFriction),
                    _combined(p1.dynamicFriction, p2.dynamicFriction),
                    _combined(p1.viscousFriction, p2.viscousFriction),
                    vslip,
                    vt,
                )
                force = force + (mu * f / vslip) * vT
            if bodyForces is not None:
                bodyForces[b1, 0] -= np.cross(r1, force)
                bodyForces[b1, 1] -= force
                bodyForces[b2, 0] += np.cross(r2, force)
                bodyForces[b2, 1] += force
        return pe

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        self._evaluate(state, bodyForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        """This element as a HUNT_CROSSLEY term and its set's HUNT_CROSSLEY_SURFACE rows
        (``engine.forces.compiled_terms``): detection of the set's contacts and the force
        law in the fused realization's kernel, with the same arithmetic and walk as
        ``calcForce``. A TriangleMesh of the set is a finite shape of the sweep (its
        contacts are ElasticFoundationForce's, not this element's)."""
        from engine.contact.kernels.general_contact_kernel import OTHER_FINITE, SPHERE
        from engine.forces.compiled_terms import HUNT_CROSSLEY, HUNT_CROSSLEY_SURFACE

        surfaces = self._contacts._kernel_surfaces(self._set_index, meshes=True)
        finite = [s for s, row in enumerate(surfaces) if row[1] in (SPHERE, OTHER_FINITE)]
        terms = [(HUNT_CROSSLEY, (len(surfaces), len(finite)), (self._transition_velocity,))]
        for s, (body, kind, geometry) in enumerate(surfaces):
            p = self._body_params.get(s, _DEFAULT)
            order = finite[s] if s < len(finite) else 0
            material = (p.k, p.dissipation, p.staticFriction, p.dynamicFriction)
            floats = (*geometry, *material, p.viscousFriction)
            terms.append((HUNT_CROSSLEY_SURFACE, (body, kind, order, 0), floats))
        return terms

    def calcPotentialEnergy(self, state: State) -> float:
        """The Hertz energy ``(2/5) fH x`` of the contacts the force walk reached (J). As in
        Simbody 3.7 it needs the State realized to Dynamics stage."""
        current = self._forces.getStage(state)
        if current < Stage.Dynamics:
            raise StageTooLowError(
                f"{self._where()} {self._index}: its potential energy needs the State realized "
                f"to Dynamics stage (it depends on the velocities), but it is at "
                f"{current.getName()}; call system.realize(state, Stage.Dynamics)",
                needed=Stage.Dynamics,
                current=current,
            )
        return self._evaluate(state, None)
