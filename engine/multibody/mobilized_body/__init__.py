"""MobilizedBody: a handle to one body of a SimbodyMatterSubsystem and its mobilizer.

``MobilizedBody.Pin(parent, X_PF, body, X_BM)`` (or ``(parent, body)`` with
identity frames) adds a body connected to ``parent`` by a pin mobilizer whose
inboard frame F is fixed on the parent at X_PF and whose outboard frame M is
fixed on the body at X_BM. A last argument ``MobilizedBody.Reverse`` (or ``direction=``)
reverses the mobilizer as Simbody does: F stays on the parent and M on the body, but q and u
mean what they would for the mobilizer defined from the body to the parent, i.e. the type's
kinematics give X_MF(q) and V_MF(u) (Fo's velocity in M, expressed in M), and X_FM = ~X_MF
(a reversed Pin at angle q is the forward Pin at -q). Every mobilizer type in
``engine.multibody.mobilizers.dispatch.MOBILIZER_MODULES`` is available as
``MobilizedBody.<Name>``. Accessors take the State and check its stage.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.index_arg import index_value
from engine.common.real_array import real_array
from engine.math.rotation import Rotation
from engine.math.spatial import as_spatial_vec
from engine.math.transform import Transform
from engine.math.vec import as_vec3
from engine.multibody.body import Body
from engine.multibody.body_handle import MobilizedBodyHandle
from engine.multibody.matter.arguments import writable_array
from engine.multibody.mobilized_body.accessors import ACCESSORS
from engine.multibody.mobilized_body.extras import MobilizedBodyExtrasMixin
from engine.multibody.mobilized_body.fit import MobilizedBodyFitMixin
from engine.multibody.mobilized_body.lock import MobilizedBodyLockMixin
from engine.multibody.mobilized_body.partitions import MobilizedBodyPartitionsMixin
from engine.multibody.mobilized_body.reactions import MobilizedBodyReactionsMixin
from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES
from engine.multibody.mobilizers.params import NUM_PARAMS, OPTION_NAMES, params_for

if TYPE_CHECKING:
    from engine.common.state import State
    from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem


class Direction(IntEnum):
    """Simbody's MobilizedBody::Direction: a mobilizer defined from parent to child
    (Forward) or from child to parent (Reverse)."""

    Forward = 0
    Reverse = 1


def _pop_direction(args: tuple, kwargs: dict) -> tuple[tuple, bool]:
    """The constructor arguments without a trailing Direction, and whether it reverses."""
    direction = Direction.Forward
    if args and isinstance(args[-1], Direction):
        direction, args = args[-1], args[:-1]
    if "direction" in kwargs:
        value = kwargs.pop("direction")
        if not isinstance(value, (Direction, bool, int)) or int(value) not in (0, 1):
            raise InvalidArgumentError(
                f"direction must be MobilizedBody.Forward or MobilizedBody.Reverse, got {value!r}"
            )
        direction = Direction(int(value))
    return args, direction == Direction.Reverse


def _pack_params(module, extra: tuple, kwargs: dict) -> np.ndarray:
    """The params vector of a mobilizer from its constructor's extra arguments.

    Positional extras follow Simbody's constructor order (Screw: pitch; Ellipsoid: radii;
    SphericalCoords: azimuth_offset, azimuth_negated, zenith_offset, zenith_negated,
    radial_axis, radial_negated); keywords use those names.
    """
    name = module.NAME
    if not extra and not kwargs and name not in OPTION_NAMES:
        return np.zeros(NUM_PARAMS)  # a type without options
    names = OPTION_NAMES.get(name, ())
    if len(extra) > len(names):
        expected = ", ".join(names) if names else "no extra arguments"
        raise InvalidArgumentError(
            f"MobilizedBody.{name} takes {expected}; got {len(extra)} extra positional argument(s)"
        )
    options = dict(zip(names, extra, strict=False))
    for key, value in kwargs.items():
        if key in options:
            raise InvalidArgumentError(f"MobilizedBody.{name}: {key} given twice")
        options[key] = value
    try:
        return params_for(name, options)
    except ValueError as exc:
        raise InvalidArgumentError(f"MobilizedBody.{name}: {exc}") from None


class MobilizedBody(
    MobilizedBodyExtrasMixin,
    MobilizedBodyPartitionsMixin,
    MobilizedBodyFitMixin,
    MobilizedBodyLockMixin,
    MobilizedBodyReactionsMixin,
    MobilizedBodyHandle,
):
    """Handle to body ``getMobilizedBodyIndex()`` of a matter subsystem."""

    _module = None  # the mobilizer kernel module; None for Ground

    def __init__(self, parent: MobilizedBody, *args, **kwargs) -> None:
        if not isinstance(parent, MobilizedBody):
            raise InvalidArgumentError(
                f"the first argument of MobilizedBody.{type(self).__name__} is the parent "
                f"MobilizedBody (e.g. matter.Ground()), got {type(parent).__name__}"
            )
        if kwargs or (args and isinstance(args[-1], Direction)):
            args, reversed_ = _pop_direction(args, kwargs)
        else:
            reversed_ = False
        if len(args) >= 3 and isinstance(args[1], Body):
            X_PF, body, X_BM, extra = args[0], args[1], args[2], args[3:]
        elif len(args) >= 1 and isinstance(args[0], Body):
            X_PF, body, X_BM, extra = Transform(), args[0], Transform(), args[1:]
        else:
            raise InvalidArgumentError(
                f"MobilizedBody.{type(self).__name__}(parent, X_PF, body, X_BM) or "
                "(parent, body): a Body (e.g. Body.Rigid(MassProperties(...))) is required"
            )
        self._X_PF = Transform(X_PF)
        self._X_BM = Transform(X_BM)
        self._body = body.clone()  # each mobilized body owns its copy (as Simbody)
        self._params = _pack_params(self._module, tuple(extra), kwargs)
        self._default_q: np.ndarray | None = None
        self._reversed = bool(reversed_)
        self._parent_index = parent.getMobilizedBodyIndex()
        self._matter: SimbodyMatterSubsystem = parent._matter
        self._index = self._matter.adoptMobilizedBody(self)

    @classmethod
    def _ground(cls, matter: SimbodyMatterSubsystem) -> MobilizedBody:
        g = cls.__new__(cls)
        g._X_PF = Transform()
        g._X_BM = Transform()
        g._body = Body.Ground()
        g._params = np.zeros(8)
        g._default_q = None
        g._reversed = False
        g._parent_index = -1
        g._matter = matter
        g._index = 0
        return g

    def cloneForNewParent(self, parent: MobilizedBody) -> MobilizedBody:
        """Simbody's ``cloneForNewParent``: a new MobilizedBody identical to this one (type,
        direction, X_PF, X_BM, a copy of the Body, options, default q, default lock level)
        but with ``parent`` as its parent, adopted by ``parent``'s matter subsystem (which
        may belong to another System). The copy skips the constructor's argument checks (this
        body's values passed them) and brings this body's row of its matter's topology arrays
        when that matter is realized to Topology, so a System rebuilt from another's bodies
        makes only the rows of the bodies that are new. A body with a Motion, a custom
        mobilizer or contact surfaces is refused (they belong to their own System)."""
        if not isinstance(parent, MobilizedBody):
            raise InvalidArgumentError(
                "cloneForNewParent: the parent must be a MobilizedBody (e.g. matter.Ground()), "
                f"got {type(parent).__name__}"
            )
        if self._module is None:
            raise InvalidArgumentError("cloneForNewParent: Ground cannot be cloned")
        own = self.__dict__
        if self._motion is not None or "_impl" in own or self._body._contact_surfaces:
            what = (
                "a Motion"
                if self._motion is not None
                else "a custom mobilizer"
                if "_impl" in own
                else "contact surfaces"
            )
            raise InvalidArgumentError(
                f"cloneForNewParent: mobilized body {self._index} has {what}, which belongs "
                "to its own System; construct the new body instead"
            )
        clone = object.__new__(type(self))
        values = clone.__dict__
        values.update(own)
        values["_X_PF"] = Transform(self._X_PF)
        values["_X_BM"] = Transform(self._X_BM)
        values["_body"] = self._body.clone()
        # (its params and default q arrays are shared: they are replaced, never written)
        values["_parent_index"] = parent._index
        matter = values["_matter"] = parent._matter
        values["_index"] = matter._adopt_clone(clone, self)
        return clone

    # ------------------------------------------------------------- topology
    def getMobilizedBodyIndex(self) -> int:
        return self._index

    def getMatterSubsystem(self) -> SimbodyMatterSubsystem:
        return self._matter

    def isGround(self) -> bool:
        return self._index == 0

    def getParentMobilizedBody(self) -> MobilizedBody:
        if self._index == 0:
            raise IndexOutOfRangeError("Ground has no parent mobilized body")
        return self._matter.getMobilizedBody(self._parent_index)

    def getMobilizerTypeName(self) -> str:
        return "Ground" if self._module is None else self._module.NAME

    def isReversed(self) -> bool:
        """True if this mobilizer was defined in the Reverse direction (child to parent)."""
        return self._reversed

    def getBody(self) -> Body:
        return self._body

    updBody = getBody

    def getDefaultInboardFrame(self) -> Transform:
        """X_PF: the mobilizer's F frame on the parent."""
        return self._X_PF

    def getDefaultOutboardFrame(self) -> Transform:
        """X_BM: the mobilizer's M frame on this body."""
        return self._X_BM

    def addBodyDecoration(self, *args) -> int:
        """Add decorative geometry fixed to this body; ``(geometry)`` or ``(X_BD, geometry)``."""
        return self._body.addDecoration(*args)

    def setDefaultQ(self, q) -> MobilizedBody:
        """Default values of this mobilizer's q slots (used by realizeTopology/realizeModel)."""
        n = 0 if self._module is None else self._module.NQ_SLOTS
        if type(q) is np.ndarray and q.dtype == np.float64 and q.ndim == 1:
            arr = q.copy()
        else:
            arr = np.array(q, dtype=np.float64).reshape(-1)
        if arr.size != n or not np.isfinite(arr).all():
            raise InvalidArgumentError(
                f"setDefaultQ: {self.getMobilizerTypeName()} has {n} q slots; got {arr.tolist()}"
            )
        self._default_q = arr
        self._matter._invalidate_body_row(self._index)
        return self

    def getDefaultMassProperties(self):
        """The Body's mass properties (kg; mass centre and inertia about Bo, in B)."""
        return self._body.getDefaultRigidBodyMassProperties()

    def setDefaultMassProperties(self, massProperties) -> MobilizedBody:
        """Give this body new mass properties (a topology change, as in Simbody: the
        System must be realizeTopology()'d again)."""
        from engine.math.mass_properties import MassProperties

        if self._module is None:
            raise InvalidArgumentError("setDefaultMassProperties: Ground's mass is infinite")
        if not isinstance(massProperties, MassProperties):
            raise InvalidArgumentError(
                "setDefaultMassProperties needs MassProperties, got "
                f"{type(massProperties).__name__}"
            )
        self._body.setDefaultRigidBodyMassProperties(massProperties)
        self._matter._invalidate_body_row(self._index)
        return self

    def getBodyMassProperties(self, state: State):
        """Mass properties of this body (kg; centre and inertia about Bo in B)."""
        return self._body.getDefaultRigidBodyMassProperties()

    # ------------------------------------------------------- state variables
    def getNumQ(self, state: State) -> int:
        return self._matter._num_q_in_use(state, self._index)

    def getNumU(self, state: State) -> int:
        return int(self._matter._topo(state).nus[self._index])

    def _q_range(self, state: State) -> tuple[int, int]:
        topo = self._matter._topo(state)
        return int(topo.qs[self._index]), self.getNumQ(state)

    def _u_range(self, state: State) -> tuple[int, int]:
        topo = self._matter._topo(state)
        return int(topo.us[self._index]), int(topo.nus[self._index])

    def getQ(self, state: State) -> np.ndarray:
        s, n = self._q_range(state)
        return self._matter.getQ(state)[s : s + n]

    def getU(self, state: State) -> np.ndarray:
        s, n = self._u_range(state)
        return self._matter.getU(state)[s : s + n]

    def getOneQ(self, state: State, which: int) -> float:
        return float(self.getQ(state)[self._check_which(which, self.getNumQ(state), "q")])

    def getOneU(self, state: State, which: int) -> float:
        return float(self.getU(state)[self._check_which(which, self.getNumU(state), "u")])

    def _check_which(self, which: int, n: int, what: str) -> int:
        i = index_value(which, f"the {what} index (which) of body {self._index}")
        if not 0 <= i < n:
            raise IndexOutOfRangeError(
                f"body {self._index} ({self.getMobilizerTypeName()}) has {n} {what}'s; "
                f"which = {which} is out of range"
            )
        return i

    def setQ(self, state: State, q) -> None:
        """Set this mobilizer's q (backs the State up to Time stage)."""
        s, n = self._q_range(state)
        arr = self._checked(q, n, "setQ: q")
        self._matter.updQ(state)[s : s + n] = arr

    def setU(self, state: State, u) -> None:
        """Set this mobilizer's u (backs the State up to Position stage)."""
        s, n = self._u_range(state)
        arr = self._checked(u, n, "setU: u")
        self._matter.updU(state)[s : s + n] = arr

    def setOneQ(self, state: State, which: int, value: float) -> None:
        s, n = self._q_range(state)
        i = self._check_which(which, n, "q")
        v = self._checked([value], 1, "setOneQ")[0]
        self._matter.updQ(state)[s + i] = v

    def setOneU(self, state: State, which: int, value: float) -> None:
        s, n = self._u_range(state)
        i = self._check_which(which, n, "u")
        v = self._checked([value], 1, "setOneU")[0]
        self._matter.updU(state)[s + i] = v

    @staticmethod
    def _checked(values, n: int, what: str) -> np.ndarray:
        arr = real_array(values, what, f"{n} numbers").reshape(-1)
        if arr.size != n:
            raise InvalidArgumentError(f"{what}: expected {n} values, got {arr.size}")
        if not np.all(np.isfinite(arr)):
            raise InvalidArgumentError(f"{what}: values must be finite, got {arr.tolist()}")
        return arr

    def getQDot(self, state: State) -> np.ndarray:
        s, n = self._q_range(state)
        return self._matter.getQDot(state)[s : s + n]

    def getUDot(self, state: State) -> np.ndarray:
        s, n = self._u_range(state)
        return self._matter.getUDot(state)[s : s + n]

    def getQDotDot(self, state: State) -> np.ndarray:
        s, n = self._q_range(state)
        return self._matter.getQDotDot(state)[s : s + n]

    # ----------------------------------------------------------- kinematics
    def getBodyTransform(self, state: State) -> Transform:
        """X_GB (Position stage)."""
        pc = self._matter._position_cache(state)
        return Transform(Rotation._from_matrix(pc.R_GB[self._index]), pc.p_GB[self._index])

    def getBodyRotation(self, state: State) -> Rotation:
        return Rotation._from_matrix(self._matter._position_cache(state).R_GB[self._index])

    def getBodyOriginLocation(self, state: State) -> np.ndarray:
        return self._matter._position_cache(state).p_GB[self._index].copy()

    def getMobilizerTransform(self, state: State) -> Transform:
        """X_FM (Position stage)."""
        pc = self._matter._position_cache(state)
        return Transform(Rotation._from_matrix(pc.R_FM[self._index]), pc.p_FM[self._index])

    def getBodyVelocity(self, state: State) -> np.ndarray:
        """V_GB = [w_GB, v_GB] (2, 3), of Bo, in G (Velocity stage)."""
        return self._matter._velocity_cache(state).V_GB[self._index].reshape(2, 3).copy()

    def getBodyAngularVelocity(self, state: State) -> np.ndarray:
        return self._matter._velocity_cache(state).V_GB[self._index][0:3].copy()

    def getBodyOriginVelocity(self, state: State) -> np.ndarray:
        return self._matter._velocity_cache(state).V_GB[self._index][3:6].copy()

    def getMobilizerVelocity(self, state: State) -> np.ndarray:
        """V_FM = [w_FM, v_FM] (2, 3), of Mo measured and expressed in F."""
        return self._matter._velocity_cache(state).V_FM[self._index].reshape(2, 3).copy()

    def getBodyAcceleration(self, state: State) -> np.ndarray:
        """A_GB = [alpha, a] (2, 3), of Bo, in G (Acceleration stage)."""
        return self._matter._acceleration_cache(state).A_GB[self._index].reshape(2, 3).copy()

    def findStationLocationInGround(self, state: State, p_BS) -> np.ndarray:
        """p_GS of station S given in B (Position stage)."""
        pc = self._matter._position_cache(state)
        return pc.p_GB[self._index] + pc.R_GB[self._index] @ as_vec3(p_BS, "p_BS")

    def findStationVelocityInGround(self, state: State, p_BS) -> np.ndarray:
        """v_GS of station S fixed on B (Velocity stage)."""
        pc = self._matter._position_cache(state)
        V = self._matter._velocity_cache(state).V_GB[self._index]
        r = pc.R_GB[self._index] @ as_vec3(p_BS, "p_BS")
        return V[3:6] + np.cross(V[0:3], r)

    def findStationAccelerationInGround(self, state: State, p_BS) -> np.ndarray:
        """a_GS of station S fixed on B (Acceleration stage)."""
        pc = self._matter._position_cache(state)
        w = self._matter._velocity_cache(state).V_GB[self._index][0:3]
        A = self._matter._acceleration_cache(state).A_GB[self._index]
        r = pc.R_GB[self._index] @ as_vec3(p_BS, "p_BS")
        return A[3:6] + np.cross(A[0:3], r) + np.cross(w, np.cross(w, r))

    def expressVectorInGroundFrame(self, state: State, v_B) -> np.ndarray:
        return self._matter._position_cache(state).R_GB[self._index] @ as_vec3(v_B, "v_B")

    def expressGroundVectorInBodyFrame(self, state: State, v_G) -> np.ndarray:
        return self._matter._position_cache(state).R_GB[self._index].T @ as_vec3(v_G, "v_G")

    # --------------------------------------------------------- force helpers
    def applyBodyForce(self, state: State, F_G, bodyForces: np.ndarray) -> None:
        """Add the spatial force F_G ((2,3): torque, force at Bo, in G) into bodyForces."""
        rows = self._force_rows(bodyForces, "applyBodyForce")
        F = as_spatial_vec(F_G, "applyBodyForce: F_G")
        rows[self._index] += F

    def applyForceToBodyPoint(self, state: State, p_BS, f_G, bodyForces: np.ndarray) -> None:
        """Add force f_G (in G) acting at station S (in B) into bodyForces."""
        r = self._matter._position_cache(state).R_GB[self._index] @ as_vec3(p_BS, "p_BS")
        f = as_vec3(f_G, "f_G")
        rows = self._force_rows(bodyForces, "applyForceToBodyPoint")
        rows[self._index, 0] += np.cross(r, f)
        rows[self._index, 1] += f

    def applyOneMobilityForce(self, state: State, which: int, f: float, mobilityForces) -> None:
        s, n = self._u_range(state)
        i = self._check_which(which, n, "u")
        value = float(self._checked([f], 1, "applyOneMobilityForce: f")[0])
        total = self._matter.getU(state).shape[0]
        writable_array(mobilityForces, (total,), "applyOneMobilityForce: mobilityForces")
        mobilityForces[s + i] += value

    def __repr__(self) -> str:
        return f"<MobilizedBody.{self.getMobilizerTypeName()} index={self._index}>"


_ALIASES = {
    "Pin": ("Torsion", "Revolute"),
    "Slider": ("Prismatic",),
    "Ball": ("Orientation", "Spherical"),
    "Translation": ("Cartesian", "CartesianCoords"),
    "BendStretch": ("PolarCoords",),
}


MobilizedBody.Direction = Direction
MobilizedBody.Forward = Direction.Forward
MobilizedBody.Reverse = Direction.Reverse


def _install_types() -> None:
    for module in MOBILIZER_MODULES.values():
        attrs = {"_module": module, "__doc__": module.__doc__}
        attrs.update(ACCESSORS.get(module.NAME, {}))
        cls = type(module.NAME, (MobilizedBody,), attrs)
        cls.__qualname__ = f"MobilizedBody.{module.NAME}"
        setattr(MobilizedBody, module.NAME, cls)
        for alias in _ALIASES.get(module.NAME, ()):
            setattr(MobilizedBody, alias, cls)


_install_types()
