"""The compliant-contact part of the fused realization's Dynamics stage
(``engine.multibody.kernels.fused_stages``): detection of half space-sphere and
sphere-sphere contacts, the HertzCircular law and the body forces, then the half
space-ellipsoid, sphere-ellipsoid and ellipsoid-ellipsoid (HertzElliptical) and half
space-brick (BrickHalfSpacePenalty) contacts, in one kernel over the table's
``contact_*`` slots (``engine.multibody.kernels.layout``), which
``ContactTrackerSubsystem._kernel_arrays`` fills.

The arithmetic is the stage-by-stage path's (``ContactTrackerSubsystem._find_contacts``,
``hertz_circular_forces``, ``apply_point_forces``), contacts taken in the same order
(ascending pair key ``s1 ns + s2``), so the body forces are the same numbers:

1. surface frames in G: ``R_GS = R_GB R_BS``, ``p_GS = p_GB + R_GB p_BS``;
2. each half space against its candidate spheres: ``d = (c - o)·n`` with ``n = -x_H``,
   ``x = r - d``, a contact where ``x > 0``;
3. spheres against spheres: sweep and prune along the axis where the sphere centres spread
   most. The spheres' order by lower interval end is kept in the table between calls and
   brought up to date by insertion sort (nearly sorted from one call to the next: about
   O(N)); pairs on one body or sharing a clique are skipped;
4. the contacts found are sorted by pair key (heapsort) and handed to
   ``hertz_circular_forces`` and ``apply_point_forces``;
5. each half space's ellipsoids and bricks, ascending (``hertz_elliptical_kernel``,
   ``brick_half_space_kernel``), merged in pair-key order with the Sphere-Ellipsoid and
   Ellipsoid-Ellipsoid pairs that may touch (``implicit_pair_kernel``, the tracker's list):
   detected and applied one by one, after the circular contacts as the stage-by-stage path
   applies its Python generators' forces after them, in the same order;
6. the half space-mesh and sphere-mesh pairs (``mesh_contact_kernel``: ElasticFoundation,
   one spring per face), after those, then the mesh-mesh pairs (``mesh_mesh_kernel``,
   called at its compiled address: compiled once, when a model with such a pair first
   realizes).

The found-contact buffers have a fixed capacity: when they fill up, the contacts so far
are applied and the buffers reused, so every force is applied whatever the capacity (the
order of summation then differs from the stage-by-stage path's, by rounding only).
Each CompliantContactSubsystem of the System makes forces of every contact (Simbody's
semantics: all trackers see the same surfaces, so they report the same contacts, and each
compliant subsystem applies the forces of its tracker's contacts). ``contact_settings``
holds one transition velocity per compliant subsystem, in subsystem order; steps 2-6 run
once for each (the stage-by-stage path's order: one subsystem's forces after the other's),
and none for a System whose trackers have no compliant subsystem. ``contact_counts[0]`` is
the number of contacts of the last call (0 without a compliant subsystem),
``contact_power[g]`` the dissipated power (W) of compliant subsystem g's forces, the
derivative of its dissipated energy when it is tracked.
"""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit
from engine.common.numba_internals import f1, f2, f3, i1, i2
from engine.contact.kernels.brick_half_space_kernel import half_space_brick_force
from engine.contact.kernels.hertz_circular_kernel import apply_point_forces, hertz_circular_forces
from engine.contact.kernels.hertz_elliptical_kernel import half_space_ellipsoid_force
from engine.contact.kernels.implicit_pair_kernel import DIRECTIONS, implicit_pair_force
from engine.contact.kernels.mesh_contact_kernel import mesh_contact_forces
from engine.contact.kernels.mesh_mesh_kernel import mesh_mesh_stage_by_address
from engine.multibody.kernels.layout import SLOT

ELLIPSOID = 2  # ContactGeometry.Ellipsoid's type id (the other kind on a half space: Brick)


@kernel_jit
def _heapsort(keys, perm, m):
    """Sort ``perm[:m]`` (filled here with 0..m-1) by ``keys`` (distinct), ascending."""
    for k in range(m):
        perm[k] = k
    # build a max-heap, then move the largest to the end repeatedly
    start = m // 2 - 1
    while start >= 0:
        _sift(keys, perm, start, m)
        start -= 1
    end = m - 1
    while end > 0:
        perm[0], perm[end] = perm[end], perm[0]
        _sift(keys, perm, 0, end)
        end -= 1


