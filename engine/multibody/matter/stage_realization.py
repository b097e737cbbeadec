"""The matter subsystem's Position, Velocity and Acceleration realizations and its hot
O(n) operators, each one numba call over preallocated arrays.

Per State, the arrays a realization touches (the State's q, u, qdot, udot, qdotdot
partitions, this subsystem's cache entries, the applied-force accumulators and kernel
scratch) are looked up once and kept in a ``_RealizeContext`` stored in the State's
``_fast`` slot; the State empties that slot whenever it reallocates its Model-stage
arrays (and a copy starts with it empty), so a context never outlives its arrays. What
is fixed only while Instance stage stays valid (the constraint and prescribed-motion
layouts, the qErr view) is kept in the context as an ``_InstanceInfo`` tagged with the
Instance stage version it was read at.

The articulated body inertias depend on q only. They are kept in the lazy
"articulated body inertias" cache entry (``LazyRealizationMixin``) and recomputed at
Acceleration stage only when q changed since they were computed, as Simbody does: after
a change of u only the O(n) solve runs (after a change of q both passes run in one kernel
call). The Acceleration cache's P_abi, D_inv and U_cols
are the same arrays.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.numba_internals import compiled_entry_point
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.state_books import ENTRY_EDITS, SERIAL
from engine.common.state_guard import TOPOLOGY_EPOCH
from engine.multibody.kernels import layout
from engine.multibody.kernels.checked_operators import ENTRY, NOT_FINITE, WRONG_LENGTH
from engine.multibody.kernels.checked_residual import INPUT_NAMES, OUT_WRONG_LENGTH
from engine.multibody.kernels.n_operators import N_OP, NDOT_OP
from engine.multibody.kernels.operator_check import (
    SEEN_EDITS,
    SEEN_EDITS_MASK,
    SEEN_EPOCH,
    SEEN_POSITION,
    SEEN_VELOCITY,
    STALE,
)
from engine.multibody.kernels.stage_kernels import (
    acceleration_stage,
    articulated_inertias,
    articulated_solve,
    position_stage,
    quaternion_errors,
    velocity_stage,
)
from engine.multibody.matter.arguments import (
    body_forces,
    output_array,
    sized_body_forces,
    sized_vector,
    vector,
)

try:  # Custom mobilizers (Python kinematics) are handled around the kernels
    from engine.multibody.mobilizers.custom import TYPE_ID as _CUSTOM_TYPE_ID
except ImportError:  # pragma: no cover - the Custom mobilizer module is optional
    _CUSTOM_TYPE_ID = -1


# looked up once (Enum access is slow)
_INSTANCE, _POSITION, _VELOCITY = Stage.Instance, Stage.Position, Stage.Velocity
_INSTANCE_INT = int(Stage.Instance)
_POSITION_INT, _VELOCITY_INT = int(Stage.Position), int(Stage.Velocity)
_FLOAT64 = np.dtype(np.float64)
_NDARRAY = np.ndarray
_empty = np.empty


def checks_own_state(fn):
    """Mark an operator that checks itself that its State belongs to its System's current
    topology (``_operator_context``), so that ``engine.common.state_guard`` does not wrap it
    in a second, generic check."""
    fn._guards_state = True
    return fn


class _InstanceInfo:
    """What one State's matter realizations look up that stays fixed while its Instance
    stage stays valid: the constraint and prescribed-motion layouts (Instance cache
    entries) and this subsystem's views of the constraint-error arrays (allocated at
    Instance). Kept in the context with the Instance stage version it was read at."""

    __slots__ = ("version", "yerr", "clayout", "playout", "qerr", "quat_offset")


class _RealizeContext:
    """The arrays one State's matter realizations use (see module docstring)."""

    __slots__ = (
        "topo",
        "nb",
        "nu",
        "sub",
        "euler",
        "q",
        "u",
        "qdot",
        "udot",
        "qdotdot",
        "pc",
        "vc",
        "ac",
        "abi_entry",
        "abi",
        "cbi_entry",
        "cbi",
        "forces",
        "scratch",
        "quat_starts",
        "books",
        "topology_epoch",
        "has_custom",
        "inst",
        "table",
        "pos_args",
        "vel_args",
        "acc_args",
        "pos_fn",
        "vel_fn",
        "acc_fn",
    )


