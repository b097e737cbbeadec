"""Gather what a System decorates, split the way a Scene draws it.

A System produces decorations per stage through ``calcDecorativeGeometryAndAppend``. Those of
Topology stage are body-fixed (bodyId + X_BD) and never change shape, so a Scene builds their
actors once (``Scene.set_geometry``) and then only moves them. Those of later stages (Model up to
the State's stage, at most ``max_stage``: rubber bands, force lines, generators) depend on the
State and are rebuilt per frame (``Scene.set_dynamic_geometry``), in place where possible.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from engine.common.stage import Stage


class SystemDecorations(NamedTuple):
    """Decorations of a System in a State and the body poses that place them."""

    static: list  #: Topology-stage, body-fixed decorations
    dynamic: list  #: decorations of the later stages, in their bodies' frames (often Ground)
    x_gb: np.ndarray  #: (nbodies, 4, 4) body poses in Ground, body 0 = Ground


def static_decorations(system, state) -> list:
    """The Topology-stage (body-fixed) decorations of ``system``."""
    return list(system.calcDecorativeGeometryAndAppend(state, Stage.Topology, []))


def dynamic_decorations(system, state, max_stage: Stage = Stage.Position) -> list:
    """Decorations of the stages after Topology up to min(``max_stage``, the State's stage)."""
    last = min(Stage(max_stage), state.getSystemStage())
    geometry: list = []
    for stage in range(Stage.Model, last + 1):
        system.calcDecorativeGeometryAndAppend(state, Stage(stage), geometry)
    return geometry


def body_poses(system, state) -> np.ndarray:
    """X_GB of every mobilized body as an (nbodies, 4, 4) array (State realized to Position)."""
    matter = system.getMatterSubsystem()
    n = matter.getNumBodies()
    x_gb = np.empty((n, 4, 4))
    for b in range(n):
        x_gb[b] = matter.getMobilizedBody(b).getBodyTransform(state).toMat44()
    return x_gb


def collect_decorations(system, state, max_stage: Stage = Stage.Position) -> SystemDecorations:
    """Everything ``system`` decorates in ``state`` (realized to at least Position)."""
    if state.getSystemStage() < Stage.Position:
        system.realize(state, Stage.Position)
    return SystemDecorations(
        static_decorations(system, state),
        dynamic_decorations(system, state, max_stage),
        body_poses(system, state),
    )
