"""ElasticFoundation: the force generator for TriangleMeshContact (Simbody 3.7).

An elastic foundation model: one linear spring per mesh face in contact, at the face
centroid, with stiffness ``k * area`` (N/m). Materials combine linearly (not to the 2/3
power as for Hertz): ``s1 = k2/(k1 + k2)`` (share of the deformation taken by surface 1),
``k = k1 s1``, ``c = c1 s1 + c2 (1 - s1)``, friction coefficients ``2 u1 u2/(u1 + u2)``.

For each mesh M in the contact and each of its listed faces (centroid P0), with O the other
surface: Q = nearest point of O to P0; the face counts only if P0 is inside O. Overlap
``x = |P0 - Q|``, normal ``n = (P0 - Q)/x`` (out of M, the direction of the force on O),
contact point ``P = P0 - f_M x n`` (f_M = M's deformation share), ``xdot = -v·n`` with v the
velocity of O's material relative to M's at P, ``fK = k A x``, ``fC = c fK xdot``,
``fN = fK + fC``. A face with ``fN <= 0`` gives nothing (no energy either). Otherwise the
force on O is ``fN n`` plus friction ``-mu fN vT/|vT|`` (Stribeck curve as for Hertz, when
``|vT| > SignificantReal``), energy ``fK x / 2``, power ``fC xdot + mu fN |vT|``.

When both surfaces are meshes each mesh's face areas are scaled so that each contributes
half of the mean patch area ``(A1 + A2)/2``. The resultant is accumulated at the
area-weighted patch centroid and moved to the centre of pressure
``r_c = sum(|r_i x Fn_i| r_i) / sum |r_i x Fn_i|`` (r_i from the centroid), which is the
reported contact point; the reported spatial force there keeps the residual moment.
Patch details: one per acting face (point, normal from surface 1 into 2, slip velocity of
surface 2 relative to 1, force on surface 2, x, xdot, area, pressure fN/A, energy, power).
"""

from __future__ import annotations

import numpy as np

from engine.contact.contact_force import ContactDetail, ContactForce
from engine.contact.friction import SIGNIFICANT_REAL, combine_friction, stribeck
from engine.contact.generators.base import ContactForceGenerator
from engine.contact.triangle_mesh import _TriangleMesh
from engine.contact.triangle_mesh_contact import TriangleMeshContact


def _patch(mesh, faces, R, p):
    """(area-weighted centroid sum in G, total area) of some faces of a mesh at (R, p)."""
    idx = np.fromiter(faces, dtype=np.int64, count=len(faces))
    areas = mesh.faceAreas()[idx]
    centroids = mesh.faceCentroids()[idx] @ R.T + p
    return (areas[:, None] * centroids).sum(axis=0), float(areas.sum()), idx


def one_mesh_springs(
    mesh, idx, R_M, p_M, other, R_O, p_O, share, scale, k, c, us, ud, uv, vt, velocity
):
    """Springs of one mesh against ``other`` (all in G).

    ``velocity(P)`` gives the velocity of O's material relative to M's at points P (k, 3).
    Returns arrays over the acting faces: P, n (out of M), vT, force on O, x, xdot, area,
    fN, energy, power."""
    P0 = mesh.faceCentroids()[idx] @ R_M.T + p_M
    q_O, inside, _ = other.nearestPoints((P0 - p_O) @ R_O)
    Q = q_O @ R_O.T + p_O
    gap = P0 - Q
    x = np.linalg.norm(gap, axis=1)
    act = inside & (x > 0.0)
    P0, x, gap = P0[act], x[act], gap[act]
    area = scale * mesh.faceAreas()[idx[act]]
    n = gap / x[:, None] if x.size else gap
    P = P0 - (share * x)[:, None] * n
    v = velocity(P) if x.size else np.zeros((0, 3))
    xdot = -np.einsum("ki,ki->k", v, n)
    vT = v + xdot[:, None] * n
    fK = k * area * x
    fC = fK * c * xdot
    fN = fK + fC
    push = fN > 0.0
    P, n, vT, x, xdot, area, fK, fC, fN = (a[push] for a in (P, n, vT, x, xdot, area, fK, fC, fN))
    force = fN[:, None] * n
    power = fC * xdot
    slip = np.linalg.norm(vT, axis=1)
    for i in np.flatnonzero(slip > SIGNIFICANT_REAL).tolist():
        mu = stribeck(us, ud, uv, float(slip[i]), vt)
        force[i] -= (mu * fN[i] / slip[i]) * vT[i]
        power[i] += mu * fN[i] * slip[i]
    return P, n, vT, force, x, xdot, area, fN, 0.5 * fK * x, power


