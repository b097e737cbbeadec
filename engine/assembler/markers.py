"""Markers: fit stations on bodies to observed locations (SimTK::Markers).

Each marker is a station ``p_BS`` (m, in its body frame B) with a weight >= 0 and an
optional name. Observations are Ground-frame locations (m), given in an *observation
order* (``defineObservationOrder``; default: marker order). An observation that is not
finite (the initial NaN) or a marker of weight 0 is ignored.

As a goal (the usual use):

    goal = sum_i w_i |X_GB_i * p_BS_i - o_i|^2 / (2 sum_i w_i)

with an analytic gradient (J^T of the station forces, through N^-T for the q).
As a requirement, the errors are the 3 Ground-frame components ``location - observation``
of each active marker, in observation order.
"""

from __future__ import annotations

import math

import numpy as np

from engine.assembler.assembly_condition import AssemblyCondition
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.stage import Stage


class Marker:
    """One marker: name, body index, station p_BS (in B), weight."""

    __slots__ = ("name", "bodyB", "markerInB", "weight")

    def __init__(self, name: str, bodyB: int, markerInB: np.ndarray, weight: float) -> None:
        self.name = name
        self.bodyB = bodyB
        self.markerInB = markerInB
        self.weight = weight

    def __repr__(self) -> str:
        return (
            f"Marker('{self.name}', body {self.bodyB}, station {self.markerInB.tolist()}, "
            f"weight {self.weight})"
        )


def _vec3(v, what: str) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64).reshape(-1)
    if a.size != 3:
        raise InvalidArgumentError(f"{what}: expected 3 numbers, got {a.size}")
    return a.copy()


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


