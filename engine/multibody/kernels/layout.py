"""The kernel layout: every array the matter kernels read from a table, declared once.

Each ``KernelArray`` names one array the way the kernels, the stage caches and the
topology name it, with its element kind, a shape rule, where it lives and the stage that
writes it. From ``LAYOUT`` come

* ``SLOT``: each array's place in a table, by name (``SLOT.V_GB``). Kernels read their
  arrays as ``f2(a, s, SLOT.V_GB)``; numba compiles the slot number as a constant;
* ``SPEC``: (name, kind, ndim) per slot, what ``ArrayTable`` checks;
* ``allocate``: the arrays one home holds (the topology, the Position, Velocity and
  Acceleration caches, the kernel scratch), zeroed or identity-filled as declared;
* ``build_table``: the table of one State, each slot filled from its home by name and its
  shape checked against the rule.

Shape rules use ``nb`` (bodies including Ground), ``nq``, ``nu`` (the matter subsystem's),
integers, and ``*`` for a length the rule does not fix (quaternion and force-term counts).
The design is described in docs/kernel-layout.md.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np

from engine.multibody.kernels.array_table import ArrayTable


class KernelArray(NamedTuple):
    """One declared kernel array: ``kind`` "f" float64 or "i" int64; ``shape`` its rule;
    ``home`` what holds it; ``writer`` the stage (or "" for an input or scratch) whose
    kernel writes it; ``init`` "zeros" or "eye" (each 3 x 3 block the identity) for
    arrays this layout allocates."""

    name: str
    kind: str
    shape: tuple
    home: str
    writer: str
    doc: str
    init: str = "zeros"


# homes: where build_table finds an array (see build_table's ``homes``)
TOPOLOGY = "topology"  # MatterTopology, built by the matter subsystem at Topology stage
STATE = "state"  # the State's q, u, qdot, udot, qdotdot partitions and books (the matter context)
POSITION = "position"  # PositionCache
VELOCITY = "velocity"  # VelocityCache
ACCELERATION = "acceleration"  # AccelerationCache (the articulated inertias too)
FORCES = "forces"  # the applied-force accumulators of the global subsystem
INSTANCE = "instance"  # fixed while Instance stage stays valid: qErr and the force terms
SCRATCH = "scratch"  # kernel scratch, owned by the matter context
CONTACT = "contact"  # compliant contact: the tracker's surfaces and the contact scratch

_A = KernelArray
LAYOUT: tuple[KernelArray, ...] = (
    _A("mtype", "i", ("nb",), TOPOLOGY, "", "mobilizer type id (TYPE_ID) per body"),
    _A("parent", "i", ("nb",), TOPOLOGY, "", "parent body index (-1 for Ground)"),
    _A("qs", "i", ("nb",), TOPOLOGY, "", "first q of each body"),
    _A("nqs", "i", ("nb",), TOPOLOGY, "", "q slots of each body"),
    _A("us", "i", ("nb",), TOPOLOGY, "", "first u of each body"),
    _A("nus", "i", ("nb",), TOPOLOGY, "", "mobilities of each body"),
    _A("params", "f", ("nb", 8), TOPOLOGY, "", "mobilizer parameters (axes, pitch)"),
    _A("R_PF", "f", ("nb", 3, 3), TOPOLOGY, "", "inboard frame F in parent P", "eye"),
    _A("p_PF", "f", ("nb", 3), TOPOLOGY, "", "origin of F in P (m)"),
    _A("R_BM", "f", ("nb", 3, 3), TOPOLOGY, "", "outboard frame M in body B", "eye"),
    _A("p_BM", "f", ("nb", 3), TOPOLOGY, "", "origin of M in B (m)"),
    _A("mass", "f", ("nb",), TOPOLOGY, "", "body mass (kg)"),
    _A("com_B", "f", ("nb", 3), TOPOLOGY, "", "mass centre from Bo in B (m)"),
    _A("I_B", "f", ("nb", 3, 3), TOPOLOGY, "", "inertia about Bo in B (kg m^2)"),
    _A("q", "f", ("nq",), STATE, "", "generalized coordinates (input)"),
    _A("u", "f", ("nu",), STATE, "", "generalized speeds (input)"),
    _A("qdot", "f", ("nq",), STATE, "Velocity", "qdot = N u"),
    _A("udot", "f", ("nu",), STATE, "Acceleration", "generalized accelerations"),
    _A("qdotdot", "f", ("nq",), STATE, "Acceleration", "N udot + NDot u"),
    _A("qerr", "f", ("*",), INSTANCE, "Position", "quaternion norm errors (qErr part)"),
    _A("quat_starts", "i", ("*",), STATE, "", "q index of each quaternion in use"),
    _A("R_FM", "f", ("nb", 3, 3), POSITION, "Position", "mobilizer rotation", "eye"),
    _A("p_FM", "f", ("nb", 3), POSITION, "Position", "mobilizer translation (m)"),
    _A("H_FM", "f", ("nb", 6, 6), POSITION, "Position", "joint map in F"),
    _A("R_GF", "f", ("nb", 3, 3), POSITION, "Position", "frame F in Ground", "eye"),
    _A("p_MB_G", "f", ("nb", 3), POSITION, "Position", "Bo from Mo, in G (m)"),
    _A("R_GB", "f", ("nb", 3, 3), POSITION, "Position", "body orientation in G", "eye"),
    _A("p_GB", "f", ("nb", 3), POSITION, "Position", "body origin in G (m)"),
    _A("H_G", "f", ("nb", 6, 6), POSITION, "Position", "joint map about Bo in G"),
    _A("Phi_G", "f", ("nb", 6, 6), POSITION, "Position", "spatial inertia about Bo in G"),
    _A("com_G", "f", ("nb", 3), POSITION, "Position", "mass centre from Bo in G (m)"),
    _A("V_GB", "f", ("nb", 6), VELOCITY, "Velocity", "body spatial velocity at Bo in G"),
    _A("V_FM", "f", ("nb", 6), VELOCITY, "Velocity", "mobilizer velocity H_FM u"),
    _A("coriolis", "f", ("nb", 6), VELOCITY, "Velocity", "body Coriolis acceleration"),
    _A("total_coriolis", "f", ("nb", 6), VELOCITY, "Velocity", "Coriolis summed from G"),
    _A("gyroscopic", "f", ("nb", 6), VELOCITY, "Velocity", "gyroscopic force at Bo in G"),
    _A("P_abi", "f", ("nb", 6, 6), ACCELERATION, "Acceleration", "articulated inertia"),
    _A("D_inv", "f", ("nb", 6, 6), ACCELERATION, "Acceleration", "(H^T P H)^-1 block"),
    _A("U_cols", "f", ("nb", 6, 6), ACCELERATION, "Acceleration", "P H block"),
    _A("A_GB", "f", ("nb", 6), ACCELERATION, "Acceleration", "body spatial acceleration"),
    _A("body_forces", "f", ("nb", 6), FORCES, "Dynamics", "applied torque, force at Bo in G"),
    _A("mobility_forces", "f", ("nu",), FORCES, "Dynamics", "applied mobility forces"),
    _A("term_ints", "i", ("*", "*"), INSTANCE, "", "compiled force terms: opcodes, indices"),
    _A("term_floats", "f", ("*", "*"), INSTANCE, "", "compiled force terms: values"),
    _A("excluded", "i", ("*",), INSTANCE, "", "bodies gravity does not act on"),
    _A("known", "i", ("nb",), SCRATCH, "", "1 where udot is prescribed (zeros here)"),
    _A("work", "f", (6, 12), SCRATCH, "", "per-body scratch"),
    _A("Pa", "f", (6, 6), SCRATCH, "", "articulated inertia being shifted"),
    _A("Nbuf", "f", (7, 6), SCRATCH, "", "one body's N or NDot block"),
    _A("hd", "f", (6,), SCRATCH, "", "one body's HDot u"),
    _A("z", "f", ("nb", 6), SCRATCH, "", "articulated bias forces"),
    _A("eps", "f", ("nu",), SCRATCH, "", "mobility force residuals"),
    _A("A", "f", ("nb", 6), SCRATCH, "", "an operator's body accelerations"),
    _A("F", "f", ("nb", 6), SCRATCH, "", "an operator's body forces"),
    _A("applied", "f", ("nb", 6), SCRATCH, "", "an operator's applied body forces"),
    # compliant contact (engine.contact.kernels.contact_stage_kernel); all empty without it
    _A("contact_body", "i", ("*",), CONTACT, "", "each surface's body"),
    _A("contact_R_BS", "f", ("*", 3, 3), CONTACT, "", "each surface's frame in its body"),
    _A("contact_p_BS", "f", ("*", 3), CONTACT, "", "each surface's origin in its body (m)"),
    _A("contact_radius", "f", ("*",), CONTACT, "", "sphere radius per surface (m)"),
    _A("contact_material", "f", ("*", 5), CONTACT, "", "k^(2/3), c, us, ud, uv per surface"),
    _A("contact_halves", "i", ("*",), CONTACT, "", "the half-space surfaces"),
    _A("contact_half_starts", "i", ("*",), CONTACT, "", "each half space's first sphere"),
    _A("contact_half_spheres", "i", ("*",), CONTACT, "", "spheres each half space may touch"),
    _A("contact_spheres", "i", ("*",), CONTACT, "", "the sphere surfaces, ascending"),
    _A("contact_clique_starts", "i", ("*",), CONTACT, "", "each surface's first clique"),
    _A("contact_cliques", "i", ("*",), CONTACT, "", "clique ids per surface, ascending"),
    _A("contact_settings", "f", ("*",), CONTACT, "", "each compliant subsystem's vt (m/s)"),
    _A("contact_R_GS", "f", ("*", 3, 3), CONTACT, "Dynamics", "surface frames in G"),
    _A("contact_p_GS", "f", ("*", 3), CONTACT, "Dynamics", "surface origins in G (m)"),
    _A("contact_order", "i", ("*",), CONTACT, "Dynamics", "spheres by lower interval end"),
    _A("contact_lo", "f", ("*",), CONTACT, "Dynamics", "spheres' lower interval ends (m)"),
    _A("contact_found", "i", ("*", 2), CONTACT, "Dynamics", "contacts found: s1, s2"),
    _A("contact_found_geometry", "f", ("*", 8), CONTACT, "Dynamics", "x, R, origin, normal"),
    _A("contact_keys", "i", ("*",), CONTACT, "Dynamics", "pair keys s1 ns + s2"),
    _A("contact_perm", "i", ("*",), CONTACT, "Dynamics", "contacts in pair-key order"),
    _A("contact_s1", "i", ("*",), CONTACT, "Dynamics", "surface 1, in pair-key order"),
    _A("contact_s2", "i", ("*",), CONTACT, "Dynamics", "surface 2, in pair-key order"),
    _A("contact_depth", "f", ("*",), CONTACT, "Dynamics", "depth x (m), in pair-key order"),
    _A("contact_eff_radius", "f", ("*",), CONTACT, "Dynamics", "effective radius (m)"),
    _A("contact_origin", "f", ("*", 3), CONTACT, "Dynamics", "halfway points in G (m)"),
    _A("contact_normal", "f", ("*", 3), CONTACT, "Dynamics", "normals 1 into 2 in G"),
    _A("contact_out", "f", ("*", 13), CONTACT, "Dynamics", "HertzCircular rows"),
    _A("contact_counts", "i", ("*",), CONTACT, "Dynamics", "contacts found at the last call"),
    _A("contact_power", "f", ("*",), CONTACT, "Dynamics", "each one's dissipated power (W)"),
    # ellipsoids and bricks on half spaces (HertzElliptical, BrickHalfSpacePenalty)
    _A("contact_kind", "i", ("*",), CONTACT, "", "ContactGeometry type id per surface"),
    _A("contact_size", "f", ("*", 3), CONTACT, "", "radii or half-lengths per surface (m)"),
    _A("contact_stiffness", "f", ("*",), CONTACT, "", "stiffness per surface (N/m^2 or N/m)"),
    _A("contact_half_other_starts", "i", ("*",), CONTACT, "", "each half space's first other"),
    _A("contact_half_others", "i", ("*",), CONTACT, "", "ellipsoids, bricks per half space"),
    # Sphere-Ellipsoid and Ellipsoid-Ellipsoid pairs (HertzElliptical), in pair-key order
    _A("contact_implicit_pairs", "i", ("*", 2), CONTACT, "", "s1, s2 of each such pair"),
    # the tracked dissipated energy, when it is the State's only z (else empty): views of
    # the State's z, zdot and z weights, for the integrators' kernels (y = [q, u, z])
    _A("contact_z", "f", ("*",), CONTACT, "", "the State's z: dissipated energy (J)"),
    _A("contact_zdot", "f", ("*",), CONTACT, "Acceleration", "the State's zdot (W)"),
    _A("contact_z_weights", "f", ("*",), CONTACT, "", "the State's z weights (1/J)"),
    # HalfSpace-TriangleMesh and Sphere-TriangleMesh pairs (ElasticFoundation), in pair-key
    # order; the meshes' faces (engine.contact.kernels.mesh_contact_kernel)
    _A("contact_mesh_pairs", "i", ("*", 2), CONTACT, "", "s1 (half space, sphere), s2 (mesh)"),
    _A("contact_mesh_face_starts", "i", ("*",), CONTACT, "", "each surface's first face"),
    _A("contact_mesh_centroids", "f", ("*", 3), CONTACT, "", "face centroids in S (m)"),
    _A("contact_mesh_areas", "f", ("*",), CONTACT, "", "face areas (m^2)"),
    _A("contact_mesh_bounds", "f", ("*", 4), CONTACT, "", "bounding sphere per surface (S, m)"),
    # the TriangleMesh-TriangleMesh pairs that may touch, in pair-key order, and the meshes'
    # query arrays (engine.contact.kernels.mesh_queries, mesh_mesh_kernel); faces by
    # contact_mesh_face_starts, vertices, edges and tree nodes by contact_mesh_starts
    _A("contact_mesh_mesh_pairs", "i", ("*", 2), CONTACT, "", "s1, s2 of each mesh pair"),
    _A("contact_mesh_starts", "i", ("*", 3), CONTACT, "", "first vertex, edge, tree node"),
    _A("contact_mesh_vertices", "f", ("*", 3), CONTACT, "", "mesh vertices in S (m)"),
    _A("contact_mesh_vertex_normals", "f", ("*", 3), CONTACT, "", "vertex pseudo-normals"),
    _A("contact_mesh_faces", "i", ("*", 3), CONTACT, "", "face corners (the mesh's vertices)"),
    _A("contact_mesh_face_normals", "f", ("*", 4, 3), CONTACT, "", "face, edge pseudo-normals"),
    _A("contact_mesh_face_boxes", "f", ("*", 6), CONTACT, "", "face boxes in S (m)"),
    _A("contact_mesh_edges", "i", ("*", 2), CONTACT, "", "edge ends (the mesh's vertices)"),
    _A("contact_mesh_nodes", "f", ("*", 6), CONTACT, "", "AABB tree node boxes in S (m)"),
    _A("contact_mesh_links", "i", ("*", 3), CONTACT, "", "node: first child, first face, faces"),
    _A("contact_mesh_tree_faces", "i", ("*",), CONTACT, "", "faces in tree order"),
    _A("contact_mesh_vertex_flags", "i", ("*",), CONTACT, "Dynamics", "vertex inside other"),
    _A("contact_mesh_face_flags", "i", ("*",), CONTACT, "Dynamics", "face candidate, touching"),
    _A("contact_mesh_candidates", "i", ("*",), CONTACT, "Dynamics", "candidate faces per mesh"),
    _A("contact_mesh_work", "f", ("*", 3), CONTACT, "Dynamics", "other mesh's vertices (m)"),
    _A("contact_mesh_stack", "i", ("*",), CONTACT, "Dynamics", "tree walk stack"),
    # the matter operators' check of their State (engine.multibody.kernels.operator_check)
    _A("books", "i", ("*",), STATE, "", "the State's books (engine.common.state_books)"),
    _A("topology_epoch", "i", (1,), STATE, "", "state_guard.TOPOLOGY_EPOCH (process-wide)"),
    _A("operators_seen", "i", (5,), SCRATCH, "", "what the operators' check confirmed"),
)
del _A

#: slot of each array in a table, by name: ``SLOT.V_GB``
SLOT = namedtuple("Slot", [d.name for d in LAYOUT])(*range(len(LAYOUT)))

#: (name, kind, ndim) per slot, as ArrayTable checks it
SPEC = tuple((d.name, d.kind, len(d.shape)) for d in LAYOUT)

#: the declaration by name
BY_NAME = {d.name: d for d in LAYOUT}

_DTYPE = {"f": np.float64, "i": np.int64}


def _shape(decl: KernelArray, dims: dict) -> tuple:
    return tuple(dims[n] if isinstance(n, str) else n for n in decl.shape)


def allocate(home: str, dims: dict) -> dict[str, np.ndarray]:
    """The arrays of ``home`` by name, shaped by their rules for ``dims`` (nb, nq, nu),
    zeroed or identity-filled as declared."""
    out = {}
    for decl in LAYOUT:
        if decl.home != home:
            continue
        arr = np.zeros(_shape(decl, dims), dtype=_DTYPE[decl.kind])
        if decl.init == "eye":
            arr[..., :, :] = np.eye(3)
        out[decl.name] = arr
    return out


def _lookup(holder, name: str):
    if isinstance(holder, dict):
        return holder[name]
    return getattr(holder, name)


def build_table(homes: dict, dims: dict) -> ArrayTable:
    """The table of one State's kernel arrays: each slot filled with the array named like
    it in its home (``homes`` maps a home, e.g. ``POSITION``, to the object or dict
    holding its arrays; a home that is left out gets empty placeholder arrays, which a
    kernel reading the table must not use), its shape checked against the rule for
    ``dims`` (nb, nq, nu). Raises ValueError naming the array on a mismatch."""
    arrays = []
    for decl in LAYOUT:
        holder = homes.get(decl.home)
        if holder is None:
            arrays.append(np.zeros((0,) * len(decl.shape), dtype=_DTYPE[decl.kind]))
            continue
        arr = _lookup(holder, decl.name)
        want = decl.shape
        got = getattr(arr, "shape", None)
        if (
            got is None
            or len(got) != len(want)
            or any(
                w != "*" and g != (dims[w] if isinstance(w, str) else w)
                for w, g in zip(want, got, strict=True)
            )
        ):
            rule = "(" + ", ".join(str(w) for w in want) + ")"
            raise ValueError(
                f"kernel layout: {decl.name} ({decl.home}) has shape {got}, the rule is "
                f"{rule} with {dims}"
            )
        arrays.append(arr)
    return ArrayTable(SPEC, tuple(arrays))


def verify_table(table: ArrayTable, homes: dict) -> None:
    """Check that each slot of ``table`` holds the array its home holds under the slot's
    name (same memory, same shape); homes left out of ``homes`` are not checked. Raises
    ValueError naming the first slot that does not."""
    for k, decl in enumerate(LAYOUT):
        holder = homes.get(decl.home)
        if holder is None:
            continue
        arr = _lookup(holder, decl.name)
        if table.addresses[k] != arr.ctypes.data or tuple(table.shapes[k, : arr.ndim]) != arr.shape:
            raise ValueError(
                f"kernel table: slot {k} ({decl.name}) does not hold {decl.home}'s {decl.name}"
            )
