"""The faces of a mesh A in contact with a mesh B, as ``mesh_trackers._faces_inside``
defines them, for the fused mesh-mesh kernel (``mesh_mesh_kernel``; no allocation), over
the flat mesh arrays of ``mesh_queries.mesh_query_arrays`` and its compiled queries.

In A's frame: within the overlap of A's box and the box of B's vertices, the faces of A
(from A's AABB tree) with a vertex inside B, or crossed by an edge of B whose box meets the
overlap (the segment-triangle test). Two filters keep the work small without changing the
answer: a face whose box, taken to B's frame, misses B's box cannot touch B; a vertex of A
outside the overlap is outside the box of B's vertices, so outside B, and is not queried.
"""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit
from engine.contact.kernels.mesh_queries import (
    face_box_meets,
    faces_in_box,
    point_inside_mesh,
    segment_crosses_triangle,
)

CANDIDATE, IN_CONTACT = 1, 2  # face flags (0: not a candidate)
#: above this many candidates left, an edge looks for the faces it may cross in the tree
TREE_WALK = 48


@kernel_jit
def faces_in_contact(ma, mb, XR, Xp, mesh, scratch):
    """Mark the faces of mesh surface ``ma`` in contact with mesh surface ``mb``
    (``IN_CONTACT`` in the face flags; the other candidates ``CANDIDATE``), ``mesh_trackers
    ._faces_inside``'s definition; (XR (row-major 9-tuple), Xp) is the pose of ``ma`` in
    ``mb``'s frame. The candidates (faces of ``ma`` whose boxes meet the box overlap and,
    taken to ``mb``'s frame, ``mb``'s box; local numbers) are written to ``ma``'s part of
    ``candidates``. Returns (the number of
    candidates, the area of the faces in contact)."""
    (
        face_starts,
        starts,
        _,
        areas,
        vertices,
        faces,
        face_normals,
        vertex_normals,
        face_boxes,
        edges,
        nodes,
        links,
        tree_faces,
    ) = mesh
    vertex_flags, face_flags, candidates, work, stack = scratch
    fa0, fa1 = face_starts[ma], face_starts[ma + 1]
    va0, va1 = starts[ma, 0], starts[ma + 1, 0]
    fb0, fb1 = face_starts[mb], face_starts[mb + 1]
    vb0, vb1 = starts[mb, 0], starts[mb + 1, 0]
    Va, Fa, Ba = vertices[va0:va1], faces[fa0:fa1], face_boxes[fa0:fa1]
    Vb, Fb = vertices[vb0:vb1], faces[fb0:fb1]
    Na, La, Ta = (
        nodes[starts[ma, 2] : starts[ma + 1, 2]],
        links[starts[ma, 2] : starts[ma + 1, 2]],
        tree_faces[fa0:fa1],
    )
    Nb, Lb, Tb = (
        nodes[starts[mb, 2] : starts[mb + 1, 2]],
        links[starts[mb, 2] : starts[mb + 1, 2]],
        tree_faces[fb0:fb1],
    )
    FNb, VNb = face_normals[fb0:fb1], vertex_normals[vb0:vb1]
    Eb = edges[starts[mb, 1] : starts[mb + 1, 1]]
    flags, listed, mark = face_flags[fa0:fa1], candidates[fa0:fa1], vertex_flags[va0:va1]
    # B's vertices in A's frame, XR^T (v - Xp), and their box
    lo0 = lo1 = lo2 = math.inf
    hi0 = hi1 = hi2 = -math.inf
    for i in range(Vb.shape[0]):
        e0, e1, e2 = Vb[i, 0] - Xp[0], Vb[i, 1] - Xp[1], Vb[i, 2] - Xp[2]
        o0 = e0 * XR[0] + e1 * XR[3] + e2 * XR[6]
        o1 = e0 * XR[1] + e1 * XR[4] + e2 * XR[7]
        o2 = e0 * XR[2] + e1 * XR[5] + e2 * XR[8]
        work[i, 0], work[i, 1], work[i, 2] = o0, o1, o2
        lo0, lo1, lo2 = min(lo0, o0), min(lo1, o1), min(lo2, o2)
        hi0, hi1, hi2 = max(hi0, o0), max(hi1, o1), max(hi2, o2)
    # the overlap with A's box (its tree's root box)
    lo0, lo1, lo2 = max(lo0, Na[0, 0]), max(lo1, Na[0, 1]), max(lo2, Na[0, 2])
    hi0, hi1, hi2 = min(hi0, Na[0, 3]), min(hi1, Na[0, 4]), min(hi2, Na[0, 5])
    if lo0 > hi0 or lo1 > hi1 or lo2 > hi2:
        return 0, 0.0
    found = faces_in_box(lo0, lo1, lo2, hi0, hi1, hi2, Ba, Na, La, Ta, stack, listed)
    # of those, the faces whose box in B's frame meets B's box: a face in contact has a
    # vertex inside B or is crossed by an edge of B, so it meets B's box there too
    count = 0
    for t in range(found):
        f = listed[t]
        if _meets_box(Va, Fa, f, XR, Xp, Nb):
            listed[count] = f
            count += 1
            flags[f] = CANDIDATE
            mark[Fa[f, 0]] = mark[Fa[f, 1]] = mark[Fa[f, 2]] = -1
    # faces with a vertex inside B; a vertex outside the overlap is outside the box of B's
    # vertices, so outside B, and needs no query
    hint = -1
    for t in range(count):
        f = listed[t]
        for corner in range(3):
            v = Fa[f, corner]
            if mark[v] < 0:
                mark[v] = 0
                x0, x1, x2 = Va[v, 0], Va[v, 1], Va[v, 2]
                if lo0 <= x0 <= hi0 and lo1 <= x1 <= hi1 and lo2 <= x2 <= hi2:
                    w0 = XR[0] * x0 + XR[1] * x1 + XR[2] * x2 + Xp[0]
                    w1 = XR[3] * x0 + XR[4] * x1 + XR[5] * x2 + Xp[1]
                    w2 = XR[6] * x0 + XR[7] * x1 + XR[8] * x2 + Xp[2]
                    inside, near = point_inside_mesh(
                        w0, w1, w2, Vb, Fb, FNb, VNb, Nb, Lb, Tb, stack, hint
                    )
                    if near >= 0:
                        hint = near
                    if inside:
                        mark[v] = 1
            if mark[v] == 1:
                flags[f] = IN_CONTACT
    # faces crossed by an edge of B that meets the overlap: the candidates not yet in
    # contact are moved to the front of the list, and out of it once crossed
    rest = 0
    for t in range(count):
        f = listed[t]
        if flags[f] == CANDIDATE:
            listed[t], listed[rest] = listed[rest], f
            rest += 1
    for e in range(Eb.shape[0]):
        if rest == 0:
            break
        a, b = Eb[e, 0], Eb[e, 1]
        s0 = min(work[a, 0], work[b, 0])
        s1 = min(work[a, 1], work[b, 1])
        s2 = min(work[a, 2], work[b, 2])
        t0 = max(work[a, 0], work[b, 0])
        t1 = max(work[a, 1], work[b, 1])
        t2 = max(work[a, 2], work[b, 2])
        if not (s0 <= hi0 and t0 >= lo0 and s1 <= hi1 and t1 >= lo1 and s2 <= hi2 and t2 >= lo2):
            continue
        if rest > TREE_WALK:
            _pierce(work, a, b, s0, s1, s2, t0, t1, t2, Va, Fa, Ba, Na, La, Ta, flags, stack)
            continue
        t = 0
        while t < rest:
            f = listed[t]
            if face_box_meets(Ba, f, s0, s1, s2, t0, t1, t2) and _crosses(work, a, b, Va, Fa, f):
                flags[f] = IN_CONTACT
                rest -= 1
                listed[t], listed[rest] = listed[rest], f
            else:
                t += 1
    area = 0.0
    for t in range(count):
        if flags[listed[t]] == IN_CONTACT:
            area += areas[fa0 + listed[t]]
    return count, area


