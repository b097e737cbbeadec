"""The Assembler and its assembly conditions (SimTK::Assembler, QValue, Markers, ...)."""

from engine.assembler.assembler import Assembler
from engine.assembler.assembly_condition import AssemblyCondition
from engine.assembler.built_in_constraints import BuiltInConstraints
from engine.assembler.markers import Markers
from engine.assembler.observed_point_fitter import ObservedPointFitter
from engine.assembler.orientation_sensors import OrientationSensors
from engine.assembler.q_value import QValue

__all__ = [
    "Assembler",
    "AssemblyCondition",
    "BuiltInConstraints",
    "Markers",
    "ObservedPointFitter",
    "OrientationSensors",
    "QValue",
]
