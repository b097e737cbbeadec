"""One kernel for the runtime stages Position through Acceleration of a MultibodySystem
whose stage work is all compiled (see ``engine.multibody.fused_realization``).

It runs, for the stages ``first..last`` (Stage ints 5..8), exactly the kernels the
ordinary per-subsystem realization runs: ``position_stage`` and the quaternion norm
errors; ``velocity_stage``; the applied-force accumulators zeroed and filled by the
compiled force terms; ``acceleration_stage`` (with the articulated-body inertias first if
``with_inertias``). One call from Python instead of one per stage and subsystem: the
per-call cost of a Python hook and of unboxing a kernel's arrays is what dominates a
small system's realization.

``realize_stages_from_table`` is the same call with every array given by its address and
shape (an ``ArrayTable``): it rebuilds the arrays with ``numba.carray``, which makes
arrays without a reference count. Passing an array from Python costs about 50 ns, and
every numba-to-numba call passing a reference-counted array costs an atomic increment and
decrement, about 20 ns per array per call: with ~50 arrays going down three call levels
that was most of a 10-body realization. The caller keeps every array of the table alive
and unmoved (``engine.multibody.fused_realization._Plan`` holds them).
"""

from __future__ import annotations

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from engine.forces.compiled_terms import apply_force_terms
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
_DTYPES = {"f": np.dtype(np.float64), "i": np.dtype(np.int64)}


class ArrayTable:
    """The addresses (int64 (n,)) and shapes (int64 (n, 3)) of realize_stages' arrays,
    in ``ARRAYS`` order, with the arrays themselves (kept alive by this table)."""

    __slots__ = ("arrays", "addresses", "shapes")

    def __init__(self, arrays: tuple) -> None:
        if len(arrays) != len(ARRAYS):
            raise ValueError(f"ArrayTable: expected {len(ARRAYS)} arrays, got {len(arrays)}")
        self.arrays = arrays
        self.addresses = np.zeros(len(arrays), dtype=np.int64)
        self.shapes = np.zeros((len(arrays), 3), dtype=np.int64)
        for k, ((name, kind, ndim), a) in enumerate(zip(ARRAYS, arrays, strict=True)):
            if (
                type(a) is not np.ndarray
                or a.dtype != _DTYPES[kind]
                or a.ndim != ndim
                or not a.flags.c_contiguous
            ):
                raise ValueError(
                    f"ArrayTable: {name} must be a C-contiguous {_DTYPES[kind]} array of "
                    f"{ndim} dimensions"
                )
            self.addresses[k] = a.ctypes.data
            self.shapes[k, :ndim] = a.shape


@intrinsic
def _float64_pointer(typingctx, address):
    """The int64 ``address`` as a float64* (for numba.carray)."""
    ptr_type = types.CPointer(types.float64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(ptr_type))

    return ptr_type(address), codegen


@intrinsic
def _int64_pointer(typingctx, address):
    """The int64 ``address`` as an int64* (for numba.carray)."""
    ptr_type = types.CPointer(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(ptr_type))

    return ptr_type(address), codegen


@njit(cache=True, nogil=True)
def _f1(a, s, k):
    return carray(_float64_pointer(a[k]), (s[k, 0],))


@njit(cache=True, nogil=True)
def _f2(a, s, k):
    return carray(_float64_pointer(a[k]), (s[k, 0], s[k, 1]))


@njit(cache=True, nogil=True)
def _f3(a, s, k):
    return carray(_float64_pointer(a[k]), (s[k, 0], s[k, 1], s[k, 2]))


@njit(cache=True, nogil=True)
def _i1(a, s, k):
    return carray(_int64_pointer(a[k]), (s[k, 0],))


@njit(cache=True, nogil=True)
def _i2(a, s, k):
    return carray(_int64_pointer(a[k]), (s[k, 0], s[k, 1]))


