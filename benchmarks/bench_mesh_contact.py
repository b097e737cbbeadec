"""Mesh-mesh contact speed: a 1280-face mesh icosphere on a 192-face mesh cube
(TriangleMesh-TriangleMesh, ElasticFoundation), stage by stage against the fused one-call
realization, in one run.

Run: ``.venv/bin/python benchmarks/bench_mesh_contact.py [--repeats 200] [--sim-time 0.3]``

* ``realize Dynamics``: the icosphere (trimesh's icosphere(3), radius 5 cm, 1 kg) resting
  ``--depth`` deep on the cube (half side 5 cm, trimesh's box subdivided twice, fixed to
  Ground), tilted, sliding and spinning; the time of one ``realize(state, Stage.Dynamics)``
  after a change of q (detection, forces, the articulated-body solve of the fused path),
  best and median of ``--repeats``, the two paths alternating so they share the load, and
  the process CPU time per realization of ``--repeats`` realizations in a row (warm
  caches);
* ``drop``: the icosphere dropped from 1 mm onto the cube (it lands after 14 ms and
  bounces a few times), RungeKuttaMerson accuracy 1e-3, a report every 1/60 s; process CPU
  seconds per simulated second over ``--sim-time`` s after the first report (fused, with
  compiled Merson steps) and over a fifth of it stage by stage (it is slow), and the steps
  each took.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trimesh  # noqa: E402

from engine import (  # noqa: E402
    Body,
    CompliantContactSubsystem,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
)

RADIUS, HALF = 0.05, 0.05


def ball_on_cube(fused: bool, height: float):
    """(system, state): the icosphere's centre ``height`` above the cube's top face."""
    cube = trimesh.creation.box(extents=(2 * HALF,) * 3)
    for _ in range(2):
        cube = cube.subdivide()
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.1)
    matter.Ground().updBody().addContactSurface(
        Transform(), ContactSurface(ContactGeometry.TriangleMesh(cube), material)
    )
    ball = ContactGeometry.TriangleMesh(trimesh.creation.icosphere(3, RADIUS))
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.001)))
    body.addContactSurface(Transform(), ContactSurface(ball, material))
    mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    tracker = ContactTrackerSubsystem(system)
    CompliantContactSubsystem(system, tracker)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    mobod.setQToFitTranslation(state, (0.004, HALF + height, -0.003))
    mobod.setQToFitRotation(state, Rotation(0.3, (1.0, 0.2, 0.5)))
    mobod.setUToFitLinearVelocity(state, (0.2, 0.0, -0.1))
    mobod.setUToFitAngularVelocity(state, (0.5, 1.0, 0.0))
    return system, state


def time_realizations(depth: float, repeats: int) -> dict:
    """{path: (best, median) microseconds of one realization to Dynamics, the two paths
    alternating; process CPU microseconds per realization in a row}."""
    models = {name: ball_on_cube(name == "fused", RADIUS - depth) for name in ("fused", "staged")}
    for system, state in models.values():
        system.realize(state, Stage.Dynamics)  # compile or load the kernels
    samples = {name: [] for name in models}
    for _ in range(repeats):
        for name, (system, state) in models.items():
            state.updQ()  # invalidates Position stage
            t0 = time.perf_counter()
            system.realize(state, Stage.Dynamics)
            samples[name].append(time.perf_counter() - t0)
    why = models["fused"][0].whyNotFused(models["fused"][1])
    assert why == "", why
    in_a_row = {}
    for name, (system, state) in models.items():
        t0 = time.process_time()
        for _ in range(repeats):
            state.updQ()
            system.realize(state, Stage.Dynamics)
        in_a_row[name] = (time.process_time() - t0) / repeats * 1e6
    return {
        name: (min(s) * 1e6, statistics.median(s) * 1e6, in_a_row[name])
        for name, s in samples.items()
    }


def time_drop(fused: bool, sim_time: float) -> tuple[float, int]:
    """(process CPU seconds per simulated second, steps taken) of the drop, timed from
    its first report."""
    system, state = ball_on_cube(fused, RADIUS + 0.001)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-3)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    stepper.stepTo(1 / 60)  # loads the compiled kernels
    before = integ.getNumStepsTaken()
    t0 = time.process_time()
    reports = max(1, round(sim_time * 60))
    for k in range(1, reports + 1):
        stepper.stepTo(1 / 60 + k / 60)
    cpu = time.process_time() - t0
    return cpu / (reports / 60), integ.getNumStepsTaken() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--depth", type=float, default=0.002)
    parser.add_argument("--sim-time", type=float, default=0.3)
    args = parser.parse_args()
    times = time_realizations(args.depth, args.repeats)
    for name, (best, median, cpu) in times.items():
        print(
            f"realize Dynamics, {name}: best {best:9.1f} us, median {median:9.1f} us "
            f"(alternating); {cpu:9.1f} CPU us each in a row"
        )
    print(f"staged / fused (median): {times['staged'][1] / times['fused'][1]:.0f}x")
    fused, steps = time_drop(True, args.sim_time)
    print(f"drop, fused: {fused:.3f} CPU s per simulated s ({steps} steps)")
    staged, steps = time_drop(False, args.sim_time / 5)
    print(f"drop, staged: {staged:.3f} CPU s per simulated s ({steps} steps)")
    if math.isfinite(staged / fused):
        print(f"staged / fused: {staged / fused:.0f}x")


if __name__ == "__main__":
    main()