class ElasticFoundation(ContactForceGenerator):
    """Force generator for TriangleMeshContact (an elastic foundation of face springs)."""

    CONTACT_TYPE = TriangleMeshContact

    def calcContactForce(self, contact, material1, material2, kin, vt: float):
        tracker = self._subsystem.getContactTrackerSubsystem()
        shape1 = tracker.getContactGeometry(contact.getSurface1())
        shape2 = tracker.getContactGeometry(contact.getSurface2())
        R1, p1, R2, p2 = contact._ground
        return elastic_foundation_force(
            contact.getContactId(),
            shape1,
            (R1, p1),
            contact.getSurface1Faces(),
            shape2,
            (R2, p2),
            contact.getSurface2Faces(),
            material_parameters(material1, material2),
            lambda P: (
                (kin.v2 + np.cross(kin.w2, P - kin.p2)) - (kin.v1 + np.cross(kin.w1, P - kin.p1))
            ),
            vt,
        )


def material_parameters(material1, material2) -> tuple:
    """(s1, k, c, us, ud, uv) of two ContactMaterials combined linearly."""
    k1, k2 = material1.getStiffness(), material2.getStiffness()
    s1 = k2 / (k1 + k2)
    k = k1 * s1
    c = material1.getDissipation() * s1 + material2.getDissipation() * (1.0 - s1)
    us = combine_friction(material1.getStaticFriction(), material2.getStaticFriction())
    ud = combine_friction(material1.getDynamicFriction(), material2.getDynamicFriction())
    uv = combine_friction(material1.getViscousFriction(), material2.getViscousFriction())
    return s1, k, c, us, ud, uv


def elastic_foundation_force(
    cid, shape1, X1, faces1, shape2, X2, faces2, params, relative_velocity, vt
):
    """(ContactForce, details) of one mesh contact; ``relative_velocity(P)`` is the velocity
    of surface 2's material relative to surface 1's at the points P (k, 3) (G)."""
    s1, k, c, us, ud, uv = params
    (R1, p1), (R2, p2) = X1, X2
    mesh1 = isinstance(shape1, _TriangleMesh) and len(faces1) > 0
    mesh2 = isinstance(shape2, _TriangleMesh) and len(faces2) > 0
    w1 = w2 = np.zeros(3)
    a1 = a2 = 0.0
    if mesh1:
        w1, a1, idx1 = _patch(shape1, faces1, R1, p1)
    if mesh2:
        w2, a2, idx2 = _patch(shape2, faces2, R2, p2)
    scale1 = scale2 = 0.0
    if a1 and a2:
        area = 0.5 * (a1 + a2)
        scale1, scale2 = 0.5 * area / a1, 0.5 * area / a2
        centroid = scale1 * w1 / a1 + scale2 * w2 / a2
    elif a1:
        scale1, centroid = 1.0, w1 / a1
    elif a2:
        scale2, centroid = 1.0, w2 / a2
    else:
        return ContactForce(cid, np.zeros(3), np.zeros((2, 3)), 0.0, 0.0), []

    def vel(P):
        return np.asarray(relative_velocity(P), dtype=np.float64).reshape(-1, 3)

    parts = []
    if mesh1:  # M = surface 1, O = surface 2: force on O is the force on surface 2
        r = one_mesh_springs(
            shape1, idx1, R1, p1, shape2, R2, p2, s1, scale1, k, c, us, ud, uv, vt, vel
        )
        parts.append((r, 1.0))
    if mesh2:  # M = surface 2, O = surface 1: negate to get the force on surface 2
        r = one_mesh_springs(
            shape2,
            idx2,
            R2,
            p2,
            shape1,
            R1,
            p1,
            1.0 - s1,
            scale2,
            k,
            c,
            us,
            ud,
            uv,
            vt,
            lambda P: -vel(P),
        )
        parts.append((r, -1.0))
    F = np.zeros(3)
    M = np.zeros(3)
    pe = power = 0.0
    weighted = np.zeros(3)
    weight = 0.0
    details = []
    for (P, n, vT, force, x, xdot, area, fN, energy, loss), sign in parts:
        if not P.shape[0]:
            continue
        rr = P - centroid
        moments = np.linalg.norm(np.cross(rr, fN[:, None] * n), axis=1)
        weighted += (moments[:, None] * rr).sum(axis=0)
        weight += float(moments.sum())
        f2 = sign * force
        F += f2.sum(axis=0)
        M += np.cross(rr, f2).sum(axis=0)
        pe += float(energy.sum())
        power += float(loss.sum())
        for i in range(P.shape[0]):
            details.append(
                ContactDetail(
                    P[i],
                    sign * n[i],
                    sign * vT[i],
                    f2[i],
                    x[i],
                    xdot[i],
                    area[i],
                    fN[i] / area[i] if area[i] else 0.0,
                    energy[i],
                    loss[i],
                )
            )
    offset = weighted / weight if weight > 0.0 else np.zeros(3)
    C = centroid + offset
    spatial = np.array([M - np.cross(offset, F), F])
    return ContactForce(cid, C, spatial, pe, power), details
