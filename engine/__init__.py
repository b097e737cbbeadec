# ruff: noqa: F401  (this module re-exports the public API)
"""mbstudio's engine: Simbody's multibody-dynamics API in Python.

Everything a user needs is importable from here, with Simbody's names::

    from engine import System, State, Stage, MultibodySystem, MobilizedBody, ...
"""

from types import ModuleType as _ModuleType

from engine.assembler import (
    Assembler,
    AssemblyCondition,
    Markers,
    ObservedPointFitter,
    OrientationSensors,
    QValue,
)
from engine.common.cache_entry import CacheEntryInfo, CacheEntryKey, DiscreteVarInfo, DiscreteVarKey
from engine.common.decorative_geometry import *  # noqa: F403  (DecorativeGeometry kinds, colours)
from engine.common.default_system_subsystem import DefaultSystemSubsystem
from engine.common.events import (
    Event,
    EventTriggerInfo,
    HandleEventsOptions,
    HandleEventsResults,
    PeriodicEventHandler,
    PeriodicEventReporter,
    ScheduledEventHandler,
    ScheduledEventReporter,
    TriggeredEventHandler,
    TriggeredEventReporter,
)
from engine.common.exceptions import (
    AssembleFailedError,
    CacheEntryOutOfDateError,
    ComputationInterruptedError,
    IndexOutOfRangeError,
    InvalidArgumentError,
    InvalidObjectError,
    NonPhysicalError,
    ProjectionFailedError,
    SimTKError,
    StageOutOfRangeError,
    StageTooLowError,
    StateLayoutError,
    StepFailedError,
    TopologyMismatchError,
    UnsupportedOperationError,
)
from engine.common.index_types import *  # noqa: F403  (Simbody's index types)
from engine.common.project_options import ProjectOptions, ProjectResults
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.common.system import System
from engine.contact import triangle_mesh as _triangle_mesh  # registers ContactGeometry.TriangleMesh
from engine.contact.compliant_contact_subsystem import CompliantContactSubsystem
from engine.contact.contact import (
    BrickHalfSpaceContact,
    BrokenContact,
    CircularPointContact,
    Contact,
    ContactId,
    EllipticalPointContact,
    PointContact,
    UntrackedContact,
)
from engine.contact.contact_force import ContactDetail, ContactForce, ContactPatch
from engine.contact.contact_geometry import ContactGeometry
from engine.contact.contact_material import ContactMaterial
from engine.contact.contact_surface import ContactCliqueId, ContactSurface, ContactSurfaceIndex
from engine.contact.contact_tracker_subsystem import ContactSnapshot, ContactTrackerSubsystem
from engine.contact.general_contact_subsystem import GeneralContactSubsystem
from engine.contact.generators.elastic_foundation import ElasticFoundation
from engine.contact.triangle_mesh_contact import TriangleMeshContact
from engine.forces import builtins as _force_builtins  # registers Force.<Name>
from engine.forces.elastic_foundation_force import ElasticFoundationForce

# Multibody layer.
from engine.forces.force import Force
from engine.forces.general_force_subsystem import GeneralForceSubsystem
from engine.forces.hunt_crossley_force import HuntCrossleyForce
from engine.forces.smooth_sphere_half_space_force import SmoothSphereHalfSpaceForce
from engine.integrators import (
    CPodes,
    CPodesIntegrator,
    ExplicitEulerIntegrator,
    Integrator,
    RungeKutta2Integrator,
    RungeKutta3Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEuler2Integrator,
    SemiExplicitEulerIntegrator,
    SuccessfulStepStatus,
    TerminationReason,
    TimeStepper,
    VerletIntegrator,
)
from engine.integrators.ensemble import EnsembleIntegrator
from engine.integrators.impulse_solver import ImpulseSolver
from engine.integrators.pgs_impulse_solver import PGSImpulseSolver
from engine.integrators.semi_explicit_euler_time_stepper import SemiExplicitEulerTimeStepper
from engine.jit_warmup import warm_jit
from engine.math.angle_sequences import (
    BodyOrSpaceType,
    BodyRotationSequence,
    SpaceRotationSequence,
)
from engine.math.coordinate_axis import (
    CoordinateAxis,
    CoordinateDirection,
    XAxis,
    YAxis,
    ZAxis,
)

# Spatial algebra value types.
from engine.math.function import Function
from engine.math.inertia import Inertia, UnitInertia
from engine.math.mass_properties import MassProperties
from engine.math.quaternion import Quaternion
from engine.math.rotation import Rotation
from engine.math.spatial import (
    PhiMatrix,
    SpatialMat,
    SpatialVec,
    findRelativeAcceleration,
    findRelativeVelocity,
    reverseRelativeVelocity,
    shiftAccelerationBy,
    shiftAccelerationFromTo,
    shiftForceBy,
    shiftForceFromTo,
    shiftVelocityBy,
    shiftVelocityFromTo,
)
from engine.math.spatial_inertia import ArticulatedInertia, SpatialInertia
from engine.math.transform import Transform
from engine.math.unit_vec import UnitVec3
from engine.math.vec import Vec3
from engine.math.vector_function import Function_, Vec3Function
from engine.measures import *  # noqa: F403  (Measure and the Measure_<Kind> aliases)
from engine.multibody.body import Body
from engine.multibody.constraints import Constraint
from engine.multibody.decoration_subsystem import DecorationGenerator, DecorationSubsystem
from engine.multibody.mobilized_body import MobilizedBody
from engine.multibody.motions import Motion
from engine.multibody.multibody_system import MultibodySystem, MultibodySystemGlobalSubsystem
from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem
from engine.multibody.state_guards import install as _install_state_guards
from engine.multibody.unilateral import (
    HardStopLower,
    HardStopUpper,
    MobilityFriction,
    PointPlaneContact,
    Rope,
    SpherePlaneContact,
    SphereSphereContact,
    StateLimitedFriction,
    UnilateralContact,
)

_install_state_guards()  # public methods taking a State refuse one of another System

# Public names only: the subpackages (engine.math, engine.common, ...) are not exported, so
# ``from engine import *`` never shadows a module such as the standard ``math``.
__all__ = [
    name
    for name, value in globals().items()
    if not name.startswith("_") and not isinstance(value, _ModuleType)
]