class Markers(AssemblyCondition):
    """A set of body-fixed markers and their observed Ground locations."""

    def __init__(self) -> None:
        super().__init__("Markers")
        self._markers: list[Marker] = []
        self._by_name: dict[str, int] = {}
        self._observation2marker: list[int] = []
        self._marker2observation: list[int] = []
        self._observations = np.zeros((0, 3))
        self._order_defined = False

    # ---------------------------------------------------------- definition
    def addMarker(self, *args) -> int:
        """``addMarker(name, bodyB, markerInB, weight=1)`` or
        ``addMarker(bodyB, markerInB, weight=1)``; returns the MarkerIx."""
        if args and isinstance(args[0], str):
            name, rest = args[0], args[1:]
        else:
            name, rest = "", args
        if len(rest) not in (2, 3):
            raise InvalidArgumentError(
                "addMarker(name, bodyB, markerInB, weight=1) or addMarker(bodyB, markerInB, "
                "weight=1)"
            )
        body = _body(rest[0], "addMarker")
        station = _vec3(rest[1], "addMarker markerInB")
        if not np.all(np.isfinite(station)):
            raise InvalidArgumentError(f"addMarker: station must be finite, got {station}")
        weight = _weight(rest[2] if len(rest) == 3 else 1.0, "addMarker")
        mx = len(self._markers)
        if not name:
            name = f"_UNNAMED_{mx}"
        if name in self._by_name:
            raise InvalidArgumentError(f"addMarker: there is already a marker named '{name}'")
        if self.isInAssembler():
            self._check_body(body)
        self._markers.append(Marker(name, body, station, weight))
        self._by_name[name] = mx
        self._order_defined = False
        self.uninitializeAssembler()
        return mx

    def _check_body(self, body: int) -> None:
        nb = self.getMatterSubsystem().getNumBodies()
        if body >= nb:
            raise IndexOutOfRangeError(
                f"Markers: there is no mobilized body {body}; the system has {nb} bodies"
            )

    def _validate(self, assembler) -> None:
        nb = assembler.getMatterSubsystem().getNumBodies()
        for m in self._markers:
            if m.bodyB >= nb:
                raise IndexOutOfRangeError(
                    f"Markers: marker '{m.name}' is on body {m.bodyB} but the system has "
                    f"{nb} bodies"
                )

    def _mx(self, mx, what: str) -> int:
        if isinstance(mx, str):
            return self.getMarkerIx(mx, required=True)
        if not isinstance(mx, (int, np.integer)) or not 0 <= int(mx) < len(self._markers):
            raise IndexOutOfRangeError(
                f"{what}: there is no marker {mx!r}; there are {len(self._markers)} markers"
            )
        return int(mx)

    def getNumMarkers(self) -> int:
        return len(self._markers)

    def getMarkerName(self, mx) -> str:
        return self._markers[self._mx(mx, "getMarkerName")].name

    def getMarkerIx(self, name: str, required: bool = False) -> int:
        """MarkerIx of the marker called ``name`` (-1 if none)."""
        mx = self._by_name.get(str(name), -1)
        if mx < 0 and required:
            raise IndexOutOfRangeError(f"Markers: there is no marker named '{name}'")
        return mx

    def getMarkerWeight(self, mx) -> float:
        return self._markers[self._mx(mx, "getMarkerWeight")].weight

    def getMarkerBody(self, mx) -> int:
        return self._markers[self._mx(mx, "getMarkerBody")].bodyB

    def getMarkerStation(self, mx) -> np.ndarray:
        return self._markers[self._mx(mx, "getMarkerStation")].markerInB.copy()

    def getMarker(self, mx) -> Marker:
        return self._markers[self._mx(mx, "getMarker")]

    def changeMarkerWeight(self, mx, weight: float) -> None:
        self._markers[self._mx(mx, "changeMarkerWeight")].weight = _weight(
            weight, "changeMarkerWeight"
        )

    # -------------------------------------------------------- observations
    def defineObservationOrder(self, order=None) -> None:
        """Say which marker each observation belongs to: a sequence of MarkerIx or names
        (-1 / "" for an observation to ignore); None or empty = marker order. Resets the
        observations to NaN."""
        if order is None or len(order) == 0:
            o2m = list(range(len(self._markers)))
        else:
            o2m = []
            for item in order:
                if isinstance(item, str):
                    o2m.append(self.getMarkerIx(item, required=True) if item else -1)
                elif isinstance(item, (int, np.integer)) and int(item) == -1:
                    o2m.append(-1)
                else:
                    o2m.append(self._mx(item, "defineObservationOrder"))
        used = [m for m in o2m if m >= 0]
        if len(used) != len(set(used)):
            raise InvalidArgumentError(
                "defineObservationOrder: a marker may be observed at most once"
            )
        self._observation2marker = o2m
        self._marker2observation = [-1] * len(self._markers)
        for ox, mx in enumerate(o2m):
            if mx >= 0:
                self._marker2observation[mx] = ox
        self._observations = np.full((len(o2m), 3), np.nan)
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
        return len(self._observation2marker)

    def _ox(self, ox, what: str) -> int:
        self._ensure_order()
        n = len(self._observation2marker)
        if not isinstance(ox, (int, np.integer)) or not 0 <= int(ox) < n:
            raise IndexOutOfRangeError(f"{what}: there is no observation {ox!r}; there are {n}")
        return int(ox)

    def getObservationIxForMarker(self, mx) -> int:
        """ObservationIx of marker ``mx`` (-1 if it is not observed)."""
        self._ensure_order()
        return self._marker2observation[self._mx(mx, "getObservationIxForMarker")]

    def hasObservation(self, mx) -> bool:
        return self.getObservationIxForMarker(mx) >= 0

    def getMarkerIxForObservation(self, ox) -> int:
        return self._observation2marker[self._ox(ox, "getMarkerIxForObservation")]

    def moveOneObservation(self, ox, observation) -> None:
        """Set observation ``ox`` (Ground frame, m); NaN means "not seen"."""
        ox = self._ox(ox, "moveOneObservation")
        self._observations[ox] = _vec3(observation, "moveOneObservation")

    def moveAllObservations(self, observations) -> None:
        self._ensure_order()
        obs = np.asarray(observations, dtype=np.float64)
        if obs.shape != self._observations.shape:
            raise InvalidArgumentError(
                f"moveAllObservations: expected {self._observations.shape[0]} observations "
                f"(shape {self._observations.shape}), got shape {obs.shape}"
            )
        self._observations = obs.copy()

    def getObservation(self, ox) -> np.ndarray:
        return self._observations[self._ox(ox, "getObservation")].copy()

    def getAllObservations(self) -> np.ndarray:
        self._ensure_order()
        return self._observations.copy()

    # ---------------------------------------------------- current location
    def _state(self):
        state = self.getAssembler().getInternalState()
        self.getMultibodySystem().realize(state, Stage.Position)
        return state

    def findCurrentMarkerLocation(self, mx) -> np.ndarray:
        """Where marker ``mx`` is in Ground, at the Assembler's internal State."""
        m = self._markers[self._mx(mx, "findCurrentMarkerLocation")]
        mobod = self.getMatterSubsystem().getMobilizedBody(m.bodyB)
        return mobod.findStationLocationInGround(self._state(), m.markerInB)

    def findCurrentMarkerErrorSquared(self, mx) -> float:
        """|location - observation|^2 (0 if the marker has no finite observation)."""
        mx = self._mx(mx, "findCurrentMarkerErrorSquared")
        ox = self.getObservationIxForMarker(mx)
        if ox < 0 or not np.all(np.isfinite(self._observations[ox])):
            return 0.0
        d = self.findCurrentMarkerLocation(mx) - self._observations[ox]
        return float(d @ d)

    def findCurrentMarkerError(self, mx) -> float:
        """Distance between marker ``mx`` and its observation (m)."""
        return math.sqrt(self.findCurrentMarkerErrorSquared(mx))

    # ------------------------------------------------------ the condition
    def _active(self) -> list[tuple[int, int]]:
        """(observation, marker) pairs that count: finite observation, weight > 0."""
        self._ensure_order()
        out = []
        for ox, mx in enumerate(self._observation2marker):
            if (
                mx >= 0
                and self._markers[mx].weight > 0
                and np.all(np.isfinite(self._observations[ox]))
            ):
                out.append((ox, mx))
        return out

    def _differences(self, state) -> tuple[list[tuple[int, int]], np.ndarray, np.ndarray]:
        """Active pairs, their location - observation (k, 3) and stations from Bo in G."""
        matter = self.getMatterSubsystem()
        active = self._active()
        diff = np.zeros((len(active), 3))
        r = np.zeros((len(active), 3))
        for k, (ox, mx) in enumerate(active):
            m = self._markers[mx]
            mobod = matter.getMobilizedBody(m.bodyB)
            R_GB = mobod.getBodyRotation(state).asMat33()
            r[k] = R_GB @ m.markerInB
            diff[k] = mobod.getBodyOriginLocation(state) + r[k] - self._observations[ox]
        return active, diff, r

    def _goal_error_weights(self, state) -> np.ndarray:
        w = np.array([self._markers[i].weight for _, i in self._active()])
        if w.size == 0:
            return np.zeros(0)
        return np.repeat(w / (2.0 * w.sum()), 3)

    def getNumErrors(self, state) -> int:
        return 3 * len(self._active())

    def calcErrors(self, state):
        """``(0, [location - observation for each active observation] (3 each, G))``."""
        _, diff, _ = self._differences(state)
        return 0, diff.reshape(-1)

    def calcGoal(self, state):
        """``(0, sum w_i |d_i|^2 / (2 sum w_i))`` over the active observations."""
        active, diff, _ = self._differences(state)
        if not active:
            return 0, 0.0
        w = np.array([self._markers[mx].weight for _, mx in active])
        return 0, float(w @ np.einsum("ij,ij->i", diff, diff)) / (2.0 * w.sum())

    def calcGoalGradient(self, state):
        """Analytic: d goal/dq = N^-T J^T F with F the forces w_i d_i / W at the markers."""
        matter = self.getMatterSubsystem()
        active, diff, r = self._differences(state)
        g = np.zeros(self.getNumFreeQs())
        if not active:
            return 0, g
        w = np.array([self._markers[mx].weight for _, mx in active])
        F = np.zeros((matter.getNumBodies(), 2, 3))
        for k, (_, mx) in enumerate(active):
            f = w[k] * diff[k] / w.sum()
            b = self._markers[mx].bodyB
            F[b, 0] += np.cross(r[k], f)
            F[b, 1] += f
        g_u = matter.multiplyBySystemJacobianTranspose(state, F)
        g_q = matter.multiplyByNInv(state, True, g_u)
        asm = self.getAssembler()
        for fx in range(g.size):
            g[fx] = g_q[asm.getQIndexOfFreeQ(fx)]
        return 0, g
