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

from engine.assembler.observed_targets import ObservedTargets, _body, _weight
from engine.common.exceptions import InvalidArgumentError


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


class Markers(ObservedTargets):
    """A set of body-fixed markers and their observed Ground locations."""

    _NOUN = "marker"
    _OBSERVATION_SHAPE = (3,)

    def __init__(self) -> None:
        super().__init__("Markers")

    # ---------------------------------------------------------- definition
    def addMarker(self, *args) -> int:
        """``addMarker(name, bodyB, markerInB, weight=1)`` or
        ``addMarker(bodyB, markerInB, weight=1)``; returns the MarkerIx."""
        name, rest = self._split_add_args(
            args,
            "addMarker(name, bodyB, markerInB, weight=1) or addMarker(bodyB, markerInB, weight=1)",
        )
        body = _body(rest[0], "addMarker")
        station = _vec3(rest[1], "addMarker markerInB")
        if not np.all(np.isfinite(station)):
            raise InvalidArgumentError(f"addMarker: station must be finite, got {station}")
        weight = _weight(rest[2] if len(rest) == 3 else 1.0, "addMarker")
        return self._add_target(Marker(name, body, station, weight), "addMarker")

    def getNumMarkers(self) -> int:
        return len(self._targets)

    def getMarkerName(self, mx) -> str:
        return self._target(mx, "getMarkerName").name

    def getMarkerIx(self, name: str, required: bool = False) -> int:
        """MarkerIx of the marker called ``name`` (-1 if none)."""
        return self._index_of(name, required)

    def getMarkerWeight(self, mx) -> float:
        return self._target(mx, "getMarkerWeight").weight

    def getMarkerBody(self, mx) -> int:
        return self._target(mx, "getMarkerBody").bodyB

    def getMarkerStation(self, mx) -> np.ndarray:
        return self._target(mx, "getMarkerStation").markerInB.copy()

    def getMarker(self, mx) -> Marker:
        return self._target(mx, "getMarker")

    def changeMarkerWeight(self, mx, weight: float) -> None:
        self._change_weight(mx, weight, "changeMarkerWeight")

    # -------------------------------------------------------- observations
    def getObservationIxForMarker(self, mx) -> int:
        """ObservationIx of marker ``mx`` (-1 if it is not observed)."""
        return self._observation_of(mx, "getObservationIxForMarker")

    def hasObservation(self, mx) -> bool:
        return self.getObservationIxForMarker(mx) >= 0

    def getMarkerIxForObservation(self, ox) -> int:
        return self._target_of_observation(ox, "getMarkerIxForObservation")

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
    def findCurrentMarkerLocation(self, mx) -> np.ndarray:
        """Where marker ``mx`` is in Ground, at the Assembler's internal State."""
        m = self._target(mx, "findCurrentMarkerLocation")
        mobod = self.getMatterSubsystem().getMobilizedBody(m.bodyB)
        return mobod.findStationLocationInGround(self._realized_internal_state(), m.markerInB)

    def findCurrentMarkerErrorSquared(self, mx) -> float:
        """|location - observation|^2 (0 if the marker has no finite observation)."""
        mx = self._target_index(mx, "findCurrentMarkerErrorSquared")
        observed = self._observed_value(mx)
        if observed is None:
            return 0.0
        d = self.findCurrentMarkerLocation(mx) - observed
        return float(d @ d)

    def findCurrentMarkerError(self, mx) -> float:
        """Distance between marker ``mx`` and its observation (m)."""
        return math.sqrt(self.findCurrentMarkerErrorSquared(mx))

    # ------------------------------------------------------ the condition
    def _differences(self, state) -> tuple[list[tuple[int, int]], np.ndarray, np.ndarray]:
        """Active pairs, their location - observation (k, 3) and stations from Bo in G."""
        matter = self.getMatterSubsystem()
        active = self._active()
        diff = np.zeros((len(active), 3))
        r = np.zeros((len(active), 3))
        for k, (ox, mx) in enumerate(active):
            m = self._targets[mx]
            mobod = matter.getMobilizedBody(m.bodyB)
            R_GB = mobod.getBodyRotation(state).asMat33()
            r[k] = R_GB @ m.markerInB
            diff[k] = mobod.getBodyOriginLocation(state) + r[k] - self._observations[ox]
        return active, diff, r

    def _residuals(self, state):
        active, diff, _ = self._differences(state)
        return active, diff

    def calcGoalGradient(self, state):
        """Analytic: d goal/dq = N^-T J^T F with F the forces w_i d_i / W at the markers."""
        active, diff, r = self._differences(state)
        if not active:
            return 0, np.zeros(self.getNumFreeQs())
        w = self._weights(active)
        F = np.zeros((self.getMatterSubsystem().getNumBodies(), 2, 3))
        for k, (_, mx) in enumerate(active):
            f = w[k] * diff[k] / w.sum()
            b = self._targets[mx].bodyB
            F[b, 0] += np.cross(r[k], f)
            F[b, 1] += f
        return 0, self._free_q_gradient(state, F)
