# ruff: noqa: F401  (this module re-exports the public API)
"""mbstudio's engine: Simbody's multibody-dynamics API in Python.

Everything a user needs is importable from here, with Simbody's names::

    from engine import System, State, Stage, MultibodySystem, MobilizedBody, ...
"""

from engine.common.cache_entry import CacheEntryInfo, CacheEntryKey, DiscreteVarInfo, DiscreteVarKey
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
    IndexOutOfRangeError,
    InvalidArgumentError,
    NonPhysicalError,
    ProjectionFailedError,
    SimTKError,
    StageOutOfRangeError,
    StageTooLowError,
    StateLayoutError,
    StepFailedError,
    TopologyMismatchError,
)
from engine.common.project_options import ProjectOptions, ProjectResults
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.common.system import System
from engine.math.coordinate_axis import (
    CoordinateAxis,
    CoordinateDirection,
    XAxis,
    YAxis,
    ZAxis,
)
from engine.math.rotation import Rotation
from engine.math.transform import Transform
from engine.math.vec import Vec3

__all__ = [name for name in dir() if not name.startswith("_")]
