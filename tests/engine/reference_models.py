"""Rebuild the models of ../shared/reference/*.json (Simbody 3.7) through the public engine API.

Every reference test builds its System here, from a case's ``model`` entry (README.md of the
reference directory): bodies and mobilizers (with their ``mobilizer_params``), force elements,
constraints and Motions; locks and DiscreteForces values are State settings, applied to a
State by ``ReferenceSystem.apply_locks`` / ``set_state``.

- ``build(model)``: the whole model as a ``ReferenceSystem`` (parts can be left out).
- ``build_tree(model)``: only a matter subsystem with the bodies (no force subsystem).
- ``add_bodies``, ``add_force``, ``add_constraint``, ``add_motion``: one model entry each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine import (
    Body,
    Constraint,
    Force,
    Function,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    Motion,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Transform,
)
from tests.engine.reference_data import decode_transform


def transform(t: dict) -> Transform:
    """Transform from the JSON form {"R": 9 numbers row-major, "p": 3 numbers}."""
    R, p = decode_transform(t)
    return Transform(Rotation(R), p)


def rotation(r) -> Rotation:
    """Rotation from 9 numbers row-major."""
    return Rotation(np.asarray(r, dtype=float).reshape(3, 3))


def function(spec: dict) -> Function:
    """The Function of a constraint entry ({"type": "Linear"|"Sinusoid", ...})."""
    if spec["type"] == "Linear":
        return Function.Linear(spec["coefficients"])
    if spec["type"] == "Sinusoid":
        return Function.Sinusoid(spec["amplitude"], spec["frequency"], spec["phase"])
    raise AssertionError(f"unexpected function {spec['type']}")


def add_bodies(matter, model: dict) -> list:
    """Create the model's bodies and mobilizers; returns the mobilized bodies, Ground first,
    so that ``mobods[i]`` is the model's body i."""
    mobods = [matter.Ground()]
    for b in model["bodies"][1:]:
        body = Body.Rigid(
            MassProperties(b["mass"], b["mass_center"], Inertia(*b["inertia_about_body_origin"]))
        )
        cls = getattr(MobilizedBody, b["mobilizer"])
        options = b.get("mobilizer_params") or {}
        mobods.append(
            cls(mobods[b["parent"]], transform(b["X_PF"]), body, transform(b["X_BM"]), **options)
        )
    return mobods


def add_force(forces, matter, mobods, f: dict):
    """Create the force element described by ``f`` (one entry of model["forces"])."""
    kind = f["type"].removeprefix("Force::")
    if kind == "Gravity":
        g = Force.Gravity(forces, matter, f["down_direction"], f["magnitude"], f["zero_height"])
        for b in f["excluded_bodies"]:
            g.setDefaultBodyIsExcluded(mobods[b], True)
        return g
    if kind == "UniformGravity":
        return Force.UniformGravity(forces, matter, f["g"], f["zero_height"])
    if kind.startswith("TwoPoint"):
        args = (forces, mobods[f["body1"]], f["station1_B"], mobods[f["body2"]], f["station2_B"])
        if kind == "TwoPointLinearSpring":
            return Force.TwoPointLinearSpring(*args, f["stiffness"], f["rest_length"])
        if kind == "TwoPointLinearDamper":
            return Force.TwoPointLinearDamper(*args, f["damping"])
        return Force.TwoPointConstantForce(*args, f["force"])
    if kind == "MobilityLinearSpring":
        return Force.MobilityLinearSpring(
            forces, mobods[f["body"]], f["which_q"], f["stiffness"], f["q_zero"]
        )
    if kind == "MobilityLinearDamper":
        return Force.MobilityLinearDamper(forces, mobods[f["body"]], f["which_u"], f["damping"])
    if kind == "MobilityConstantForce":
        return Force.MobilityConstantForce(forces, mobods[f["body"]], f["which_u"], f["value"])
    if kind == "MobilityLinearStop":
        return Force.MobilityLinearStop(
            forces,
            mobods[f["body"]],
            f["which_q"],
            f["stiffness"],
            f["dissipation"],
            f["q_low"],
            f["q_high"],
        )
    if kind == "MobilityDiscreteForce":
        return Force.MobilityDiscreteForce(
            forces, mobods[f["body"]], f["which_u"], f["default_force"]
        )
    if kind == "ConstantForce":
        return Force.ConstantForce(forces, mobods[f["body"]], f["station_B"], f["force_G"])
    if kind == "ConstantTorque":
        return Force.ConstantTorque(forces, mobods[f["body"]], f["torque_G"])
    if kind == "GlobalDamper":
        return Force.GlobalDamper(forces, matter, f["damping"])
    if kind == "LinearBushing":
        return Force.LinearBushing(
            forces,
            mobods[f["body1"]],
            transform(f["X_B1F"]),
            mobods[f["body2"]],
            transform(f["X_B2M"]),
            f["stiffness"],
            f["damping"],
        )
    if kind == "DiscreteForces":
        return Force.DiscreteForces(forces, matter)
    raise AssertionError(f"unexpected force {f['type']}")


