"""The warm-up of HuntCrossleyForce's kernels (``engine.jit_warmup``): a GeneralContactSubsystem
contact set detected and applied in the fused realization and in RungeKuttaMerson's compiled
steps, and its contacts recorded for ``getContacts``."""

from __future__ import annotations

import math


def warm_hunt_crossley() -> None:
    """Two spheres resting on a floor half space and touching each other, in one contact set
    with a HuntCrossleyForce: realized, asked for its contacts, stepped."""
    from engine.common.stage import Stage
    from engine.contact.contact_geometry import ContactGeometry
    from engine.contact.general_contact_subsystem import GeneralContactSubsystem
    from engine.forces.force import Force
    from engine.forces.general_force_subsystem import GeneralForceSubsystem
    from engine.forces.hunt_crossley_force import HuntCrossleyForce
    from engine.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator
    from engine.integrators.time_stepper import TimeStepper
    from engine.math.inertia import Inertia
    from engine.math.mass_properties import MassProperties
    from engine.math.rotation import Rotation
    from engine.math.transform import Transform
    from engine.multibody.body import Body
    from engine.multibody.mobilized_body import MobilizedBody
    from engine.multibody.multibody_system import MultibodySystem
    from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0.0, -9.81, 0.0))
    contacts = GeneralContactSubsystem(system)
    contact_set = contacts.createContactSet()
    floor = Transform(Rotation(-math.pi / 2, 2))
    contacts.addBody(contact_set, matter.Ground(), ContactGeometry.HalfSpace(), floor)
    balls = []
    for _ in range(2):
        body = Body.Rigid(MassProperties(1.0, (0.0, 0.0, 0.0), Inertia(0.004)))
        ball = MobilizedBody.Free(matter.Ground(), body)
        contacts.addBody(contact_set, ball, ContactGeometry.Sphere(0.1), Transform())
        balls.append(ball)
    element = HuntCrossleyForce(forces, contacts, contact_set)
    for s in range(3):
        element.setBodyParameters(s, 1e6, 0.5, 0.6, 0.4, 0.1)
    state = system.realizeTopology()
    for k, ball in enumerate(balls):
        ball.setQToFitTranslation(state, (0.199 * k, 0.099, 0.0))
    system.realize(state, Stage.Acceleration)
    contacts.getContacts(state, contact_set)
    integrator = RungeKuttaMersonIntegrator(system)
    integrator.setAccuracy(1e-3)
    stepper = TimeStepper(system, integrator)
    stepper.initialize(state)
    stepper.stepTo(0.01)
