"""Mobilizer-specific accessors and setters Simbody users reach for (issue 21):
Pin.setAngle, Slider.setLength, Translation.setTranslation and
PeriodicEventReporter.setEventInterval."""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)
from engine.common.events import PeriodicEventReporter


def test_pin_slider_translation_accessors():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    slider = MobilizedBody.Slider(pin, Transform(), body, Transform())
    tr = MobilizedBody.Translation(slider, Transform(), body, Transform())
    pin.setDefaultAngle(0.25)
    slider.setDefaultLength(2.0)
    tr.setDefaultTranslation(Vec3(1, 2, 3))
    assert pin.getDefaultAngle() == 0.25 and slider.getDefaultLength() == 2.0
    state = system.realizeTopology()
    assert pin.getAngle(state) == 0.25 and slider.getLength(state) == 2.0
    np.testing.assert_array_equal(tr.getTranslation(state), [1, 2, 3])
    pin.setAngle(state, 0.5)
    pin.setRate(state, 3.0)
    slider.setLength(state, 0.75)
    slider.setRate(state, -1.0)
    tr.setTranslation(state, Vec3(0.1, 0.2, 0.3))
    tr.setVelocity(state, Vec3(4, 5, 6))
    system.realize(state, Stage.Acceleration)
    assert pin.getOneQ(state, 0) == 0.5 and pin.getRate(state) == 3.0
    assert slider.getOneQ(state, 0) == 0.75 and slider.getRate(state) == -1.0
    np.testing.assert_array_equal(tr.getQ(state), [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(tr.getVelocity(state), [4, 5, 6])
    assert pin.getAcceleration(state) == pin.getOneUDot(state, 0)
    np.testing.assert_array_equal(tr.getAcceleration(state), tr.getUDot(state))
    np.testing.assert_allclose(
        pin.getMobilizerTransform(state).R().asMat33()[0:2, 0:2],
        [[np.cos(0.5), -np.sin(0.5)], [np.sin(0.5), np.cos(0.5)]],
    )


def test_periodic_event_reporter_set_event_interval():
    class Reporter(PeriodicEventReporter):
        def handleEvent(self, state):
            pass

    reporter = Reporter(0.1)
    reporter.setEventInterval(0.25)
    assert reporter.getEventInterval() == 0.25