def add_constraint(matter, mobods, c: dict):
    """Create the constraint described by ``c`` (one entry of model["constraints"])."""
    kind = c["type"].removeprefix("Constraint::")
    b = mobods
    if kind == "Rod":
        return Constraint.Rod(
            b[c["body1"]], c["station1_B"], b[c["body2"]], c["station2_B"], c["length"]
        )
    if kind == "Ball":
        return Constraint.Ball(b[c["body1"]], c["station1_B"], b[c["body2"]], c["station2_B"])
    if kind == "Weld":
        return Constraint.Weld(
            b[c["body1"]], transform(c["frame1"]), b[c["body2"]], transform(c["frame2"])
        )
    if kind == "PointInPlane":
        return Constraint.PointInPlane(
            b[c["plane_body"]],
            c["plane_normal"],
            c["plane_height"],
            b[c["follower_body"]],
            c["follower_point"],
        )
    if kind == "PointOnLine":
        return Constraint.PointOnLine(
            b[c["line_body"]],
            c["line_direction"],
            c["point_on_line"],
            b[c["follower_body"]],
            c["follower_point"],
        )
    if kind == "ConstantAngle":
        return Constraint.ConstantAngle(
            b[c["base_body"]], c["base_axis"], b[c["follower_body"]], c["follower_axis"], c["angle"]
        )
    if kind == "ConstantOrientation":
        return Constraint.ConstantOrientation(
            b[c["base_body"]],
            rotation(c["base_rotation"]),
            b[c["follower_body"]],
            rotation(c["follower_rotation"]),
        )
    if kind == "NoSlip1D":
        return Constraint.NoSlip1D(
            b[c["case_body"]],
            c["contact_point"],
            c["direction"],
            b[c["moving_body0"]],
            b[c["moving_body1"]],
        )
    if kind == "ConstantCoordinate":
        return Constraint.ConstantCoordinate(b[c["body"]], c["which_q"], c["value"])
    if kind == "ConstantSpeed":
        return Constraint.ConstantSpeed(b[c["body"]], c["which_u"], c["speed"])
    if kind == "ConstantAcceleration":
        return Constraint.ConstantAcceleration(b[c["body"]], c["which_u"], c["acceleration"])
    if kind == "CoordinateCoupler":
        return Constraint.CoordinateCoupler(
            matter, function(c["function"]), [b[i] for i in c["coordinate_bodies"]], c["which_q"]
        )
    if kind == "SpeedCoupler":
        return Constraint.SpeedCoupler(
            matter, function(c["function"]), [b[i] for i in c["speed_bodies"]], c["which_u"]
        )
    if kind == "PrescribedMotion":
        return Constraint.PrescribedMotion(
            matter, function(c["function"]), b[c["body"]], c["which_q"]
        )
    raise AssertionError(f"unexpected constraint {c['type']}")


