"""ObservedTargets: what Markers and OrientationSensors share (SimTK keeps them apart).

A target is fixed on a body B (a station for a marker, a frame for an orientation sensor),
has a weight >= 0 and a unique name (``_UNNAMED_<index>`` when none is given), and is
referred to by its index or its name. Observations (Ground-frame values, one array entry
each) come in an *observation order* (``defineObservationOrder``; default: target order);
each observation belongs to at most one target, -1 marks an observation to ignore. An
observation containing NaN (the initial value) or a target of weight 0 does not count.

Subclasses give the per-target residual ``r_i`` (3 numbers in G); the goal is
``sum_i w_i |r_i|^2 / (2 sum_i w_i)`` over the active targets and, as a requirement, the
errors are the residuals in observation order.
"""

from __future__ import annotations

import math

import numpy as np

from engine.assembler.assembly_condition import AssemblyCondition
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.stage import Stage


def _weight(w, what: str) -> float:
    try:
        w = float(w)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what}: weight must be a number, got {w!r}") from None
    if not math.isfinite(w) or w < 0:
        raise InvalidArgumentError(f"{what}: weight must be finite and >= 0, got {w}")
    return w


def _body(b, what: str) -> int:
    if hasattr(b, "getMobilizedBodyIndex"):
        return int(b.getMobilizedBodyIndex())
    if isinstance(b, (int, np.integer)) and not isinstance(b, bool) and b >= 0:
        return int(b)
    raise InvalidArgumentError(f"{what}: expected a MobilizedBodyIndex (int >= 0), got {b!r}")


