"""A step of a model with hundreds of constraints (issue 22: "one Merson step of a model
with hundreds of constraints is never cut short"): a ladder of two hanging Ball chains
joined by a Rod at every rung takes its compiled Runge-Kutta-Merson steps in well under a
second each, so that a stepping kernel call returns to Python (signals, progress) often,
and its constraints stay satisfied."""

from __future__ import annotations

import time

import numpy as np

from engine import (
    Body,
    Constraint,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
    YAxis,
)

RUNGS = 120


def ladder(rungs: int, both: bool = False):
    """Two chains of ``rungs`` Ball-jointed links (0.08 m, 0.1 kg) hanging 0.3 m apart,
    a Rod of 0.3 m between their k-th links' tips for every k; the first link of one
    chain swinging (of both, alike, with ``both``: the velocities then satisfy the Rods'
    equations, so that initializing projects nothing). (System, State)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    Force.Gravity(GeneralForceSubsystem(system), matter, -YAxis, 9.81)
    link = Body.Rigid(
        MassProperties(0.1, Vec3(0, -0.04, 0), Inertia(2.13333e-4, 7.2e-6, 2.13333e-4))
    )
    chains = []
    for x in (0.0, 0.3):
        parent, offset, chain = matter.Ground(), Vec3(x, 4.5, 0), []
        for _ in range(rungs):
            parent = MobilizedBody.Ball(parent, Transform(offset), link, Transform())
            offset = Vec3(0, -0.08, 0)
            chain.append(parent)
        chains.append(chain)
    tip = Vec3(0, -0.08, 0)
    for a, b in zip(*chains, strict=True):
        Constraint.Rod(a, tip, b, tip, 0.3)
    state = system.realizeTopology()
    for chain in chains if both else chains[:1]:
        chain[0].setUToFitAngularVelocity(state, Vec3(0, 0, 1))
    return system, state


def test_a_step_with_120_rods_takes_a_fraction_of_a_second():
    system, state = ladder(RUNGS)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-3)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    assert integ.whyNotCompiledSteps() == ""  # the compiled stepping kernel takes them
    ts.stepTo(1e-4)  # the first step (the kernels' first call in this process)
    steps = integ.getNumStepsTaken()
    start = time.process_time()
    ts.stepTo(0.05)
    cpu = time.process_time() - start
    steps = integ.getNumStepsTaken() - steps
    assert steps >= 2
    # about 0.04 s of CPU per step at load 1 on a 2-core machine; 0.3-0.4 s with the
    # Jacobi solves (O(m^3) per sweep) that the pivoted Cholesky factorizations replace
    assert cpu / steps < 0.2, f"{cpu / steps:.3f} s of CPU per step"
    final = ts.getState()
    system.realize(final, Stage.Velocity)
    assert np.abs(final.getQErr()).max() < 1e-3
    assert np.abs(final.getUErr()).max() < 1e-3