class _Operators:
    """What the O(n) operators read on every call for one State, kept in its ``_fast``
    slot under the matter subsystem itself (hashed by identity: one dict lookup, no
    attribute read; emptied with its arrays, never copied):

    * ``system``: the subsystem's System (the State must hold its current topology key);
      ``sub``: the subsystem's PerSubsystemInfo in this State;
    * ``position``, ``velocity``: the version of Position (Velocity) stage when the
      subsystem was last seen at that stage or later (None if it was not). Invalidating a
      stage gives it and every later stage a new version, so while
      ``sub.stage_version(Position)`` equals ``position`` the subsystem is still at
      Position stage and nothing at Position stage or below has changed since;
    * ``seen``: the table's ``operators_seen`` (``kernels/operator_check.py``): the State's
      invalidation serial when each stage was last confirmed (-1 if it was not reached)
      and the topology epoch then. Every invalidation of any stage changes the serial, so
      while it is unchanged no stage was invalidated: each operator's kernel compares them
      first (status STALE), and ``stage_version`` is read only after an invalidation;
    * read with ``position`` and ``velocity``, and so valid with them: ``playout`` (the
      prescribed-motion layout if any udot is prescribed, else None) and ``abi_version``,
      ``cbi_version`` (the version of the earliest stage of the articulated and composite
      inertias entries, Instance: an entry realized at that version is current);
    * the kernel table (``a`` addresses, ``s`` shapes: the operators' kernels take the
      shapes alone, whose last row leads to the addresses), ``nb``, ``nu``, the lazy entries,
      the composite inertias array, and the shapes a vector (nu,) and body forces
      (nb, 2, 3) must have.
    """

    __slots__ = (
        "system",
        "sub",
        "position",
        "velocity",
        "seen",
        "playout",
        "abi_version",
        "cbi_version",
        "a",
        "s",
        "nb",
        "nu",
        "abi_entry",
        "cbi_entry",
        "cbi",
        "vec",
        "body",
    )


def _refuse(status: int, values, n: int, what: str, out=None, shape: tuple = ()) -> None:
    """Raise the InvalidArgumentError for an operator kernel's refusal of the vector
    ``values`` (named ``what``, as "multiplyByM: a") or of the caller's ``out`` (which
    must have ``shape``): the input's wrong length (WRONG_LENGTH: ``sized_vector``'s
    message), then ``out``'s shape or overlap with the input (``output_array``'s message),
    then a NaN or infinity in the input."""
    if status == WRONG_LENGTH:
        sized_vector(values, n, what)
    operator, _, argument = what.partition(": ")
    if out is not None:
        output_array(out, shape, operator, {argument: values})
    if status == NOT_FINITE:
        raise InvalidArgumentError(f"{what}: values must be finite (no NaN or infinity)")
    raise InvalidArgumentError(f"{operator}: out: must not share memory with the input {argument}")


def _refuse_out(out, shape: tuple, what: str) -> None:
    """Raise ``output_array``'s InvalidArgumentError for the caller's ``out`` of the
    operator ``what`` (which takes no array input), refused by its entry point or kernel."""
    output_array(out, shape, what)
    raise InvalidArgumentError(f"{what}: out: refused")  # (output_array has raised)


