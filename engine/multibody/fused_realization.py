"""FusedRealization: a MultibodySystem's runtime stages Position..Acceleration in one
kernel call, when every piece of work those stages do is compiled.

``System.realize`` realizes one stage at a time, calling each subsystem's hook in turn.
For a MultibodySystem whose stage hooks between Position and Acceleration are only

* the matter subsystem's, with no Custom mobilizers, no prescribed accelerations and
  only enabled constraints of compiled types (``engine.multibody.constraints.compiled``:
  their errors and the constrained accelerations are one more kernel call after the
  fused one);
* the applied-force accumulators' zeroing (the global subsystem);
* GeneralForceSubsystems whose enabled elements all have compiled force terms
  (``engine.forces.compiled_terms``: gravity, mobility springs, dampers and forces,
  constant torques and forces, the global damper);
* ContactTrackerSubsystems and CompliantContactSubsystems on them whose contacts the
  kernel's contact stage can find and apply (``engine.contact.fused_contact``: the pairs
  and built-in generators it has; the dissipated energies' zdot are written after the
  call);
* a DefaultSystemSubsystem whose Measures have no work at those stages (they compute
  their values when asked; Integrate, Differentiate and the extremes do have);

those stages do nothing but the matter kernels and the force terms, so
``realize_stages_from_table`` does them all in one call, and this class then records the stages as
``System.realize`` would have: every subsystem and the System advance to the last stage,
the per-stage realization counters count each stage, the articulated-inertia cache
entry is marked realized when it was recomputed, and the kinetic energy is stored. The
results are the same numbers the per-stage path computes, in the same cache arrays.

Anything else (such a Measure, a Force.Custom, a Constraint.Custom, event witnesses at these
stages, a subsystem already ahead of the System) makes ``realize`` return False and the
System realizes stage by stage. Whether a State qualifies is decided once per
configuration of its discrete variables and Instance stage (a ``_Plan`` kept in the
State's ``_fast`` slot, which the State empties when it reallocates).
"""

from __future__ import annotations

from engine.common.default_system_subsystem import DefaultSystemSubsystem
from engine.common.numba_internals import JIT_ENABLED, signature_entry_point
from engine.common.stage import ALL_STAGES, Stage
from engine.common.state import State
from engine.common.state_books import ENTRY_EDITS, INSTANCE_SERIAL, LOCKSTEP
from engine.contact.fused_contact import (
    CONTACT_SUBSYSTEMS,
    contact_home,
    contact_obstacle,
    z_is_dissipated_energy,
)
from engine.forces.compiled_terms import stack_terms
from engine.forces.general_force_subsystem import GeneralForceSubsystem
from engine.measures.measure import Measure
from engine.multibody.constraints.compiled import (
    compiled_constraints,
    why_constraints_not_compiled,
)
from engine.multibody.global_subsystem import MultibodySystemGlobalSubsystem
from engine.multibody.kernels import layout
from engine.multibody.kernels.fused_entry import entry as realize_in_books_entry
from engine.multibody.kernels.fused_stages import (
    ACCELERATION,
    POSITION,
    REALIZE_STAGES_SIGNATURE,
    VELOCITY,
    realize_stages_from_table,
)

_TIME_INT = int(Stage.Time)
_REALIZE_STAGES_TYPES = tuple(REALIZE_STAGES_SIGNATURE.args)
_JIT = JIT_ENABLED
_HOOKS = {
    int(Stage.Position): "realizeSubsystemPositionImpl",
    int(Stage.Velocity): "realizeSubsystemVelocityImpl",
    int(Stage.Dynamics): "realizeSubsystemDynamicsImpl",
    int(Stage.Acceleration): "realizeSubsystemAccelerationImpl",
}


