"""Spatial algebra value types with Simbody 3.7's names and conventions.

Vec3 = float64 ndarray of shape (3,); SpatialVec = ndarray of shape (2, 3), [angular, linear];
spatial matrices are 6x6, angular first. See each module for frames and units.
"""

from engine.math.angle_sequences import (
    BodyOrSpaceType,
    BodyRotationSequence,
    SpaceRotationSequence,
)
from engine.math.coordinate_axis import CoordinateAxis, CoordinateDirection, XAxis, YAxis, ZAxis
from engine.math.inertia import Inertia, UnitInertia
from engine.math.mass_properties import MassProperties
from engine.math.quaternion import Quaternion
from engine.math.rotation import Rotation
from engine.math.spatial import (
    PhiMatrix,
    PhiMatrixTranspose,
    SpatialMat,
    SpatialVec,
    as_spatial_mat,
    as_spatial_vec,
    findRelativeAcceleration,
    findRelativeAccelerationInF,
    findRelativeVelocity,
    findRelativeVelocityInF,
    reverseRelativeVelocity,
    reverseRelativeVelocityInA,
    shiftAccelerationBy,
    shiftAccelerationFromTo,
    shiftForceBy,
    shiftForceFromTo,
    shiftVelocityBy,
    shiftVelocityFromTo,
    spatial_mat_times_vec,
)
from engine.math.spatial_inertia import ArticulatedInertia, SpatialInertia
from engine.math.transform import Transform
from engine.math.unit_vec import UnitVec3
from engine.math.vec import Vec3, as_vec3, as_vector, cross_matrix

__all__ = [
    "ArticulatedInertia",
    "BodyOrSpaceType",
    "BodyRotationSequence",
    "CoordinateAxis",
    "CoordinateDirection",
    "Inertia",
    "MassProperties",
    "PhiMatrix",
    "PhiMatrixTranspose",
    "Quaternion",
    "Rotation",
    "SpaceRotationSequence",
    "SpatialInertia",
    "SpatialMat",
    "SpatialVec",
    "Transform",
    "UnitInertia",
    "UnitVec3",
    "Vec3",
    "XAxis",
    "YAxis",
    "ZAxis",
    "as_spatial_mat",
    "as_spatial_vec",
    "as_vec3",
    "as_vector",
    "cross_matrix",
    "findRelativeAcceleration",
    "findRelativeAccelerationInF",
    "findRelativeVelocity",
    "findRelativeVelocityInF",
    "reverseRelativeVelocity",
    "reverseRelativeVelocityInA",
    "shiftAccelerationBy",
    "shiftAccelerationFromTo",
    "shiftForceBy",
    "shiftForceFromTo",
    "shiftVelocityBy",
    "shiftVelocityFromTo",
    "spatial_mat_times_vec",
]