class StageRealizationMixin:
    """realizeSubsystem{Position,Velocity,Acceleration}Impl and the O(n) operators
    multiplyByM, multiplyByMInv, calcResidualForceIgnoringConstraints,
    calcAccelerationIgnoringConstraints and calcSystemJacobian."""

    # ------------------------------------------------------------ context
    def _context(self, state: State) -> _RealizeContext:
        fast = state._fast
        ctx = fast.get(id(self))
        if ctx is None:
            ctx = self._make_context(state)
            fast[id(self)] = ctx
        return ctx

    def _make_context(self, state: State) -> _RealizeContext:
        topo = self._topo()
        sx = self.getMySubsystemIndex()
        ctx = _RealizeContext()
        ctx.topo = topo
        ctx.sub = state.getPerSubsystemInfo(sx)
        ctx.euler = bool(self.getDiscreteVariable(state, self._ix.use_euler))
        y, ydot = state._y, state._ydot
        sub = ctx.sub
        nq0, nq, nu = sub.q_start, sub.nq, sub.nu
        u0 = state._nq + sub.u_start
        ctx.q = y[nq0 : nq0 + nq]
        ctx.u = y[u0 : u0 + nu]
        ctx.qdot = ydot[nq0 : nq0 + nq]
        ctx.udot = ydot[u0 : u0 + nu]
        ctx.qdotdot = state._qdotdot[nq0 : nq0 + nq]
        ctx.pc = state.updCacheEntry(sx, self._ix.position)
        ctx.vc = state.updCacheEntry(sx, self._ix.velocity)
        ctx.ac = state.updCacheEntry(sx, self._ix.acceleration)
        abi_index = self._ix.extra.get("abi")
        if abi_index is not None:
            ctx.abi_entry = state.getPerSubsystemInfo(sx).cache[abi_index]
            ctx.abi = state.updCacheEntry(sx, abi_index)
            ctx.ac.P_abi, ctx.ac.D_inv, ctx.ac.U_cols = ctx.abi
        else:
            ctx.abi_entry = None
            ctx.abi = (ctx.ac.P_abi, ctx.ac.D_inv, ctx.ac.U_cols)
        # the lazy composite-inertias entry (LazyRealizationMixin) and its (nb, 6, 6) value
        ctx.cbi_entry = ctx.sub.cache[self._ix.extra["cbi"]]
        ctx.cbi = ctx.cbi_entry.value
        ctx.nb, ctx.nu = topo.nb, topo.nu  # (topo.nu sums an array each time)
        ctx.scratch = layout.allocate(layout.SCRATCH, {"nb": ctx.nb, "nu": ctx.nu})
        ctx.has_custom = self._has_custom_bodies()
        order = [] if ctx.euler else topo.quaternion_pool_order
        ctx.quat_starts = np.asarray(topo.qs, dtype=np.int64)[np.asarray(order, dtype=np.intp)]
        ctx.books, ctx.topology_epoch = state._books, TOPOLOGY_EPOCH
        ctx.forces = self._force_accumulators(state)
        ctx.table = layout.build_table(self._kernel_homes(ctx), self._kernel_dims(ctx))
        # the stage kernels' arguments never change for this State
        a, s = ctx.table.addresses, ctx.table.shapes
        ctx.pos_args = (ctx.euler, _CUSTOM_TYPE_ID, a, s)
        ctx.vel_args = (ctx.euler, a, s)
        ctx.acc_args = ((False, ctx.euler, a, s), (True, ctx.euler, a, s))
        ctx.pos_fn, ctx.vel_fn, ctx.acc_fn = position_stage, velocity_stage, acceleration_stage
        ctx.inst = None
        return ctx

    def _operator_context(self, state: State, stage: Stage, what: str) -> _RealizeContext:
        """The context of ``state`` for the operator ``what``, after its checks: the State
        was made by this System's current topology (else TopologyMismatchError), and the
        matter subsystem is at ``stage`` (Position or Velocity) or has the position or
        velocity kinematics realized explicitly (else StageTooLowError). The common case
        (a context exists and the stage is reached) costs two compares."""
        system = self._system
        if system is not None and getattr(state, "_topology_key", None) is not (
            system._topology_key
        ):
            system._check_state(state, f"SimbodyMatterSubsystem.{what}")
        ctx = state._fast.get(id(self))
        if ctx is None or ctx.sub.stage < stage:
            if stage is _POSITION:
                self._require_position_kinematics(state, what)
            else:
                self._require_velocity_kinematics(state, what)
            if ctx is None:
                ctx = self._context(state)
        return ctx

    def _force_accumulators(self, state: State):
        """The applied-force accumulators (body forces (nb, 6), mobility forces (nu,)) the
        Acceleration stage reads, or None if this subsystem's System has none."""
        system = self.getSystem()
        get_global = getattr(system, "getGlobalSubsystem", None)
        return get_global().updForces(state) if get_global is not None else None

    @staticmethod
    def _kernel_dims(ctx: _RealizeContext) -> dict:
        """The sizes the kernel layout's shape rules refer to."""
        return {"nb": ctx.nb, "nq": ctx.q.shape[0], "nu": ctx.nu}

    @staticmethod
    def _kernel_homes(ctx: _RealizeContext) -> dict:
        """Where this State's kernel arrays live, by layout home (the Instance-stage ones,
        which the fused realization adds, left out)."""
        homes = {
            layout.TOPOLOGY: ctx.topo,
            layout.STATE: ctx,
            layout.POSITION: ctx.pc,
            layout.VELOCITY: ctx.vc,
            layout.ACCELERATION: ctx.ac,
            layout.SCRATCH: ctx.scratch,
        }
        if ctx.forces is not None:
            body_forces, mobility_forces = ctx.forces
            homes[layout.FORCES] = {
                "body_forces": body_forces,
                "mobility_forces": mobility_forces,
            }
        return homes

    def _instance_info(self, state: State, ctx: _RealizeContext | None = None) -> _InstanceInfo:
        """The Instance-stage lookups of this State (see _InstanceInfo), read again only
        after Instance stage was invalidated. The caller has checked that this subsystem is
        at Instance stage or later."""
        if ctx is None:
            ctx = self._context(state)
        sub = ctx.sub
        version = sub.stage_version(_INSTANCE_INT)
        info = ctx.inst
        if info is not None and info.version == version and info.yerr is state._yerr:
            return info
        info = _InstanceInfo()
        info.version, info.yerr = version, state._yerr
        extra = self._ix.extra
        ix = extra.get("constraint_layout")
        info.clayout = sub.cache[ix].value if ix is not None else None
        ix = extra.get("prescribed_layout")
        info.playout = sub.cache[ix].value if ix is not None else None
        info.qerr = state.updQErr(self.getMySubsystemIndex())
        info.quat_offset = info.clayout.mp if info.clayout is not None else 0
        if sub.stage >= _INSTANCE:  # (values read while realizing Instance are not kept)
            ctx.inst = info
        return info

    def _has_custom_bodies(self) -> bool:
        custom = getattr(self, "_custom_bodies", None)
        return bool(custom()) if custom is not None else False

    def _applied_forces(self, state: State, ctx: _RealizeContext):
        """(body forces, mobility forces) the Acceleration stage reads (Dynamics stage)."""
        return ctx.forces if ctx.forces is not None else self.getSystem().getAppliedForces(state)

    # ------------------------------------------------------------ realization
    def realizeSubsystemPositionImpl(self, state: State) -> None:
        ctx = self._context(state)
        if ctx.has_custom:
            self._custom_position(state, ctx.pc)
        fn = ctx.pos_fn
        fn(*ctx.pos_args)
        if fn is position_stage:
            ctx.pos_fn = compiled_entry_point(position_stage, ctx.pos_args)
        if ctx.quat_starts.shape[0]:
            # quaternion norm errors, in pool order, after the position constraint errors
            info = self._instance_info(state, ctx)
            quaternion_errors(ctx.q, ctx.quat_starts, info.qerr, info.quat_offset)

    def realizeSubsystemVelocityImpl(self, state: State) -> None:
        ctx = self._context(state)
        vc = ctx.vc
        fn = ctx.vel_fn
        vc.kinetic_energy = fn(*ctx.vel_args)
        if fn is velocity_stage:
            ctx.vel_fn = compiled_entry_point(velocity_stage, ctx.vel_args)
        if ctx.has_custom:
            self._custom_velocity(state, ctx.pc, vc)

    def _abi_current(self, ctx: _RealizeContext) -> bool:
        """True if the articulated inertias were computed since q last changed."""
        entry = ctx.abi_entry
        return entry is not None and entry.realized_version == ctx.sub.stage_version(entry.earliest)

    def _mark_abi(self, state: State, ctx: _RealizeContext) -> None:
        """The articulated inertias were just computed: mark the lazy entry realized."""
        entry = ctx.abi_entry
        if entry is not None:
            state.markCacheValueRealized(self.getMySubsystemIndex(), entry.index)

    def _articulated_arrays(self, state: State, ctx: _RealizeContext):
        """(P, D^-1, U) per body, recomputed only if q changed since they were computed."""
        if self._abi_current(ctx):
            return ctx.abi
        topo, pc, sc = ctx.topo, ctx.pc, ctx.scratch
        P, Di, U = ctx.abi
        articulated_inertias(
            topo.parent,
            topo.nus,
            sc["known"],
            pc.H_G,
            pc.Phi_G,
            pc.p_GB,
            P,
            Di,
            U,
            sc["work"],
            sc["Pa"],
        )
        self._mark_abi(state, ctx)
        return ctx.abi

    def realizeSubsystemAccelerationImpl(self, state: State) -> None:
        ctx = self._context(state)
        if ctx.has_custom or ctx.forces is None:  # (no accumulators: getAppliedForces says so)
            self._articulated_arrays(state, ctx)
            self._custom_acceleration(state, ctx)
            return
        args = ctx.acc_args
        fn = ctx.acc_fn
        if self._abi_current(ctx):
            fn(*args[0])
        else:  # the articulated inertias first, in the same kernel call
            fn(*args[1])
            self._mark_abi(state, ctx)
        if fn is acceleration_stage:  # both argument tuples have the same types
            ctx.acc_fn = compiled_entry_point(acceleration_stage, args[0])

    def _custom_acceleration(self, state: State, ctx: _RealizeContext) -> None:
        """The Acceleration stage when Custom bodies need their Python N and NDot blocks."""
        topo, pc, vc, ac, sc = ctx.topo, ctx.pc, ctx.vc, ctx.ac, ctx.scratch
        P, Di, U = ctx.abi
        body_forces, mobility_forces = self._applied_forces(state, ctx)
        articulated_solve(
            topo.parent,
            topo.us,
            topo.nus,
            sc["known"],
            pc.H_G,
            pc.p_GB,
            P,
            Di,
            U,
            vc.coriolis,
            vc.gyroscopic,
            body_forces,
            mobility_forces,
            ctx.udot,
            ac.A_GB,
            sc["z"],
            sc["eps"],
        )
        qdotdot = ctx.qdotdot
        self._apply_n(state, NDOT_OP, False, ctx.u, qdotdot)
        qdotdot += self._n_times(state, N_OP, False, ctx.udot)

    # ------------------------------------------------------------ operators
    # Each operator finds the State's _Operators (a record made by _operators after its
    # full check) and makes one compiled call, whose kernel first checks that nothing the
    # full check depends on has changed since (operator_check.stale: status STALE, nothing
    # done); then _operators checks again, raising the typed error or recording the new
    # serial, and the operator is called again. The operators with one input pass it to
    # the entry point as given: the entry point refuses with TypeError anything but an
    # ndarray of the kernel's number of dimensions and dtype float64, before anything is
    # read (numba_internals.checked_float64_array); the kernel checks its length and
    # values.
    #
    # _OUT: the operators that return a new array take an optional last argument ``out``
    # (numpy's convention, and Simbody's output reference; positional or keyword, since a
    # keyword-only parameter makes every call of the method slower): the result is
    # written into it and it is returned, nothing is allocated. The entry point refuses
    # with TypeError (the slow path then) an ``out`` that is not a writable, C-contiguous
    # float64 ndarray of the result's number of dimensions; the kernel refuses one of the
    # wrong shape (WRONG_LENGTH) or whose memory span overlaps an input's (OVERLAP: their
    # byte bounds, as np.may_share_memory), before anything is computed; either way
    # ``output_array`` raises the typed error. A refused ``out`` is left as it was.
    #
    # _SLOW_PATH: the operators with one input make that call inside ``try``: a State
    # without a record yet (KeyError), anything but a State (AttributeError), an input to
    # convert (TypeError) or a record saying the udot are prescribed all leave it for
    # _operators' full check first (so the stage is refused before the argument), then
    # the input's conversion (engine.multibody.matter.arguments: the typed errors), then the
    # operator again.

    def _operators(self, state: State, stage: Stage, what: str) -> _Operators:
        """The _Operators of ``state`` for the operator ``what`` after its checks, made or
        brought up to date: the State was made by this System's current topology (else
        TopologyMismatchError) and the matter subsystem is at ``stage`` (Position or
        Velocity) or has the position or velocity kinematics realized explicitly (else
        StageTooLowError). Records in ``seen`` what ``stage`` was confirmed at
        (``kernels/operator_check.py``). After an invalidation that left ``stage`` valid
        this costs one stage version read."""
        fast = getattr(state, "_fast", None)
        ops = fast.get(self) if fast is not None else None
        if (
            ops is not None
            and state._topology_key is ops.system._topology_key
            and not ops.seen[SEEN_EDITS_MASK]  # (no stage confirmed by explicit kinematics)
        ):
            seen = ops.seen
            if stage is _POSITION:
                version = ops.position
                if version is not None and ops.sub.stage_version(_POSITION_INT) == version:
                    seen[SEEN_POSITION], seen[SEEN_EPOCH] = state._bv[SERIAL], TOPOLOGY_EPOCH[0]
                    return ops
            else:
                version = ops.velocity
                if version is not None and ops.sub.stage_version(_VELOCITY_INT) == version:
                    seen[SEEN_VELOCITY], seen[SEEN_EPOCH] = state._bv[SERIAL], TOPOLOGY_EPOCH[0]
                    return ops
        ctx = self._operator_context(state, stage, what)
        ops = state._fast.get(self)
        if ops is None:
            ops = state._fast[self] = _Operators()
            ops.system, ops.sub = self._system, ctx.sub
            ops.a, ops.s = ctx.table.addresses, ctx.table.shapes
            ops.seen = ctx.scratch["operators_seen"]
            ops.nb, ops.nu = ctx.nb, ctx.nu
            ops.abi_entry, ops.cbi_entry, ops.cbi = ctx.abi_entry, ctx.cbi_entry, ctx.cbi
            ops.vec, ops.body = (ctx.nu,), (ctx.nb, 2, 3)
        sub, seen = ctx.sub, ops.seen
        current, serial = sub.stage, state._bv[SERIAL]
        seen[SEEN_EPOCH], seen[SEEN_EDITS], seen[SEEN_EDITS_MASK] = TOPOLOGY_EPOCH[0], 0, 0
        if current >= _POSITION:
            ops.position, seen[SEEN_POSITION] = sub.stage_version(_POSITION_INT), serial
        else:
            ops.position, seen[SEEN_POSITION] = None, -1
        if current >= _VELOCITY:
            ops.velocity, seen[SEEN_VELOCITY] = sub.stage_version(_VELOCITY_INT), serial
        else:
            ops.velocity, seen[SEEN_VELOCITY] = None, -1
        if current < stage:  # confirmed by kinematics realized explicitly (a cache entry)
            seen[SEEN_POSITION if stage is _POSITION else SEEN_VELOCITY] = serial
            seen[SEEN_EDITS], seen[SEEN_EDITS_MASK] = state._bv[ENTRY_EDITS], -1
        playout = self._instance_info(state, ctx).playout
        ops.playout = playout if playout is not None and playout.any_known_udot else None
        # (both entries' earliest stage is Instance, so these stay valid with ``position``)
        entry = ops.abi_entry
        ops.abi_version = sub.stage_version(entry.earliest) if entry is not None else None
        ops.cbi_version = sub.stage_version(ops.cbi_entry.earliest)
        return ops

    @checks_own_state
    def multiplyByMInv(self, state: State, v, out=None) -> np.ndarray:
        """M^-1 v in O(n) by the articulated-body method (Position stage). With prescribed
        motion (Motions or locks) this is M_ff^-1 on the free mobilities: prescribed
        entries of v are not read and those of the result are 0. ``out`` (see _OUT)."""
        try:
            ops = state._fast[self]
            if ops.playout is not None:
                raise TypeError
            result = _empty(ops.nu) if out is None else out
            entry = ops.abi_entry
            with_inertias = entry is None or entry.realized_version != ops.abi_version
            status = ENTRY.m_inverse_times(ops.s, with_inertias, v, result)
        except (AttributeError, KeyError, TypeError):  # see _SLOW_PATH
            what = "multiplyByMInv"
            ops = self._operators(state, _POSITION, what)
            v = sized_vector(v, ops.nu, f"{what}: v")
            if out is not None:
                output_array(out, ops.vec, what, {"v": v})
            if ops.playout is not None:
                result = self._prescribed_m_inverse_times(state, v, ops.playout)
                if out is None:
                    return result
                out[:] = result
                return out
            return self.multiplyByMInv(state, v, out=out)
        if status:
            if status == STALE:
                self._operators(state, _POSITION, "multiplyByMInv")
                return self.multiplyByMInv(state, v, out=out)
            _refuse(status, v, ops.nu, "multiplyByMInv: v", out, ops.vec)
        if with_inertias and entry is not None:
            state.markCacheValueRealized(self.getMySubsystemIndex(), entry.index)
        return result

    @checks_own_state
    def multiplyByM(self, state: State, a, out=None) -> np.ndarray:
        """M a in O(n) (Position stage). ``out`` (see _OUT)."""
        try:
            ops = state._fast[self]
            result = _empty(ops.nu) if out is None else out
            status = ENTRY.m_times(ops.s, a, result)
        except (AttributeError, KeyError, TypeError):  # see _SLOW_PATH
            ops = self._operators(state, _POSITION, "multiplyByM")
            a = sized_vector(a, ops.nu, "multiplyByM: a")
            if out is not None:
                output_array(out, ops.vec, "multiplyByM", {"a": a})
            return self.multiplyByM(state, a, out=out)
        if status:
            if status == STALE:
                self._operators(state, _POSITION, "multiplyByM")
                return self.multiplyByM(state, a, out=out)
            _refuse(status, a, ops.nu, "multiplyByM: a", out, ops.vec)
        return result

    @checks_own_state
    def calcResidualForceIgnoringConstraints(
        self, state: State, appliedMobilityForces, appliedBodyForces, knownUdot, out=None
    ) -> np.ndarray:
        """M udot + bias - f - J^T F (Velocity stage): the mobility forces still needed.
        As in Simbody, a zero-length argument means all zeros. ``out`` (see _OUT)."""
        what = "calcResidualForceIgnoringConstraints"
        try:
            ops = state._fast[self]
        except (AttributeError, KeyError):  # not a State, or no record yet
            ops = self._operators(state, _VELOCITY, what)
        vec = ops.vec
        f, F, udot = appliedMobilityForces, appliedBodyForces, knownUdot
        if (
            (type(f) is not _NDARRAY or f.dtype is not _FLOAT64 or f.shape != vec)
            or (type(F) is not _NDARRAY or F.dtype is not _FLOAT64 or F.shape != ops.body)
            or (type(udot) is not _NDARRAY or udot.dtype is not _FLOAT64 or udot.shape != vec)
        ):
            ops = self._operators(state, _VELOCITY, what)
            f = sized_vector(f, ops.nu, f"{what}: appliedMobilityForces", True)
            F = sized_body_forces(F, ops.nb, f"{what}: appliedBodyForces", True)
            udot = sized_vector(udot, ops.nu, f"{what}: knownUdot", True)
        try:
            result = _empty(ops.nu) if out is None else out
            status = ENTRY.residual(ops.a, ops.s, F, f, udot, result)
        except TypeError:  # (the entry point refused ``out``)
            ops = self._operators(state, _VELOCITY, what)
            status = OUT_WRONG_LENGTH
        if status:
            if status == STALE:
                self._operators(state, _VELOCITY, what)
                return self.calcResidualForceIgnoringConstraints(state, f, F, udot, out=out)
            if status >= OUT_WRONG_LENGTH:
                inputs = {"appliedMobilityForces": f, "appliedBodyForces": F, "knownUdot": udot}
                output_array(out, ops.vec, what, inputs)
            raise InvalidArgumentError(
                f"{what}: {INPUT_NAMES[status]}: values must be finite (no NaN or infinity)"
            )
        return result

    def calcAccelerationIgnoringConstraints(
        self, state: State, appliedMobilityForces, appliedBodyForces
    ):
        """(udot, A_GB) from the given forces, ignoring constraints (Velocity stage)."""
        self._require_velocity_kinematics(state, "calcAccelerationIgnoringConstraints")
        ctx = self._context(state)
        topo = ctx.topo
        nu, nb = ctx.nu, ctx.nb
        what = "calcAccelerationIgnoringConstraints"
        f = vector(appliedMobilityForces, nu, f"{what}: appliedMobilityForces")
        F = np.ascontiguousarray(body_forces(appliedBodyForces, nb, f"{what}: appliedBodyForces"))
        F = F.reshape(nb, 6)
        P, Di, U = self._articulated_arrays(state, ctx)
        sc = ctx.scratch
        udot, A = np.empty(nu), np.empty((nb, 6))
        articulated_solve(
            topo.parent,
            topo.us,
            topo.nus,
            sc["known"],
            ctx.pc.H_G,
            ctx.pc.p_GB,
            P,
            Di,
            U,
            ctx.vc.coriolis,
            ctx.vc.gyroscopic,
            F,
            f,
            udot,
            A,
            sc["z"],
            sc["eps"],
        )
        return udot, A.reshape(nb, 2, 3)

    @checks_own_state
    def calcSystemJacobian(self, state: State, out=None) -> np.ndarray:
        """J as a (6 nb) x nu matrix, rows [w; v] per body about Bo in G (Position stage).
        ``out`` (see _OUT)."""
        try:
            ops = state._fast[self]
        except (AttributeError, KeyError):  # not a State, or no record yet
            ops = self._operators(state, _POSITION, "calcSystemJacobian")
        try:
            J = _empty((6 * ops.nb, ops.nu)) if out is None else out
            status = ENTRY.jacobian(ops.s, J)
        except TypeError:  # (the entry point refused ``out``)
            ops = self._operators(state, _POSITION, "calcSystemJacobian")
            status = WRONG_LENGTH
        if status:
            if status == STALE:
                self._operators(state, _POSITION, "calcSystemJacobian")
                return self.calcSystemJacobian(state, out=out)
            _refuse_out(out, (6 * ops.nb, ops.nu), "calcSystemJacobian")
        return J

    @checks_own_state
    def multiplyBySystemJacobian(self, state: State, u, out=None) -> np.ndarray:
        """J u: body spatial velocities (nb, 2, 3) for speeds u (Position stage). ``out``
        (see _OUT)."""
        try:
            ops = state._fast[self]
            V = _empty(ops.body) if out is None else out
            status = ENTRY.jacobian_times(ops.s, u, V)
        except (AttributeError, KeyError, TypeError):  # see _SLOW_PATH
            what = "multiplyBySystemJacobian"
            ops = self._operators(state, _POSITION, what)
            u = sized_vector(u, ops.nu, f"{what}: u")
            if out is not None:
                output_array(out, ops.body, what, {"u": u})
            return self.multiplyBySystemJacobian(state, u, out=out)
        if status:
            if status == STALE:
                self._operators(state, _POSITION, "multiplyBySystemJacobian")
                return self.multiplyBySystemJacobian(state, u, out=out)
            _refuse(status, u, ops.nu, "multiplyBySystemJacobian: u", out, ops.body)
        return V

    @checks_own_state
    def multiplyBySystemJacobianTranspose(self, state: State, F, out=None) -> np.ndarray:
        """J^T F: generalized forces of body forces F (nb, 2, 3) at Bo in G (Position
        stage). ``out`` (see _OUT)."""
        what = "multiplyBySystemJacobianTranspose"
        try:
            ops = state._fast[self]
            f = _empty(ops.nu) if out is None else out
            status = ENTRY.jacobian_transpose_times(ops.s, F, f)
        except (AttributeError, KeyError, TypeError):  # see _SLOW_PATH
            ops = self._operators(state, _POSITION, what)
            F = sized_body_forces(F, ops.nb, f"{what}: F")
            if out is not None:
                output_array(out, ops.vec, what, {"F": F})
            return self.multiplyBySystemJacobianTranspose(state, F, out=out)
        if status:
            if status == STALE:
                self._operators(state, _POSITION, what)
                return self.multiplyBySystemJacobianTranspose(state, F, out=out)
            if status == WRONG_LENGTH:  # refused, or of the right size and taken row by row
                F = sized_body_forces(F, ops.nb, f"{what}: F")
                if out is not None:
                    output_array(out, ops.vec, what, {"F": F})
                status = ENTRY.jacobian_transpose_times(ops.s, F, f)
            if status:
                if out is not None:
                    output_array(out, ops.vec, what, {"F": F})
                raise InvalidArgumentError(f"{what}: F: values must be finite (no NaN or infinity)")
        return f

    @checks_own_state
    def calcM(self, state: State, out=None) -> np.ndarray:
        """The nu x nu mass matrix (Position stage; O(n^2) by composite bodies, which are
        computed first if q changed since they last were). ``out`` (see _OUT)."""
        try:
            ops = state._fast[self]
        except (AttributeError, KeyError):  # not a State, or no record yet
            ops = self._operators(state, _POSITION, "calcM")
        entry = ops.cbi_entry
        with_composites = entry.realized_version != ops.cbi_version
        try:
            M = _empty((ops.nu, ops.nu)) if out is None else out
            status = ENTRY.mass_matrix(ops.s, with_composites, ops.cbi, M)
        except TypeError:  # (the entry point refused ``out``)
            ops = self._operators(state, _POSITION, "calcM")
            status = WRONG_LENGTH
        if status:
            if status == STALE:
                self._operators(state, _POSITION, "calcM")
                return self.calcM(state, out=out)
            _refuse_out(out, (ops.nu, ops.nu), "calcM")
        if with_composites:
            state.markCacheValueRealized(self.getMySubsystemIndex(), entry.index)
        return M
