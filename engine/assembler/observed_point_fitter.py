"""ObservedPointFitter: Simbody's least-squares fit of a model's q to observed points.

``ObservedPointFitter.findBestFit(system, state, bodyIxs, stations, targetLocations
[, weights], tolerance=0.001)``: ``stations[i]`` is a list of points (Vec3, in the body
frame) on body ``bodyIxs[i]`` (a MobilizedBodyIndex or MobilizedBody) and
``targetLocations[i][j]`` where station j of that body was observed (Vec3 in Ground, m);
``weights[i][j]`` (>= 0, default 1) weighs its squared distance. The q of ``state`` move to
the configuration that satisfies the System's constraints and minimizes the weighted sum
of squared distances; the return value is the weighted RMS distance (m) at that fit. The
fit is the Assembler with a Markers goal (one marker per station), started from
``state``'s q and converged to ``tolerance``.
"""

from __future__ import annotations

import math

import numpy as np

from engine.assembler.assembler import Assembler
from engine.assembler.markers import Markers
from engine.common.exceptions import InvalidArgumentError


class ObservedPointFitter:
    """Namespace of Simbody's ObservedPointFitter (static ``findBestFit``)."""

    @staticmethod
    def findBestFit(system, state, bodyIxs, stations, targetLocations, *args) -> float:
        """Fit ``state``'s q to the observations; returns the weighted RMS distance (m).
        Forms: ``(..., targetLocations, tolerance=0.001)`` and ``(..., targetLocations,
        weights, tolerance=0.001)``."""
        what = "ObservedPointFitter.findBestFit"
        if len(args) > 2:
            raise InvalidArgumentError(
                f"{what}(system, state, bodyIxs, stations, targetLocations[, weights]"
                "[, tolerance]) takes at most 7 arguments"
            )
        weights, tolerance = None, 0.001
        if len(args) == 2:
            weights, tolerance = args
        elif len(args) == 1:
            if np.ndim(args[0]) == 0 and not isinstance(args[0], list):
                tolerance = args[0]
            else:
                weights = args[0]
        bodies = list(bodyIxs)
        if not (len(bodies) == len(stations) == len(targetLocations)):
            raise InvalidArgumentError(
                f"{what}: bodyIxs, stations and targetLocations need one entry per body "
                f"(got {len(bodies)}, {len(stations)}, {len(targetLocations)})"
            )
        if weights is None:
            weights = [[1.0] * len(s) for s in stations]
        if len(weights) != len(bodies):
            raise InvalidArgumentError(f"{what}: weights need one list per body")
        tolerance = float(tolerance)
        if not (math.isfinite(tolerance) and tolerance > 0):
            raise InvalidArgumentError(f"{what}: tolerance must be > 0, got {tolerance}")
        markers = Markers()
        observations = []
        for i, body in enumerate(bodies):
            pts, targets, w = list(stations[i]), list(targetLocations[i]), list(weights[i])
            if not (len(pts) == len(targets) == len(w)):
                raise InvalidArgumentError(
                    f"{what}: body entry {i} has {len(pts)} stations, {len(targets)} targets "
                    f"and {len(w)} weights; they must match"
                )
            for p, t, wt in zip(pts, targets, w, strict=True):
                markers.addMarker(body, p, wt)
                observations.append(np.asarray(t, dtype=np.float64))
        if not observations:
            raise InvalidArgumentError(f"{what}: there are no stations to fit")
        markers.moveAllObservations(observations)
        assembler = Assembler(system)
        assembler.setAccuracy(tolerance)
        assembler.adoptAssemblyGoal(markers)
        assembler.assemble(state)
        total_w = sum(markers.getMarkerWeight(mx) for mx in range(markers.getNumMarkers()))
        if total_w == 0:
            return 0.0
        sq = sum(
            markers.getMarkerWeight(mx) * markers.findCurrentMarkerErrorSquared(mx)
            for mx in range(markers.getNumMarkers())
        )
        return math.sqrt(sq / total_w)