class ObservedTargets(AssemblyCondition):
    """Body-fixed targets (objects with ``name``, ``bodyB``, ``weight``) and their
    observations; see the module docstring."""

    #: what one target is called in messages
    _NOUN = "target"
    #: shape of one observation
    _OBSERVATION_SHAPE: tuple[int, ...] = (3,)

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._targets: list = []
        self._by_name: dict[str, int] = {}
        self._observation2target: list[int] = []
        self._target2observation: list[int] = []
        self._observations = np.zeros((0, *self._OBSERVATION_SHAPE))
        self._order_defined = False

    # ---------------------------------------------------------- definition
    @staticmethod
    def _split_add_args(args: tuple, usage: str) -> tuple[str, tuple]:
        """(name, (bodyB, value[, weight])) from ``(name, bodyB, value[, weight])`` or
        ``(bodyB, value[, weight])``."""
        if args and isinstance(args[0], str):
            name, rest = args[0], args[1:]
        else:
            name, rest = "", args
        if len(rest) not in (2, 3):
            raise InvalidArgumentError(usage)
        return name, rest

    def _add_target(self, target, what: str) -> int:
        """Append ``target`` (its name defaulted and checked unique) and return its index."""
        ix = len(self._targets)
        if not target.name:
            target.name = f"_UNNAMED_{ix}"
        if target.name in self._by_name:
            raise InvalidArgumentError(
                f"{what}: there is already a {self._NOUN} named '{target.name}'"
            )
        if self.isInAssembler():
            self._check_body(target.bodyB)
        self._targets.append(target)
        self._by_name[target.name] = ix
        self._order_defined = False
        self.uninitializeAssembler()
        return ix

    def _check_body(self, body: int) -> None:
        nb = self.getMatterSubsystem().getNumBodies()
        if body >= nb:
            raise IndexOutOfRangeError(
                f"{self.getName()}: there is no mobilized body {body}; the system has {nb} bodies"
            )

    def _validate(self, assembler) -> None:
        nb = assembler.getMatterSubsystem().getNumBodies()
        for t in self._targets:
            if t.bodyB >= nb:
                raise IndexOutOfRangeError(
                    f"{self.getName()}: {self._NOUN} '{t.name}' is on body {t.bodyB} but the "
                    f"system has {nb} bodies"
                )

    def _target_index(self, ix, what: str) -> int:
        """The target index of ``ix`` (an index or a name)."""
        if isinstance(ix, str):
            return self._index_of(ix, required=True)
        if not isinstance(ix, (int, np.integer)) or not 0 <= int(ix) < len(self._targets):
            raise IndexOutOfRangeError(
                f"{what}: there is no {self._NOUN} {ix!r}; there are {len(self._targets)} "
                f"{self._NOUN}s"
            )
        return int(ix)

    def _index_of(self, name: str, required: bool = False) -> int:
        """Index of the target called ``name`` (-1 if none)."""
        ix = self._by_name.get(str(name), -1)
        if ix < 0 and required:
            raise IndexOutOfRangeError(f"{self.getName()}: there is no {self._NOUN} named '{name}'")
        return ix

    def _target(self, ix, what: str):
        return self._targets[self._target_index(ix, what)]

    def _change_weight(self, ix, weight: float, what: str) -> None:
        self._target(ix, what).weight = _weight(weight, what)

    # -------------------------------------------------------- observations
    def defineObservationOrder(self, order=None) -> None:
        """Say which target each observation belongs to: a sequence of indices or names
        (-1 / "" for an observation to ignore); None or empty = target order. Resets the
        observations to NaN."""
        if order is None or len(order) == 0:
            o2t = list(range(len(self._targets)))
        else:
            o2t = []
            for item in order:
                if isinstance(item, str):
                    o2t.append(self._index_of(item, required=True) if item else -1)
                elif isinstance(item, (int, np.integer)) and int(item) == -1:
                    o2t.append(-1)
                else:
                    o2t.append(self._target_index(item, "defineObservationOrder"))
        used = [t for t in o2t if t >= 0]
        if len(used) != len(set(used)):
            raise InvalidArgumentError(
                f"defineObservationOrder: a {self._NOUN} may be observed at most once"
            )
        self._observation2target = o2t
        self._target2observation = [-1] * len(self._targets)
        for ox, ix in enumerate(o2t):
            if ix >= 0:
                self._target2observation[ix] = ox
        self._observations = np.full((len(o2t), *self._OBSERVATION_SHAPE), np.nan)
        self._order_defined = True
        self.uninitializeAssembler()

    def _ensure_order(self) -> None:
        if not self._order_defined:
            self.defineObservationOrder()

    def initializeCondition(self) -> int:
        self._ensure_order()
        return 0

    def getNumObservations(self) -> int:
        self._ensure_order()
        return len(self._observation2target)

    def _ox(self, ox, what: str) -> int:
        self._ensure_order()
        n = len(self._observation2target)
        if not isinstance(ox, (int, np.integer)) or not 0 <= int(ox) < n:
            raise IndexOutOfRangeError(f"{what}: there is no observation {ox!r}; there are {n}")
        return int(ox)

    def _observation_of(self, ix, what: str) -> int:
        """Observation index of target ``ix`` (-1 if it is not observed)."""
        self._ensure_order()
        return self._target2observation[self._target_index(ix, what)]

    def _target_of_observation(self, ox, what: str) -> int:
        return self._observation2target[self._ox(ox, what)]

    def _observed_value(self, ix: int) -> np.ndarray | None:
        """Target ``ix``'s observation, or None when it has no finite one."""
        ox = self._observation_of(ix, "observation")
        if ox < 0 or not np.all(np.isfinite(self._observations[ox])):
            return None
        return self._observations[ox]

    def _realized_internal_state(self):
        """The Assembler's internal State, realized to Position."""
        state = self.getAssembler().getInternalState()
        self.getMultibodySystem().realize(state, Stage.Position)
        return state

    # ------------------------------------------------------ the condition
    def _active(self) -> list[tuple[int, int]]:
        """(observation, target) pairs that count: finite observation, weight > 0."""
        self._ensure_order()
        return [
            (ox, ix)
            for ox, ix in enumerate(self._observation2target)
            if ix >= 0
            and self._targets[ix].weight > 0
            and np.all(np.isfinite(self._observations[ox]))
        ]

    def _weights(self, active) -> np.ndarray:
        return np.array([self._targets[ix].weight for _, ix in active])

    def _residuals(self, state) -> tuple[list[tuple[int, int]], np.ndarray]:
        """The active pairs and their residuals r_i ((k, 3), in G)."""
        raise NotImplementedError

    def _goal_error_weights(self, state) -> np.ndarray:
        w = self._weights(self._active())
        if w.size == 0:
            return np.zeros(0)
        return np.repeat(w / (2.0 * w.sum()), 3)

    def getNumErrors(self, state) -> int:
        return 3 * len(self._active())

    def calcErrors(self, state):
        """``(0, [r_i for each active observation])`` (3 each, in G)."""
        _, r = self._residuals(state)
        return 0, r.reshape(-1)

    def calcGoal(self, state):
        """``(0, sum w_i |r_i|^2 / (2 sum w_i))`` over the active observations."""
        active, r = self._residuals(state)
        if not active:
            return 0, 0.0
        w = self._weights(active)
        return 0, float(w @ np.einsum("ij,ij->i", r, r)) / (2.0 * w.sum())

    def _free_q_gradient(self, state, F: np.ndarray) -> np.ndarray:
        """d goal / d(free q) from body forces ``F`` ((nb, 2, 3) at Bo in G) that are the
        goal's gradient with respect to the bodies' spatial velocities: N^-T J^T F."""
        matter = self.getMatterSubsystem()
        g_q = matter.multiplyByNInv(state, True, matter.multiplyBySystemJacobianTranspose(state, F))
        asm = self.getAssembler()
        return np.array([g_q[asm.getQIndexOfFreeQ(fx)] for fx in range(self.getNumFreeQs())])