class _Plan:
    """Whether one State qualifies and, if so, the kernel's arguments (all arrays of that
    State) and whether kernels may evaluate its derivatives with them
    (``derivatives``); valid while its discrete variables and Instance stage stay as
    they were, that is while the books' INSTANCE_SERIAL is ``instance_serial``."""

    __slots__ = (
        "instance_serial",
        "args",
        "fn",
        "ctx",
        "why_not",
        "table",
        "derivatives",
        "triggers",
        "contact",
        "constraints",
        "call_args",
        "matter",
        "vc",
        "constrained_derivatives",
        "abi_edits",
        "abi_current",
    )


class _PlanKey:
    """The key of a FusedRealization's ``_Plan`` in a State's ``_fast`` slot (one object per
    FusedRealization: hashed by identity, which costs nothing per lookup, where a tuple is
    hashed again on every call)."""

    __slots__ = ()


class FusedRealization:
    """Realizes Position..Acceleration of a qualifying MultibodySystem's States in one
    kernel call (see module docstring)."""

    def __init__(self, system) -> None:
        self._system = system
        self._key = _PlanKey()

    # ------------------------------------------------------------------ realize
    def realize(self, state: State, first: int, last: int) -> bool:
        """Realize the stages ``first..last`` (ints within Position..Acceleration) of
        ``state``, which is at stage ``first - 1``; False (nothing done) if this State
        does not qualify now.

        The common case: the plan's validity (``_current_plan``: one compare), the
        lockstep slot, whether the articulated inertias are current (the matter
        subsystem's ``_abi_current``, whose answer the plan keeps while the books'
        ENTRY_EDITS stays the same), and one compiled call that realizes the stages and
        enters the lockstep in the State's books (``fused_entry.realize_stages_in_books``)."""
        plan = self._current_plan(state)
        call_args = plan.call_args
        if call_args is None:  # it does not qualify, or event witnesses need stages
            return False
        bv = state._bv
        if bv[LOCKSTEP] < 0:  # not in lockstep: is every subsystem at first - 1?
            prev = ALL_STAGES[first - 1]
            for info in state._subs:
                if info.stage != prev:
                    return False
        # the articulated inertias, unless still current (a change of q makes them stale;
        # a change of t alone does not). ``_abi_current``'s answer depends on the entry's
        # realized version, whose every change counts in the books' ENTRY_EDITS, and on
        # the matter subsystem's Instance stage version, fixed while the plan is valid:
        # the plan keeps the answer until ENTRY_EDITS changes.
        with_inertias = False
        if last >= ACCELERATION:
            edits = bv[ENTRY_EDITS]
            if plan.abi_edits != edits:
                plan.abi_current = plan.matter._abi_current(plan.ctx)
                plan.abi_edits = edits
            with_inertias = not plan.abi_current
        # without constraints, realize_stages_in_books: the kernel, then the lockstep in
        # the books; with them, the kernel alone and the lockstep once they are realized
        ke = plan.fn(first, last, with_inertias, *call_args)
        if plan.constraints is not None:
            if not plan.matter._fused_constraint_stages(plan.constraints, plan.ctx, first, last):
                return False  # (a Rod's points coincide...: the stage-by-stage path words it)
            state._enter_lockstep(last)
        if first <= VELOCITY <= last:
            plan.vc.kinetic_energy = ke
        self._system._num_stage_runs[first * 11 + last] += 1
        if with_inertias:
            plan.matter._mark_abi(state, plan.ctx)
        contact = plan.contact
        if contact is not None:
            if first <= POSITION:
                contact.positions_realized(state)  # the snapshots are made on request
            if last >= ACCELERATION:
                contact.accelerations_realized(state)  # the dissipated energies' zdot
        return True

    def recordKernelRealization(self, state: State, first: int, last: int, ke: float) -> None:
        """Record that a kernel working through ``compiledDerivatives`` realized the
        stages ``first`` (Time or Position) through ``last`` (at most Velocity) of
        ``state``, which is at stage ``first - 1``, with kinetic energy ``ke`` (J): the
        State reads as after ``realize`` (Time stage has nothing to do for such a State).
        The counters are the caller's to count (``countStages``, ``countProjectQCalls``)."""
        plan = self._current_plan(state)
        if first <= VELOCITY <= last:
            plan.ctx.vc.kinetic_energy = ke
        state._enter_lockstep(ALL_STAGES[last])
        if plan.contact is not None and first <= POSITION:
            plan.contact.positions_realized(state)  # the snapshots are made on request

    def countStages(self, first: int, last: int, n: int) -> None:
        """Count ``n`` realizations of each stage ``first..last`` (ints) that kernels did
        for States qualifying for ``compiledDerivatives``."""
        counts = self._system._num_realizations
        for g in range(first, last + 1):
            counts[g] += n

    def compiledDerivatives(self, state: State) -> tuple | None:
        """``(euler, addresses, shapes)`` for kernels that evaluate this State's
        derivatives themselves (``realize_stages_from_table`` from Position to
        Acceleration with y written into its q and u): when the State qualifies for the
        fused realization, the JIT is on, y is exactly the matter subsystem's q and u,
        followed by the compliant contact's dissipated energy if that is the only z (the
        table's ``contact_z``; its derivative is ``contact_power``), Time stage does nothing
        and no event witness is evaluated at Time..Acceleration. None otherwise. The caller
        counts the realizations it does (``countRealizations``)."""
        plan = self._current_plan(state)
        return None if self._derivatives_obstacle(state, plan) else plan.args

    def whyNoCompiledDerivatives(self, state: State) -> str:
        """Why ``compiledDerivatives(state)`` is None ("" if it is not)."""
        plan = self._current_plan(state)
        why = self._derivatives_obstacle(state, plan)
        if why and why is plan.why_not:
            return f"Position..Acceleration are realized stage by stage: {why}"
        return why

    @staticmethod
    def _derivatives_obstacle(state: State, plan: _Plan) -> str:
        """What keeps kernels from evaluating ``state``'s derivatives ("" if nothing):
        see compiledDerivatives."""
        if plan.derivatives:
            triggers = state._trigger_counts
            for g in range(_TIME_INT, ACCELERATION + 1):
                if triggers[g]:
                    return "event witnesses are evaluated at Time to Acceleration stage"
            return ""
        if plan.why_not:
            return plan.why_not
        if plan.constraints is not None:
            return "its constraints are realized and projected between kernel calls"
        if not _JIT:
            return "numba's JIT is off (NUMBA_DISABLE_JIT)"
        return (
            "y holds more than the matter subsystem's q and u and the dissipated energy, "
            "or Time stage has work"
        )

    def compiledConstrainedDerivatives(self, state: State) -> tuple | None:
        """``((euler, addresses, shapes), constraints)`` for kernels that evaluate the
        derivatives of a State with compiled constraints and project it themselves
        (``merson_compiled.constrained_steps``): when the State qualifies for the fused
        realization, its enabled constraints are all compiled
        (``constraints.compiled.CompiledConstraints``), the JIT is on, y is exactly the
        matter subsystem's q and u, Time stage does nothing, nothing is prescribed, no
        other subsystem projects and no event witness is evaluated at Time..Acceleration.
        None otherwise."""
        plan = self._current_plan(state)
        if not plan.constrained_derivatives:
            return None
        triggers = state._trigger_counts
        for g in range(_TIME_INT, ACCELERATION + 1):
            if triggers[g]:
                return None
        return plan.args, plan.constraints

    def countRealizations(self, n: int) -> None:
        """Count ``n`` derivative evaluations a kernel did through ``compiledDerivatives``:
        each realized the stages Time..Acceleration once. The realize and prescribe calls
        such an evaluation replaces were not made and are not counted."""
        self.countStages(_TIME_INT, ACCELERATION, n)

    def countProjectQCalls(self, n: int) -> None:
        """Count ``n`` quaternion projections a kernel ran in place of ``System.projectQ``
        (each one is counted as a projectQ call, whether or not it changed q)."""
        self._system._num_project_q += n

    def countQuaternionProjections(self, n: int) -> None:
        """Count ``n`` projectQ calls, made by kernels, that changed q and its error
        estimate (the quaternions were normalized), as ``System.projectQ`` counts them."""
        system = self._system
        system._num_q_projections += n
        system._num_q_err_est_projections += n

    def whyNotFused(self, state: State) -> str:
        """Why Position..Acceleration of ``state`` are realized stage by stage ("" if
        they are realized in one kernel call). For the studio's stage inspector."""
        return self._current_plan(state).why_not

    # -------------------------------------------------------------------- plan
    def _current_plan(self, state: State) -> _Plan:
        """This State's plan, made again if its discrete variables or Instance stage
        changed since it was made (the books' INSTANCE_SERIAL changed)."""
        plan = state._fast.get(self._key)
        if plan is None or plan.instance_serial != state._bv[INSTANCE_SERIAL]:
            plan = state._fast[self._key] = self._plan(state)
        return plan

    def _plan(self, state: State) -> _Plan:
        plan = _Plan()
        plan.instance_serial = state._bv[INSTANCE_SERIAL]
        plan.args = plan.fn = plan.ctx = plan.table = plan.contact = None
        plan.constraints = plan.call_args = plan.matter = None
        plan.vc = None
        plan.derivatives = plan.constrained_derivatives = False
        plan.abi_edits, plan.abi_current = -1, False
        # event witnesses at Position..Acceleration: realize stage by stage (the counts
        # change only with Instance stage, as the plan does)
        plan.triggers = any(state._trigger_counts[POSITION : ACCELERATION + 1])
        plan.why_not = self._disqualification(state)
        if plan.why_not:
            return plan
        excluded: list[int] = []
        terms: list = []
        for sub in self._system._subsystems:
            if isinstance(sub, GeneralForceSubsystem):
                terms += sub._compiled_terms(state, excluded)
        matter = self._system._matter
        ctx = matter._context(state)
        plan.ctx, plan.matter, plan.vc = ctx, matter, ctx.vc
        term_ints, term_floats, excluded_bodies = stack_terms(terms, excluded)
        homes = matter._kernel_homes(ctx)
        info = matter._instance_info(state, ctx)
        homes[layout.INSTANCE] = {
            # the kernel writes the quaternion norm errors from its start: they follow the
            # position constraint errors in qErr
            "qerr": info.qerr[info.quat_offset :],
            "term_ints": term_ints,
            "term_floats": term_floats,
            "excluded": excluded_bodies,
        }
        homes[layout.CONTACT], plan.contact = contact_home(self._system, state)
        plan.table = layout.build_table(homes, matter._kernel_dims(ctx))
        plan.args = (ctx.euler, plan.table.addresses, plan.table.shapes)
        if info.clayout is not None and info.clayout.m:  # compiled constraints, after the call
            plan.constraints = compiled_constraints(matter, state, info)
        if plan.constraints is None:
            plan.fn = realize_in_books_entry()
            books_args = (*plan.args, state._books)  # (clear() empties _fast with the books)
        else:
            plan.fn = signature_entry_point(realize_stages_from_table, _REALIZE_STAGES_TYPES)
            books_args = plan.args
        if not plan.triggers:
            plan.call_args = books_args
        # (NUMBA_DISABLE_JIT: the integrators' kernels would run as Python; they step aside)
        plan.derivatives = (
            _JIT
            and plan.constraints is None
            and self._derivatives_qualify(state, matter, plan.contact)
        )
        plan.constrained_derivatives = (
            _JIT
            and plan.constraints is not None
            and state.getNZ() == 0
            and self._derivatives_qualify(state, matter, plan.contact)
            and self._projects_only_compiled_constraints(state, matter)
        )
        return plan

    def _projects_only_compiled_constraints(self, state: State, matter) -> bool:
        """Nothing is prescribed (the projections move every q and u) and no subsystem
        but the matter subsystem has projection hooks of its own."""
        if matter._prescribed_q_columns(state).size or matter._prescribed_u_columns(state).size:
            return False
        from engine.common.subsystem import Subsystem

        for sub in self._system._subsystems:
            if sub is matter:
                continue
            for name in ("projectQImpl", "projectUImpl"):
                if getattr(type(sub), name) is not getattr(Subsystem, name, None):
                    return False
        return True

    def _derivatives_qualify(self, state: State, matter, contact) -> bool:
        """y is the matter subsystem's q and u, and the tracked dissipated energy if that
        is the only z, and Time stage has no hook that does anything (see
        compiledDerivatives)."""
        if state.getNZ() and not z_is_dissipated_energy(state, contact):
            return False
        if not self._system._matter_holds_all_q_and_u(state):
            return False
        for i, hook in self._system._stage_hooks(_TIME_INT):
            if hook is None:
                continue
            sub = self._system._subsystems[i]
            if self._hook_disqualification(state, sub, "realizeSubsystemTimeImpl", matter):
                return False
        return True

    def _disqualification(self, state: State) -> str:
        """Why this State cannot be fused ("" if it can)."""
        system = self._system
        if state.getSystemStage() < Stage.Instance:
            return "the State is not realized through Instance stage"
        matter = system._matter
        if matter is None:
            return "the System has no matter subsystem"
        for g, name in _HOOKS.items():
            for i, hook in system._stage_hooks(g):
                if hook is None:
                    continue
                sub = system._subsystems[i]
                why = self._hook_disqualification(state, sub, name, matter)
                if why:
                    return why
        if matter._has_custom_bodies():
            return "a Custom mobilizer's kinematics are Python"
        info = matter._instance_info(state)
        if info.clayout is not None and info.clayout.m:
            if compiled_constraints(matter, state, info) is None:
                return why_constraints_not_compiled(matter, info)
        if info.playout is not None and info.playout.any_known_udot:
            return "some accelerations are prescribed"
        return ""

    @staticmethod
    def _hook_disqualification(state: State, sub, name: str, matter) -> str:
        """Why ``sub``'s stage hook ``name`` cannot be part of the fused call ("" if it
        can: it is one whose work the kernel does)."""
        from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem

        label = f"subsystem '{sub.getName()}' has its own {name}"
        impl = getattr(type(sub), name)
        if sub is matter:
            return "" if impl is getattr(SimbodyMatterSubsystem, name) else label
        if isinstance(sub, MultibodySystemGlobalSubsystem):
            return "" if impl is getattr(MultibodySystemGlobalSubsystem, name) else label
        if isinstance(sub, DefaultSystemSubsystem):
            if impl is not getattr(DefaultSystemSubsystem, name):
                return label
            return FusedRealization._measure_disqualification(sub, name)
        if isinstance(sub, CONTACT_SUBSYSTEMS):
            return contact_obstacle(sub, name)
        if isinstance(sub, GeneralForceSubsystem):
            if impl is not getattr(GeneralForceSubsystem, name):
                return label
            if sub._compiled_terms(state, []) is None:
                element = sub._uncompiled_element(state) or "e.g. a Force.Custom"
                return (
                    f"force subsystem '{sub.getName()}' has an enabled element without a "
                    f"compiled force term ({element})"
                )
            return ""
        return label

    @staticmethod
    def _measure_disqualification(sub: DefaultSystemSubsystem, name: str) -> str:
        """Why a Measure of ``sub`` needs its stage hook for the subsystem hook ``name``
        ("" if every Measure's hook for that stage is the base class's, which does
        nothing: such Measures compute their values when asked)."""
        hook = name.replace("realizeSubsystem", "realizeMeasure").removesuffix("Impl")
        for measure in sub._measures:
            if getattr(type(measure), hook) is not getattr(Measure, hook):
                stage = hook.removeprefix("realizeMeasure")
                return f"a Measure.{type(measure).__name__} does work at {stage} stage"
        return ""
