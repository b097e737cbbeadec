"""Rebuild the constrained reference models of fourbar.json in the engine."""

from __future__ import annotations

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
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Transform,
)
from tests.engine.reference_data import decode_transform


def _transform(t) -> Transform:
    R, p = decode_transform(t)
    return Transform(Rotation(R), p)


def _rotation(r) -> Rotation:
    return Rotation(np.asarray(r, dtype=float).reshape(3, 3))


def _function(spec: dict) -> Function:
    if spec["type"] == "Linear":
        return Function.Linear(spec["coefficients"])
    if spec["type"] == "Sinusoid":
        return Function.Sinusoid(spec["amplitude"], spec["frequency"], spec["phase"])
    raise AssertionError(f"unexpected function {spec['type']}")


def add_constraint(matter, mobods, c: dict):
    """Create the constraint described by one reference entry."""
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
            b[c["body1"]], _transform(c["frame1"]), b[c["body2"]], _transform(c["frame2"])
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
            _rotation(c["base_rotation"]),
            b[c["follower_body"]],
            _rotation(c["follower_rotation"]),
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
            matter, _function(c["function"]), [b[i] for i in c["coordinate_bodies"]], c["which_q"]
        )
    if kind == "SpeedCoupler":
        return Constraint.SpeedCoupler(
            matter, _function(c["function"]), [b[i] for i in c["speed_bodies"]], c["which_u"]
        )
    if kind == "PrescribedMotion":
        return Constraint.PrescribedMotion(
            matter, _function(c["function"]), b[c["body"]], c["which_q"]
        )
    raise AssertionError(f"unexpected constraint {kind}")


def build_model(model: dict):
    """(system, matter, constraints) for a reference model description."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    mobods = [matter.Ground()]
    for b in model["bodies"][1:]:
        Ixx, Iyy, Izz, Ixy, Ixz, Iyz = b["inertia_about_body_origin"]
        body = Body.Rigid(
            MassProperties(b["mass"], b["mass_center"], Inertia(Ixx, Iyy, Izz, Ixy, Ixz, Iyz))
        )
        cls = getattr(MobilizedBody, b["mobilizer"])
        mobods.append(cls(mobods[b["parent"]], _transform(b["X_PF"]), body, _transform(b["X_BM"])))
    for f in model["forces"]:
        if f["type"] == "Force::UniformGravity":
            Force.UniformGravity(forces, matter, f["g"], f["zero_height"])
        elif f["type"] == "Force::Gravity":
            Force.Gravity(forces, matter, f["down_direction"], f["magnitude"], f["zero_height"])
        else:  # pragma: no cover - not in fourbar.json
            raise AssertionError(f"unexpected force {f['type']}")
    constraints = [add_constraint(matter, mobods, c) for c in model["constraints"]]
    return system, matter, constraints
