"""DecorationSubsystem: decorations a MultibodySystem shows that belong to no force or body.

Simbody's DecorationSubsystem. It emits, through System.calcDecorativeGeometryAndAppend:

- at Topology stage, body-fixed decorations (``addBodyFixedDecoration``), each a copy whose
  bodyId is the MobilizedBodyIndex and whose transform is X_BD (in B, metres);
- at Position stage, rubber-band lines (``addRubberBandLine``) from a station on one body to a
  station on another, drawn in Ground (bodyId 0) between the stations' current locations;
- at each generator's stage, whatever its DecorationGenerator appends for the current State.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.common.decorative_geometry import DecorativeGeometry, DecorativeLine
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.math.transform import Transform
from engine.math.vec import as_vec3


class DecorationGenerator:
    """Makes decorations from a State (Simbody's DecorationGenerator).

    Override ``generateDecorations(state, geometry)`` to append DecorativeGeometry to the
    list ``geometry``; it is called whenever a viewer asks for the generator's stage.
    """

    def generateDecorations(self, state: State, geometry: list) -> None:
        raise NotImplementedError("a DecorationGenerator must implement generateDecorations")


class _CallableGenerator(DecorationGenerator):
    def __init__(self, function: Callable[[State, list], None]) -> None:
        self._function = function

    def generateDecorations(self, state: State, geometry: list) -> None:
        self._function(state, geometry)


class DecorationSubsystem(Subsystem):
    """Body-fixed decorations, rubber-band lines and decoration generators of a System."""

    def __init__(self, system=None) -> None:
        super().__init__("DecorationSubsystem", "3.7")
        self._body_fixed: list[tuple[int, DecorativeGeometry]] = []
        self._rubber_bands: list[tuple[int, object, int, object, DecorativeLine]] = []
        self._generators: list[tuple[Stage, DecorationGenerator]] = []
        if system is not None:
            system.setDecorationSubsystem(self)

    # ------------------------------------------------------------------- building
    def _check_body(self, body, what: str) -> int:
        index = int(
            body.getMobilizedBodyIndex() if hasattr(body, "getMobilizedBodyIndex") else body
        )
        system = self.getSystem() if self.isInSystem() else None
        if index < 0:
            raise IndexOutOfRangeError(f"{what}: body index {index} is negative")
        if system is not None and hasattr(system, "getMatterSubsystem"):
            nb = system.getMatterSubsystem().getNumBodies()
            if index >= nb:
                raise IndexOutOfRangeError(
                    f"{what}: there is no mobilized body {index}; the matter subsystem has "
                    f"{nb} bodies (0 = Ground)"
                )
        return index

    def addBodyFixedDecoration(self, body, X_BD, geometry: DecorativeGeometry) -> int:
        """Fix ``geometry`` to ``body`` (a MobilizedBody or index) at X_BD; returns its index."""
        if not isinstance(geometry, DecorativeGeometry):
            raise InvalidArgumentError(
                f"addBodyFixedDecoration needs a DecorativeGeometry, got {type(geometry).__name__}"
            )
        index = self._check_body(body, "addBodyFixedDecoration")
        item = geometry.clone()
        item.setBodyId(index)
        item.setTransform(Transform(X_BD) * geometry.getTransform())
        self._body_fixed.append((index, item))
        self.invalidateSubsystemTopologyCache()
        return len(self._body_fixed) - 1

    def addRubberBandLine(self, body1, station1, body2, station2, line: DecorativeLine) -> int:
        """A line from ``station1`` (in body1's frame, m) to ``station2`` (in body2's frame)."""
        if not isinstance(line, DecorativeLine):
            raise InvalidArgumentError(
                f"addRubberBandLine needs a DecorativeLine, got {type(line).__name__}"
            )
        b1 = self._check_body(body1, "addRubberBandLine")
        b2 = self._check_body(body2, "addRubberBandLine")
        self._rubber_bands.append(
            (b1, as_vec3(station1).copy(), b2, as_vec3(station2).copy(), line.clone())
        )
        self.invalidateSubsystemTopologyCache()
        return len(self._rubber_bands) - 1

    def addDecorationGenerator(self, stage, generator) -> int:
        """Call ``generator`` (DecorationGenerator or callable(state, geometry)) at ``stage``."""
        stage = stage_value(stage, "addDecorationGenerator")
        if not isinstance(generator, DecorationGenerator):
            if not callable(generator):
                raise InvalidArgumentError(
                    "addDecorationGenerator needs a DecorationGenerator or a callable "
                    f"(state, geometry), got {type(generator).__name__}"
                )
            generator = _CallableGenerator(generator)
        self._generators.append((stage, generator))
        return len(self._generators) - 1

    def getNumBodyFixedDecorations(self) -> int:
        return len(self._body_fixed)

    def getNumRubberBandLines(self) -> int:
        return len(self._rubber_bands)

    def getNumDecorationGenerators(self) -> int:
        return len(self._generators)

    # ------------------------------------------------------------------- emitting
    def calcDecorativeGeometryAndAppendImpl(self, state: State, stage: Stage, geometry) -> None:
        stage = Stage(stage)
        if stage == Stage.Topology:
            for on_body, (_body, item) in enumerate(self._body_fixed):
                copy = item.clone()
                copy.setIndexOnBody(on_body)
                geometry.append(copy)
        if stage == Stage.Position and self._rubber_bands:
            matter = self.getSystem().getMatterSubsystem()
            for b1, s1, b2, s2, line in self._rubber_bands:
                p1 = matter.getMobilizedBody(b1).findStationLocationInGround(state, s1)
                p2 = matter.getMobilizedBody(b2).findStationLocationInGround(state, s2)
                item = line.clone()
                item.setBodyId(0)
                item.setTransform(Transform())
                item.setEndpoints(p1, p2)
                geometry.append(item)
        for generator_stage, generator in self._generators:
            if generator_stage == stage:
                generator.generateDecorations(state, geometry)
