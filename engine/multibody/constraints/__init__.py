"""Constraints of a SimbodyMatterSubsystem, one module each, under Simbody's names.

``Constraint.Rod(...)``, ``Constraint.Ball(...)``, ... construct a constraint and add
it to the matter subsystem of its bodies.
"""

from engine.multibody.constraints.ball import Ball
from engine.multibody.constraints.constant_acceleration import ConstantAcceleration
from engine.multibody.constraints.constant_angle import ConstantAngle
from engine.multibody.constraints.constant_coordinate import ConstantCoordinate
from engine.multibody.constraints.constant_orientation import ConstantOrientation
from engine.multibody.constraints.constant_speed import ConstantSpeed
from engine.multibody.constraints.constraint import Constraint
from engine.multibody.constraints.coordinate_coupler import CoordinateCoupler
from engine.multibody.constraints.custom import Custom
from engine.multibody.constraints.error_getters import install as _install_error_getters
from engine.multibody.constraints.no_slip_1d import NoSlip1D
from engine.multibody.constraints.point_in_plane import PointInPlane
from engine.multibody.constraints.point_on_line import PointOnLine
from engine.multibody.constraints.prescribed_motion import PrescribedMotion
from engine.multibody.constraints.rod import Rod
from engine.multibody.constraints.speed_coupler import SpeedCoupler
from engine.multibody.constraints.weld import Weld

Constraint.Rod = Rod
Constraint.ConstantDistance = Rod
Constraint.Ball = Ball
Constraint.CoincidentPoints = Ball
Constraint.Weld = Weld
Constraint.CoincidentFrames = Weld
Constraint.PointInPlane = PointInPlane
Constraint.PointOnLine = PointOnLine
Constraint.ConstantAngle = ConstantAngle
Constraint.ConstantOrientation = ConstantOrientation
Constraint.NoSlip1D = NoSlip1D
Constraint.ConstantCoordinate = ConstantCoordinate
Constraint.ConstantSpeed = ConstantSpeed
Constraint.ConstantAcceleration = ConstantAcceleration
Constraint.CoordinateCoupler = CoordinateCoupler
Constraint.SpeedCoupler = SpeedCoupler
Constraint.PrescribedMotion = PrescribedMotion
Constraint.Custom = Custom

_install_error_getters(
    plural=[Ball, Weld, PointOnLine, ConstantOrientation],
    singular=[Rod, PointInPlane, ConstantAngle, ConstantCoordinate],
    nonholonomic=[NoSlip1D, ConstantSpeed],
    acceleration_only=[ConstantAcceleration],
)

__all__ = ["Constraint"]