@njit(cache=True, nogil=True)
def realize_stages(
    first,
    last,
    with_inertias,
    mtype,
    parent,
    qs,
    nqs,
    us,
    nus,
    params,
    euler,
    R_PF,
    p_PF,
    R_BM,
    p_BM,
    mass,
    com_B,
    I_B,
    q,
    u,
    qdot,
    udot,
    qdotdot,
    qerr,
    quat_starts,
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
    V_GB,
    V_FM,
    coriolis,
    total_coriolis,
    gyro,
    P_abi,
    D_inv,
    U_cols,
    A_GB,
    body_forces,
    mobility_forces,
    term_ints,
    term_floats,
    excluded,
    known,
    work,
    Pa,
    Nbuf,
    hd,
    z,
    eps,
):
    """Realize the stages first..last (5 Position .. 8 Acceleration) of a tree without
    Custom mobilizers, constraints or prescribed motion; returns the kinetic energy if
    Velocity was among them (else 0). Frames and units as the stage kernels'."""
    ke = 0.0
    if first <= POSITION:
        position_stage(
            mtype,
            parent,
            qs,
            nqs,
            nus,
            params,
            euler,
            R_PF,
            p_PF,
            R_BM,
            p_BM,
            mass,
            com_B,
            I_B,
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
        quaternion_errors(q, quat_starts, qerr, 0)
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
            V_GB,
            V_FM,
            coriolis,
            total_coriolis,
            gyro,
            qdot,
            Nbuf,
            hd,
        )
    if last < DYNAMICS:
        return ke
    if first <= DYNAMICS:
        body_forces[:] = 0.0
        mobility_forces[:] = 0.0
        apply_force_terms(
            term_ints, term_floats, excluded, mass, com_G, R_GB, q, u, body_forces, mobility_forces
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
        known,
        R_FM,
        H_G,
        p_GB,
        P_abi,
        D_inv,
        U_cols,
        coriolis,
        gyro,
        body_forces,
        mobility_forces,
        q,
        qdot,
        u,
        udot,
        qdotdot,
        A_GB,
        z,
        eps,
        Nbuf,
        with_inertias,
        Phi_G,
        work,
        Pa,
    )
    return ke


@njit(cache=True, nogil=True)
def realize_stages_from_table(first, last, with_inertias, euler, a, s):
    """realize_stages with its arrays given by address (``a``) and shape (``s``) in
    ``ARRAYS`` order (see module docstring); returns the same."""
    return realize_stages(
        first,
        last,
        with_inertias,
        _i1(a, s, 0),
        _i1(a, s, 1),
        _i1(a, s, 2),
        _i1(a, s, 3),
        _i1(a, s, 4),
        _i1(a, s, 5),
        _f2(a, s, 6),
        euler,
        _f3(a, s, 7),
        _f2(a, s, 8),
        _f3(a, s, 9),
        _f2(a, s, 10),
        _f1(a, s, 11),
        _f2(a, s, 12),
        _f3(a, s, 13),
        _f1(a, s, 14),
        _f1(a, s, 15),
        _f1(a, s, 16),
        _f1(a, s, 17),
        _f1(a, s, 18),
        _f1(a, s, 19),
        _i1(a, s, 20),
        _f3(a, s, 21),
        _f2(a, s, 22),
        _f3(a, s, 23),
        _f3(a, s, 24),
        _f2(a, s, 25),
        _f3(a, s, 26),
        _f2(a, s, 27),
        _f3(a, s, 28),
        _f3(a, s, 29),
        _f2(a, s, 30),
        _f2(a, s, 31),
        _f2(a, s, 32),
        _f2(a, s, 33),
        _f2(a, s, 34),
        _f2(a, s, 35),
        _f3(a, s, 36),
        _f3(a, s, 37),
        _f3(a, s, 38),
        _f2(a, s, 39),
        _f2(a, s, 40),
        _f1(a, s, 41),
        _i2(a, s, 42),
        _f2(a, s, 43),
        _i1(a, s, 44),
        _i1(a, s, 45),
        _f2(a, s, 46),
        _f2(a, s, 47),
        _f2(a, s, 48),
        _f1(a, s, 49),
        _f2(a, s, 50),
        _f1(a, s, 51),
    )