@kernel_jit
def _sift(keys, perm, root, end):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and keys[perm[child + 1]] > keys[perm[child]]:
            child += 1
        if keys[perm[root]] < keys[perm[child]]:
            perm[root], perm[child] = perm[child], perm[root]
            root = child
        else:
            return


@kernel_jit
def _share_clique(starts, cliques, i, j):
    """True if surfaces i and j have a clique in common (ascending clique lists)."""
    a, a_end = starts[i], starts[i + 1]
    b, b_end = starts[j], starts[j + 1]
    while a < a_end and b < b_end:
        if cliques[a] == cliques[b]:
            return True
        if cliques[a] < cliques[b]:
            a += 1
        else:
            b += 1
    return False


@kernel_jit
def _flush(g, m, ns, a, s, p_GB, V_GB, body_forces):
    """Apply the m contacts in the found buffers, in pair-key order, with the transition
    velocity of CompliantContactSubsystem ``g`` (``contact_settings[g]``); adds their
    dissipated power to ``contact_power[g]``."""
    if m == 0:
        return
    found = i2(a, s, SLOT.contact_found)
    geometry = f2(a, s, SLOT.contact_found_geometry)
    keys = i1(a, s, SLOT.contact_keys)
    perm = i1(a, s, SLOT.contact_perm)
    s1 = i1(a, s, SLOT.contact_s1)
    s2 = i1(a, s, SLOT.contact_s2)
    depth = f1(a, s, SLOT.contact_depth)
    radius = f1(a, s, SLOT.contact_eff_radius)
    origin = f2(a, s, SLOT.contact_origin)
    normal = f2(a, s, SLOT.contact_normal)
    out = f2(a, s, SLOT.contact_out)
    for k in range(m):
        keys[k] = found[k, 0] * ns + found[k, 1]
    _heapsort(keys, perm, m)
    for k in range(m):
        r = perm[k]
        s1[k], s2[k] = found[r, 0], found[r, 1]
        depth[k], radius[k] = geometry[r, 0], geometry[r, 1]
        origin[k, 0], origin[k, 1], origin[k, 2] = geometry[r, 2], geometry[r, 3], geometry[r, 4]
        normal[k, 0], normal[k, 1], normal[k, 2] = geometry[r, 5], geometry[r, 6], geometry[r, 7]
    body = i1(a, s, SLOT.contact_body)
    material = f2(a, s, SLOT.contact_material)
    vt = f1(a, s, SLOT.contact_settings)[g]
    hertz_circular_forces(
        origin[:m],
        normal[:m],
        depth[:m],
        radius[:m],
        s1[:m],
        s2[:m],
        material,
        body,
        p_GB,
        V_GB,
        vt,
        out[:m],
    )
    apply_point_forces(out[:m], s1[:m], s2[:m], body, p_GB, body_forces)
    power = f1(a, s, SLOT.contact_power)
    for k in range(m):
        power[g] += out[k, 7]


@kernel_jit
def _record(g, m, i, j, x, radius, o0, o1, o2, n0, n1, n2, a, s, p_GB, V_GB, body_forces):
    """Add one contact to the found buffers (applying them first if full, for
    CompliantContactSubsystem ``g``); returns the new count."""
    found = i2(a, s, SLOT.contact_found)
    if m == found.shape[0]:
        _flush(g, m, f2(a, s, SLOT.contact_p_GS).shape[0], a, s, p_GB, V_GB, body_forces)
        m = 0
    geometry = f2(a, s, SLOT.contact_found_geometry)
    found[m, 0], found[m, 1] = i, j
    geometry[m, 0], geometry[m, 1] = x, radius
    geometry[m, 2], geometry[m, 3], geometry[m, 4] = o0, o1, o2
    geometry[m, 5], geometry[m, 6], geometry[m, 7] = n0, n1, n2
    return m + 1