def add_motion(mobods, mo: dict):
    """Create the Motion described by ``mo`` (one entry of model["motions"])."""
    mobod = mobods[mo["body"]]
    if mo["type"] == "Motion::Sinusoid":
        level = getattr(Motion, mo["level"])
        return Motion.Sinusoid(mobod, level, mo["amplitude"], mo["rate"], mo["phase"])
    if mo["type"] == "Motion::Steady":
        return Motion.Steady(mobod, mo["rates"])
    raise AssertionError(f"unexpected motion {mo['type']}")


def set_discrete_values(element, mobods, f: dict, state) -> None:
    """Store a DiscreteForces entry's body and mobility forces in ``state``."""
    for bf in f["body_forces_G"]:
        element.setOneBodyForce(state, mobods[bf["body"]], [bf["torque_G"], bf["force_G"]])
    for mf in f["mobility_forces"]:
        element.setOneMobilityForce(state, mobods[mf["body"]], mf["which_u"], mf["force"])


def build_tree(model: dict):
    """(system, matter, mobods): only the bodies and mobilizers, no force subsystem."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    return system, matter, add_bodies(matter, model)


@dataclass
class ReferenceSystem:
    """A reference ``model`` rebuilt in the engine.

    ``mobods[i]`` is the model's body i (Ground first); ``elements[k]``, ``constraints[k]``
    and ``motions[k]`` are the k-th entries of model["forces"], ["constraints"], ["motions"]
    (empty when that part was not built). ``forces`` always exists, so that tests can add
    their own elements to it.
    """

    model: dict
    system: MultibodySystem
    matter: SimbodyMatterSubsystem
    forces: GeneralForceSubsystem
    mobods: list
    elements: list = field(default_factory=list)
    constraints: list = field(default_factory=list)
    motions: list = field(default_factory=list)

    def set_discrete_forces(self, state) -> None:
        """Store the DiscreteForces elements' reference values (State variables) in ``state``."""
        for element, f in zip(self.elements, self.model["forces"], strict=False):
            if f["type"] == "Force::DiscreteForces":
                set_discrete_values(element, self.mobods, f, state)

    def set_state(self, state, values: dict) -> None:
        """Load a stored state's t, q, u (and z when it has any) into ``state``, and the
        DiscreteForces values."""
        state.setTime(values["t"])
        state.setQ(values["q"])
        state.setU(values["u"])
        if values.get("z"):
            state.setZ(values["z"])
        self.set_discrete_forces(state)

    def new_state(self, values: dict):
        """A new State (``realizeTopology``) holding ``values`` as ``set_state`` loads them."""
        state = self.system.realizeTopology()
        self.set_state(state, values)
        return state

    def apply_locks(self, state) -> None:
        """MobilizedBody.lockAt for every entry of model["locks"] (needs Stage.Model)."""
        for lk in self.model["locks"]:
            self.mobods[lk["body"]].lockAt(state, lk["value"], getattr(Motion, lk["level"]))


def build(
    model: dict, *, forces: bool = True, constraints: bool = True, motions: bool = True
) -> ReferenceSystem:
    """The reference ``model`` with its force elements, constraints and Motions (each part can
    be left out; the GeneralForceSubsystem is there in any case)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    force_subsystem = GeneralForceSubsystem(system)
    mobods = add_bodies(matter, model)
    built = ReferenceSystem(model, system, matter, force_subsystem, mobods)
    if forces:
        for f in model["forces"]:
            element = add_force(force_subsystem, matter, mobods, f)
            assert element.getForceIndex() == f["index"]
            built.elements.append(element)
    if constraints:
        built.constraints = [add_constraint(matter, mobods, c) for c in model["constraints"]]
    if motions:
        built.motions = [add_motion(mobods, mo) for mo in model["motions"]]
    return built
