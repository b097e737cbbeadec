"""One kernel for the runtime stages Position through Acceleration of a MultibodySystem
whose stage work is all compiled (see ``engine.multibody.fused_realization``).

It runs, for the stages ``first..last`` (Stage ints 5..8), exactly the kernels the
ordinary per-subsystem realization runs: ``position_stage`` and the quaternion norm
errors; ``velocity_stage``; the applied-force accumulators zeroed and filled by the
compiled force terms; ``acceleration_stage`` (with the articulated-body inertias first if
``with_inertias``). One call from Python instead of one per stage and subsystem: the
per-call cost of a Python hook and of unboxing a kernel's arrays is what dominates a
small system's realization.

Its arrays come by address and shape (an ``engine.multibody.kernels.array_table.ArrayTable``
built on ``ARRAYS``), and each stage kernel is handed exactly the arrays it uses: unboxing
~50 arrays from Python, and then passing all of them down through one more call level, was
most of a 10-body realization. The caller keeps every array of the table alive and unmoved
(``engine.multibody.fused_realization._Plan`` holds them).
"""

from __future__ import annotations

from engine.common.kernel_jit import kernel_jit
from engine.forces.compiled_terms import apply_force_terms
from engine.multibody.kernels.array_table import f1, f2, f3, i1, i2
from engine.multibody.kernels.stage_kernels import (
    acceleration_stage,
    position_stage,
    quaternion_errors,
    velocity_stage,
)

POSITION, VELOCITY, DYNAMICS, ACCELERATION = 5, 6, 7, 8

#: realize_stages' array parameters after ``euler`` is left out: (name, dtype, ndim), in
#: order. ``ArrayTable`` and ``realize_stages_from_table`` follow this list.
ARRAYS = (
    ("mtype", "i", 1),
    ("parent", "i", 1),
    ("qs", "i", 1),
    ("nqs", "i", 1),
    ("us", "i", 1),
    ("nus", "i", 1),
    ("params", "f", 2),
    ("R_PF", "f", 3),
    ("p_PF", "f", 2),
    ("R_BM", "f", 3),
    ("p_BM", "f", 2),
    ("mass", "f", 1),
    ("com_B", "f", 2),
    ("I_B", "f", 3),
    ("q", "f", 1),
    ("u", "f", 1),
    ("qdot", "f", 1),
    ("udot", "f", 1),
    ("qdotdot", "f", 1),
    ("qerr", "f", 1),
    ("quat_starts", "i", 1),
    ("R_FM", "f", 3),
    ("p_FM", "f", 2),
    ("H_FM", "f", 3),
    ("R_GF", "f", 3),
    ("p_MB_G", "f", 2),
    ("R_GB", "f", 3),
    ("p_GB", "f", 2),
    ("H_G", "f", 3),
    ("Phi_G", "f", 3),
    ("com_G", "f", 2),
    ("V_GB", "f", 2),
    ("V_FM", "f", 2),
    ("coriolis", "f", 2),
    ("total_coriolis", "f", 2),
    ("gyro", "f", 2),
    ("P_abi", "f", 3),
    ("D_inv", "f", 3),
    ("U_cols", "f", 3),
    ("A_GB", "f", 2),
    ("body_forces", "f", 2),
    ("mobility_forces", "f", 1),
    ("term_ints", "i", 2),
    ("term_floats", "f", 2),
    ("excluded", "i", 1),
    ("known", "i", 1),
    ("work", "f", 2),
    ("Pa", "f", 2),
    ("Nbuf", "f", 2),
    ("hd", "f", 1),
    ("z", "f", 2),
    ("eps", "f", 1),
)

#: each array's place in ARRAYS (and in the ArrayTable built on it), by name
SLOT = {name: k for k, (name, _, _) in enumerate(ARRAYS)}