@kernel_jit
def contact_stage(a, s, p_GB, R_GB, V_GB, body_forces):
    """Find the half space-sphere, sphere-sphere, half space-ellipsoid, half space-brick,
    sphere-ellipsoid and ellipsoid-ellipsoid contacts of the bodies at ``p_GB``, ``R_GB``
    and add their HertzCircular, HertzElliptical and BrickHalfSpacePenalty forces (bodies
    moving with ``V_GB`` [w, v] in G) into ``body_forces`` (nb, 6) [moment about Bo,
    force] in G, once for each CompliantContactSubsystem (``contact_settings``). Nothing
    without surfaces. Returns the number of contacts."""
    body = i1(a, s, SLOT.contact_body)
    ns = body.shape[0]
    counts = i1(a, s, SLOT.contact_counts)
    if ns == 0:
        return 0
    R_BS = f3(a, s, SLOT.contact_R_BS)
    p_BS = f2(a, s, SLOT.contact_p_BS)
    R_GS = f3(a, s, SLOT.contact_R_GS)
    p_GS = f2(a, s, SLOT.contact_p_GS)
    for k in range(ns):
        b = body[k]
        for r in range(3):
            for c in range(3):
                R_GS[k, r, c] = (
                    R_GB[b, r, 0] * R_BS[k, 0, c]
                    + R_GB[b, r, 1] * R_BS[k, 1, c]
                    + R_GB[b, r, 2] * R_BS[k, 2, c]
                )
            p_GS[k, r] = p_GB[b, r] + (
                R_GB[b, r, 0] * p_BS[k, 0] + R_GB[b, r, 1] * p_BS[k, 1] + R_GB[b, r, 2] * p_BS[k, 2]
            )
    total = 0
    settings = f1(a, s, SLOT.contact_settings)
    power = f1(a, s, SLOT.contact_power)
    for g in range(settings.shape[0]):
        power[g] = 0.0
        total = _compliant_forces(g, a, s, p_GB, V_GB, body_forces)
    counts[0] = total
    return total


