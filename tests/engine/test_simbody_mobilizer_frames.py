"""Mobilizer frames and the State, as Simbody 3.7 has them: getInboardFrame(state) and
getOutboardFrame(state) give the default frames (setDefaultInboardFrame/OutboardFrame, taken
at realizeTopology) and the body moves with them; setInboardFrame(state, X) and
setOutboardFrame(state, X), which Simbody declares but does not implement, are refused with a
typed error and leave the State alone."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    UnsupportedOperationError,
    Vec3,
    XAxis,
)


def test_default_frames_are_the_state_frames_and_per_state_setters_are_refused():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    X_PF = Transform(Rotation(0.5, XAxis), Vec3(1, 2, 3))
    X_BM = Transform(Vec3(0, 0.5, 0))
    pin.setDefaultInboardFrame(X_PF).setDefaultOutboardFrame(X_BM)
    state = system.realizeTopology()
    np.testing.assert_allclose(pin.getInboardFrame(state).toMat44(), X_PF.toMat44())
    np.testing.assert_allclose(pin.getOutboardFrame(state).toMat44(), X_BM.toMat44())
    pin.setOneQ(state, 0, 0.3)
    system.realize(state, Stage.Position)
    expected = X_PF * Transform(Rotation(0.3, Vec3(0, 0, 1))) * ~X_BM
    np.testing.assert_allclose(
        pin.getBodyTransform(state).toMat44(), expected.toMat44(), atol=1e-15
    )
    with pytest.raises(UnsupportedOperationError, match="setDefaultInboardFrame"):
        pin.setInboardFrame(state, Transform())
    with pytest.raises(NotImplementedError, match="setDefaultOutboardFrame"):
        pin.setOutboardFrame(state, Transform())
    assert state.getSystemStage() == Stage.Position
    np.testing.assert_allclose(pin.getInboardFrame(state).toMat44(), X_PF.toMat44())