@kernel_jit
def _meets_box(Va, Fa, f, XR, Xp, Nb):
    """Whether the box of face f of A, its vertices taken to B's frame by (XR, Xp), meets
    B's box (the root box of B's tree), closed boxes."""
    for axis in range(3):
        low = math.inf
        high = -math.inf
        for corner in range(3):
            v = Fa[f, corner]
            x = XR[3 * axis] * Va[v, 0] + XR[3 * axis + 1] * Va[v, 1] + XR[3 * axis + 2] * Va[v, 2]
            x += Xp[axis]
            low = min(low, x)
            high = max(high, x)
        if low > Nb[0, 3 + axis] or high < Nb[0, axis]:
            return False
    return True


@kernel_jit
def _pierce(work, a, b, s0, s1, s2, t0, t1, t2, Va, Fa, Ba, Na, La, Ta, flags, stack):
    """Mark ``IN_CONTACT`` the candidate faces of A (``flags``) that the segment from
    work[a] to work[b] (box [s, t]) crosses: the faces of A's tree whose boxes meet the
    segment's box, then the segment-triangle test."""
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if not (Na[k, 0] <= t0 and Na[k, 3] >= s0 and Na[k, 1] <= t1 and Na[k, 4] >= s1):
            continue
        if not (Na[k, 2] <= t2 and Na[k, 5] >= s2):
            continue
        child = La[k, 0]
        if child >= 0:
            stack[top], stack[top + 1] = child + 1, child
            top += 2
            continue
        for i in range(La[k, 1], La[k, 1] + La[k, 2]):
            f = Ta[i]
            if flags[f] != CANDIDATE or not face_box_meets(Ba, f, s0, s1, s2, t0, t1, t2):
                continue
            if _crosses(work, a, b, Va, Fa, f):
                flags[f] = IN_CONTACT


@kernel_jit
def _crosses(work, a, b, Va, Fa, f):
    """Whether the segment from work[a] to work[b] crosses face f of A."""
    A, B, C = Fa[f, 0], Fa[f, 1], Fa[f, 2]
    return segment_crosses_triangle(
        work[a, 0],
        work[a, 1],
        work[a, 2],
        work[b, 0],
        work[b, 1],
        work[b, 2],
        Va[A, 0],
        Va[A, 1],
        Va[A, 2],
        Va[B, 0],
        Va[B, 1],
        Va[B, 2],
        Va[C, 0],
        Va[C, 1],
        Va[C, 2],
    )