@kernel_jit
def _compliant_forces(g, a, s, p_GB, V_GB, body_forces):
    """Find the contacts (surface frames already in ``contact_R_GS``, ``contact_p_GS``)
    and add the forces CompliantContactSubsystem ``g`` makes of them (its transition
    velocity ``contact_settings[g]``; its dissipated power into ``contact_power[g]``).
    Returns the number of contacts."""
    body = i1(a, s, SLOT.contact_body)
    ns = body.shape[0]
    radii = f1(a, s, SLOT.contact_radius)
    R_GS = f3(a, s, SLOT.contact_R_GS)
    p_GS = f2(a, s, SLOT.contact_p_GS)
    total = 0
    m = 0
    # half spaces against their spheres
    halves = i1(a, s, SLOT.contact_halves)
    starts = i1(a, s, SLOT.contact_half_starts)
    candidates = i1(a, s, SLOT.contact_half_spheres)
    for t in range(halves.shape[0]):
        h = halves[t]
        n0, n1, n2 = -R_GS[h, 0, 0], -R_GS[h, 1, 0], -R_GS[h, 2, 0]
        for c in range(starts[t], starts[t + 1]):
            j = candidates[c]
            d = (
                (p_GS[j, 0] - p_GS[h, 0]) * n0
                + (p_GS[j, 1] - p_GS[h, 1]) * n1
                + (p_GS[j, 2] - p_GS[h, 2]) * n2
            )
            x = radii[j] - d
            if x > 0.0:
                back = d + 0.5 * x
                m = _record(
                    g,
                    m,
                    h,
                    j,
                    x,
                    radii[j],
                    p_GS[j, 0] - back * n0,
                    p_GS[j, 1] - back * n1,
                    p_GS[j, 2] - back * n2,
                    n0,
                    n1,
                    n2,
                    a,
                    s,
                    p_GB,
                    V_GB,
                    body_forces,
                )
                total += 1
    # spheres against spheres: sweep and prune
    spheres = i1(a, s, SLOT.contact_spheres)
    n = spheres.shape[0]
    if n > 1:
        clique_starts = i1(a, s, SLOT.contact_clique_starts)
        cliques = i1(a, s, SLOT.contact_cliques)
        order = i1(a, s, SLOT.contact_order)
        lo = f1(a, s, SLOT.contact_lo)
        axis = 0
        spread = -1.0
        for ax in range(3):
            low = math.inf
            high = -math.inf
            for k in range(n):
                v = p_GS[spheres[k], ax]
                low = min(low, v)
                high = max(high, v)
            if high - low > spread:
                spread = high - low
                axis = ax
        for k in range(n):
            lo[k] = p_GS[spheres[k], axis] - radii[spheres[k]]
        for k in range(1, n):  # insertion sort of the kept order
            item = order[k]
            key = lo[item]
            c = k - 1
            while c >= 0 and lo[order[c]] > key:
                order[c + 1] = order[c]
                c -= 1
            order[c + 1] = item
        for u in range(n):
            i = order[u]
            si = spheres[i]
            top = p_GS[si, axis] + radii[si]
            for w in range(u + 1, n):
                j = order[w]
                if lo[j] > top:
                    break
                sj = spheres[j]
                s1, s2 = min(si, sj), max(si, sj)
                if body[s1] == body[s2]:
                    continue
                if _share_clique(clique_starts, cliques, s1, s2):
                    continue
                d0 = p_GS[s2, 0] - p_GS[s1, 0]
                d1 = p_GS[s2, 1] - p_GS[s1, 1]
                d2 = p_GS[s2, 2] - p_GS[s1, 2]
                dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
                r1, r2 = radii[s1], radii[s2]
                x = r1 + r2 - dist
                if not (x > 0.0 and dist != 0.0):
                    continue
                n0, n1, n2 = d0 / dist, d1 / dist, d2 / dist
                out = r1 - 0.5 * x
                m = _record(
                    g,
                    m,
                    s1,
                    s2,
                    x,
                    r1 * r2 / (r1 + r2),
                    p_GS[s1, 0] + out * n0,
                    p_GS[s1, 1] + out * n1,
                    p_GS[s1, 2] + out * n2,
                    n0,
                    n1,
                    n2,
                    a,
                    s,
                    p_GB,
                    V_GB,
                    body_forces,
                )
                total += 1
    _flush(g, m, ns, a, s, p_GB, V_GB, body_forces)
    # half spaces against their ellipsoids and bricks, and the sphere-ellipsoid and
    # ellipsoid-ellipsoid pairs, merged in pair-key order, after the circular contacts (the
    # stage-by-stage path's order)
    kind = i1(a, s, SLOT.contact_kind)
    size = f2(a, s, SLOT.contact_size)
    stiffness = f1(a, s, SLOT.contact_stiffness)
    material = f2(a, s, SLOT.contact_material)
    other_starts = i1(a, s, SLOT.contact_half_other_starts)
    others = i1(a, s, SLOT.contact_half_others)
    pairs = i2(a, s, SLOT.contact_implicit_pairs)
    vt = f1(a, s, SLOT.contact_settings)[g]
    power = f1(a, s, SLOT.contact_power)
    q = 0
    for t in range(other_starts.shape[0] - 1):
        h = halves[t]
        for c in range(other_starts[t], other_starts[t + 1]):
            j = others[c]
            while q < pairs.shape[0] and pairs[q, 0] * ns + pairs[q, 1] < h * ns + j:
                found, watts = implicit_pair_force(
                    pairs[q, 0],
                    pairs[q, 1],
                    R_GS,
                    p_GS,
                    kind,
                    size,
                    DIRECTIONS,
                    material,
                    body,
                    p_GB,
                    V_GB,
                    vt,
                    body_forces,
                )
                total += found
                power[g] += watts
                q += 1
            if kind[j] == ELLIPSOID:
                found, watts = half_space_ellipsoid_force(
                    h, j, R_GS, p_GS, size, material, body, p_GB, V_GB, vt, body_forces
                )
            else:
                found, watts = half_space_brick_force(
                    h, j, R_GS, p_GS, size, stiffness, material, body, p_GB, V_GB, vt, body_forces
                )
            total += found
            power[g] += watts
    while q < pairs.shape[0]:
        found, watts = implicit_pair_force(
            pairs[q, 0],
            pairs[q, 1],
            R_GS,
            p_GS,
            kind,
            size,
            DIRECTIONS,
            material,
            body,
            p_GB,
            V_GB,
            vt,
            body_forces,
        )
        total += found
        power[g] += watts
        q += 1
    # half spaces and spheres against triangle meshes (ElasticFoundation)
    mesh_pairs = i2(a, s, SLOT.contact_mesh_pairs)
    if mesh_pairs.shape[0]:
        found, watts = mesh_contact_forces(
            mesh_pairs,
            i1(a, s, SLOT.contact_mesh_face_starts),
            f2(a, s, SLOT.contact_mesh_centroids),
            f1(a, s, SLOT.contact_mesh_areas),
            f2(a, s, SLOT.contact_mesh_bounds),
            kind,
            size,
            stiffness,
            material,
            body,
            R_GS,
            p_GS,
            p_GB,
            V_GB,
            vt,
            body_forces,
        )
        total += found
        power[g] += watts
    # triangle meshes against triangle meshes (ElasticFoundation)
    if i2(a, s, SLOT.contact_mesh_mesh_pairs).shape[0]:
        found, watts = mesh_mesh_stage_by_address(g, a, s, p_GB, V_GB, body_forces)
        total += found
        power[g] += watts
    return total
