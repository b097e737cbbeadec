"""ElasticFoundationForce: Simbody 3.7's elastic foundation contact force element for the
triangle-mesh contacts of one set of a GeneralContactSubsystem."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.common.exceptions import (
    InvalidArgumentError,
    NonPhysicalError,
    StageTooLowError,
)
from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.contact_set_force import ContactSetForce
from engine.forces.hollars_friction import hollars_friction_coefficient


@dataclass(frozen=True)
class _MeshParameters:
    """One mesh surface's springs: stiffness (N/m^3: force per unit area and depth),
    dissipation (s/m), static, dynamic and viscous (s/m) friction."""

    stiffness: float
    dissipation: float
    staticFriction: float
    dynamicFriction: float
    viscousFriction: float


class ElasticFoundationForce(ContactSetForce):
    """ElasticFoundationForce(forces, generalContact, contactSet): one spring per face of
    each mesh surface that has parameters (``setBodyParameters``), acting on the
    TriangleMeshContacts that ``generalContact.getContacts(state, contactSet)`` reports.

    For a mesh M (its own parameters k, c, us, ud, uv; nothing is combined with the other
    surface O) and each face of M listed in the contact: spring position P = the face
    centroid; Q = the nearest point of O to P; the face acts only if P is inside O. With
    ``d = |Q - P|``, direction ``u = (Q - P)/d``, ``v = v_O(Q) - v_M(Q)``, ``vn = v·u``,
    ``vT = v - vn u``, area A (halved when both surfaces of the contact are meshes with
    parameters): ``f = k A d (1 + c vn)``; if ``f > 0`` M's body gets ``f u`` plus friction
    ``mu f vT/|vT|`` (Hollars' curve, the element's transition velocity) at Q and O's body
    the negative. Each acting face stores ``k A d^2 / 2`` whatever the sign of f (Simbody
    3.7's bookkeeping), so the energy needs the State realized to Dynamics stage like the
    forces. Surfaces without parameters contribute no springs.
    """

    _body_params: dict[int, _MeshParameters]

    def setBodyParameters(
        self,
        bodyIndex,
        stiffness: float,
        dissipation: float,
        staticFriction: float,
        dynamicFriction: float,
        viscousFriction: float,
    ) -> None:
        """Springs of mesh surface ``bodyIndex``: stiffness > 0 (N/m^3), dissipation >= 0
        (s/m), friction coefficients >= 0 (viscous in s/m). The surface must be a
        TriangleMesh. Everything is checked before anything changes."""
        i = self._surface(bodyIndex)
        geometry = self._contacts.getBodyGeometry(self._set_index, i)
        if geometry.getTypeName() != "TriangleMesh":
            raise InvalidArgumentError(
                f"{self._where()}: body {i} of contact set {self._set_index} is a "
                f"{geometry.getTypeName()}, not a triangle mesh"
            )
        stiffness = self._real(stiffness, "stiffness")
        if stiffness <= 0:
            raise NonPhysicalError(f"{self._where()}: stiffness must be > 0, got {stiffness}")
        self._body_params[i] = _MeshParameters(
            stiffness,
            self._nonnegative(dissipation, "dissipation"),
            self._nonnegative(staticFriction, "static friction"),
            self._nonnegative(dynamicFriction, "dynamic friction"),
            self._nonnegative(viscousFriction, "viscous friction"),
        )
        self._forces.invalidateSubsystemTopologyCache()

    def getBodyParameters(self, bodyIndex) -> tuple[float, float, float, float, float]:
        """(stiffness, dissipation, static, dynamic, viscous friction) of a mesh surface."""
        i = self._surface(bodyIndex)
        p = self._body_params.get(i)
        if p is None:
            raise InvalidArgumentError(
                f"{self._where()}: body {i} has no parameters; call setBodyParameters first"
            )
        return (p.stiffness, p.dissipation, p.staticFriction, p.dynamicFriction, p.viscousFriction)

    # ------------------------------------------------------------------ computation
    def _evaluate(self, state: State, bodyForces) -> float:
        from engine.contact.triangle_mesh_contact import TriangleMeshContact

        contacts = self._contacts.getContacts(state, self._set_index)
        if not contacts:
            return 0.0
        matter = self._forces.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        V_GB = matter._velocity_cache(state).V_GB.reshape(-1, 6)
        gcs, k_set = self._contacts, self._set_index
        pe = 0.0
        for contact in contacts:
            if not isinstance(contact, TriangleMeshContact):
                continue
            s1, s2 = int(contact.getSurface1()), int(contact.getSurface2())
            p1, p2 = self._body_params.get(s1), self._body_params.get(s2)
            scale = 0.5 if (p1 is not None and p2 is not None) else 1.0
            sides = (
                (s1, s2, p1, contact.getSurface1Faces()),
                (s2, s1, p2, contact.getSurface2Faces()),
            )
            for mesh_ix, other_ix, params, faces in sides:
                if params is None or not faces:
                    continue
                mesh = gcs.getBodyGeometry(k_set, mesh_ix)
                other = gcs.getBodyGeometry(k_set, other_ix)
                bm = gcs.getBody(k_set, mesh_ix).getMobilizedBodyIndex()
                bo = gcs.getBody(k_set, other_ix).getMobilizedBodyIndex()
                X_M = gcs.getBodyTransform(k_set, mesh_ix)
                X_O = gcs.getBodyTransform(k_set, other_ix)
                R_M = pc.R_GB[bm] @ X_M.R().asMat33()
                p_M = pc.p_GB[bm] + pc.R_GB[bm] @ X_M.p()
                R_O = pc.R_GB[bo] @ X_O.R().asMat33()
                p_O = pc.p_GB[bo] + pc.R_GB[bo] @ X_O.p()
                idx = np.fromiter(sorted(faces), dtype=np.int64, count=len(faces))
                P = mesh.faceCentroids()[idx] @ R_M.T + p_M
                q, inside, _ = other.nearestPoints((P - p_O) @ R_O)
                Q = q @ R_O.T + p_O
                disp = Q - P
                dist = np.linalg.norm(disp, axis=1)
                act = np.flatnonzero(inside & (dist > 0.0))
                area = scale * mesh.faceAreas()[idx]
                pe += float(0.5 * params.stiffness * (area[act] * dist[act] ** 2).sum())
                if bodyForces is None:
                    continue
                for a in act.tolist():
                    u = disp[a] / dist[a]
                    rm = Q[a] - pc.p_GB[bm]
                    ro = Q[a] - pc.p_GB[bo]
                    v = (V_GB[bo, 3:6] + np.cross(V_GB[bo, 0:3], ro)) - (
                        V_GB[bm, 3:6] + np.cross(V_GB[bm, 0:3], rm)
                    )
                    vn = float(v @ u)
                    vT = v - vn * u
                    f = params.stiffness * area[a] * dist[a] * (1.0 + params.dissipation * vn)
                    if f <= 0.0:
                        continue
                    force = f * u
                    vslip = float(np.linalg.norm(vT))
                    if vslip != 0.0:
                        mu = hollars_friction_coefficient(
                            params.staticFriction,
                            params.dynamicFriction,
                            params.viscousFriction,
                            vslip,
                            self._transition_velocity,
                        )
                        force = force + (mu * f / vslip) * vT
                    bodyForces[bm, 0] += np.cross(rm, force)
                    bodyForces[bm, 1] += force
                    bodyForces[bo, 0] -= np.cross(ro, force)
                    bodyForces[bo, 1] -= force
        return pe

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        self._evaluate(state, bodyForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        """This element as an ELASTIC_FOUNDATION term followed by its mesh, partner and face
        rows and, when a mesh with parameters may touch another mesh, the MESH_DATA block of
        those meshes (``engine.forces.compiled_terms``, laid out as
        ``engine.contact.kernels.elastic_foundation_force_kernel`` reads them): the springs
        of each mesh with parameters against the set's half spaces, spheres and meshes on
        other bodies, with the arithmetic of ``calcForce``."""
        from engine.contact.kernels.elastic_foundation_force_kernel import (
            HALF_SPACE,
            MESH,
            SPHERE,
        )
        from engine.contact.kernels.elastic_foundation_mesh_pair_kernel import mesh_data_rows
        from engine.forces.compiled_terms import (
            ELASTIC_FOUNDATION,
            ELASTIC_FOUNDATION_FACE,
            ELASTIC_FOUNDATION_MESH,
            ELASTIC_FOUNDATION_MESH_DATA,
            ELASTIC_FOUNDATION_PARTNER,
        )

        gcs, k = self._contacts, self._set_index
        kinds = {"HalfSpace": HALF_SPACE, "Sphere": SPHERE, "TriangleMesh": MESH}
        surfaces = []  # (body, kind name, R_BS row-major, p_BS, geometry)
        for i in range(gcs.getNumBodies(k)):
            X = gcs.getBodyTransform(k, i)
            R_BS = tuple(float(a) for a in np.asarray(X.R().asMat33()).ravel())
            p_BS = tuple(float(a) for a in X.p())
            geometry = gcs.getBodyGeometry(k, i)
            body = int(gcs.getBody(k, i).getMobilizedBodyIndex())
            surfaces.append((body, geometry.getTypeName(), R_BS, p_BS, geometry))
        # the meshes of the mesh pairs with springs, numbered for the MESH_DATA block
        paired: set[int] = set()
        for m in self._body_params:
            others = [
                j
                for j, (b, name, *_) in enumerate(surfaces)
                if name == "TriangleMesh" and b != surfaces[m][0]
            ]
            if others:
                paired |= {m, *others}
        local = {m: n for n, m in enumerate(sorted(paired))}
        rows: list = []
        for m in sorted(self._body_params):
            body, _, R_BS, p_BS, mesh = surfaces[m]
            p = self._body_params[m]
            partners = []
            for j, (b, name, R, o, g) in enumerate(surfaces):
                if b == body or name not in kinds:
                    continue
                if name == "TriangleMesh":
                    scale = 0.5 if j in self._body_params else 1.0
                    floats = (*R, *o, self._bound(g), scale)
                    ints = (b, MESH, local[j])
                else:
                    floats, ints = (*R, *o, self._radius(g)), (b, kinds[name])
                partners.append((ELASTIC_FOUNDATION_PARTNER, ints, floats))
            material = (p.stiffness, p.dissipation, p.staticFriction)
            floats = (*R_BS, *p_BS, self._bound(mesh), *material)
            floats += (p.dynamicFriction, p.viscousFriction)
            faces = np.column_stack((mesh.faceCentroids(), mesh.faceAreas())).tolist()
            ints = (body, len(partners), len(faces), local.get(m, -1))
            rows.append((ELASTIC_FOUNDATION_MESH, ints, floats))
            rows += partners
            rows += [(ELASTIC_FOUNDATION_FACE, (), tuple(face)) for face in faces]
        springs = len(rows)
        if paired:
            meshes = [surfaces[m][4] for m in sorted(paired)]
            rows += mesh_data_rows(meshes, ELASTIC_FOUNDATION_MESH_DATA)
        header = (ELASTIC_FOUNDATION, (len(rows), springs), (self._transition_velocity,))
        return [header, *rows]

    @staticmethod
    def _bound(mesh) -> float:
        """The radius (m) about the mesh's origin of a sphere holding its bounding sphere."""
        centre, radius = mesh.getBoundingSphere()
        return float(np.linalg.norm(centre)) + float(radius)

    @staticmethod
    def _radius(geometry) -> float:
        """A sphere's radius (m); 0 for a half space."""
        return float(geometry.getRadius()) if geometry.getTypeName() == "Sphere" else 0.0

    def calcPotentialEnergy(self, state: State) -> float:
        """``sum k A d^2 / 2`` over the springs inside the other surface (J); needs the State
        realized to Dynamics stage as the forces do."""
        current = self._forces.getStage(state)
        if current < Stage.Dynamics:
            raise StageTooLowError(
                f"{self._where()} {self._index}: its potential energy needs the State realized "
                f"to Dynamics stage, but it is at {current.getName()}; call "
                "system.realize(state, Stage.Dynamics)",
                needed=Stage.Dynamics,
                current=current,
            )
        return self._evaluate(state, None)