@kernel_jit
def realize_stages_from_table(first, last, with_inertias, euler, a, s):
    """Realize the stages first..last (5 Position .. 8 Acceleration) of a tree without
    Custom mobilizers, constraints or prescribed motion, its arrays given by address
    (``a``) and shape (``s``) in ``ARRAYS`` order (see module docstring); returns the
    kinetic energy if Velocity was among them (else 0). Frames and units as the stage
    kernels'. Each stage kernel gets exactly its arrays, rebuilt here."""
    ke = 0.0
    mtype, parent, qs, nqs = i1(a, s, 0), i1(a, s, 1), i1(a, s, 2), i1(a, s, 3)
    us, nus, params = i1(a, s, 4), i1(a, s, 5), f2(a, s, 6)
    mass, com_B, q, u, qdot = f1(a, s, 11), f2(a, s, 12), f1(a, s, 14), f1(a, s, 15), f1(a, s, 16)
    R_FM, p_FM, H_FM, R_GF = f3(a, s, 21), f2(a, s, 22), f3(a, s, 23), f3(a, s, 24)
    p_MB_G, R_GB, p_GB, H_G = f2(a, s, 25), f3(a, s, 26), f2(a, s, 27), f3(a, s, 28)
    Phi_G, com_G, coriolis, gyro = f3(a, s, 29), f2(a, s, 30), f2(a, s, 33), f2(a, s, 35)
    work, Nbuf = f2(a, s, 46), f2(a, s, 48)
    if first <= POSITION:
        position_stage(
            mtype,
            parent,
            qs,
            nqs,
            nus,
            params,
            euler,
            f3(a, s, 7),  # R_PF
            f2(a, s, 8),  # p_PF
            f3(a, s, 9),  # R_BM
            f2(a, s, 10),  # p_BM
            mass,
            com_B,
            f3(a, s, 13),  # I_B
            q,
            R_FM,
            p_FM,
            H_FM,
            R_GF,
            p_MB_G,
            R_GB,
            p_GB,
            H_G,
            Phi_G,
            com_G,
            work,
            -1,
        )
        quaternion_errors(q, i1(a, s, 20), f1(a, s, 19), 0)
    if last < VELOCITY:
        return ke
    if first <= VELOCITY:
        ke = velocity_stage(
            mtype,
            parent,
            qs,
            nqs,
            us,
            nus,
            params,
            euler,
            q,
            u,
            p_GB,
            R_FM,
            p_FM,
            H_FM,
            H_G,
            R_GF,
            p_MB_G,
            Phi_G,
            com_G,
            mass,
            f2(a, s, 31),  # V_GB
            f2(a, s, 32),  # V_FM
            coriolis,
            f2(a, s, 34),  # total_coriolis
            gyro,
            qdot,
            Nbuf,
            f1(a, s, 49),  # hd
        )
    if last < DYNAMICS:
        return ke
    body_forces, mobility_forces = f2(a, s, 40), f1(a, s, 41)
    if first <= DYNAMICS:
        body_forces[:] = 0.0
        mobility_forces[:] = 0.0
        apply_force_terms(
            i2(a, s, 42),  # term_ints
            f2(a, s, 43),  # term_floats
            i1(a, s, 44),  # excluded
            mass,
            com_G,
            R_GB,
            q,
            u,
            body_forces,
            mobility_forces,
        )
    if last < ACCELERATION:
        return ke
    acceleration_stage(
        mtype,
        parent,
        qs,
        nqs,
        us,
        nus,
        params,
        euler,
        i1(a, s, 45),  # known
        R_FM,
        H_G,
        p_GB,
        f3(a, s, 36),  # P_abi
        f3(a, s, 37),  # D_inv
        f3(a, s, 38),  # U_cols
        coriolis,
        gyro,
        body_forces,
        mobility_forces,
        q,
        qdot,
        u,
        f1(a, s, 17),  # udot
        f1(a, s, 18),  # qdotdot
        f2(a, s, 39),  # A_GB
        f2(a, s, 50),  # z
        f1(a, s, 51),  # eps
        Nbuf,
        with_inertias,
        Phi_G,
        work,
        f2(a, s, 47),  # Pa
    )
    return ke
