"""Compliant contact speed: realize Dynamics with N spheres resting in a box, and the
ball-drop trajectory of ../shared/reference/contact.json.

Run: ``.venv/bin/python benchmarks/bench_contact.py [--sizes 100,1000] [--repeats 20]``

* ``box N``: N free spheres (radius 5 cm) on a square grid, each resting 1 mm deep in the
  floor of a box of five half spaces (floor and four walls), neighbours 1 mm apart (so the
  broad phase sees every neighbour pair without a contact); the time of one
  ``realize(state, Stage.Dynamics)`` after a change of q (contact detection, force laws,
  body forces), in milliseconds, and the ratio of the largest size to the smallest;
* ``ball_drop``: the reference model's accuracy-1e-8 run (RungeKuttaMerson, 2 s, no
  interpolation, stepTo every 25 ms), wall time in seconds and the steps taken.

Simbody 3.7 Release is not built on this machine, so no ratio against it is printed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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

RADIUS = 0.05


def box_of_spheres(count: int):
    """(system, state, tracker, ccs) with ``count`` spheres resting in a box."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.0)
    side = math.ceil(math.sqrt(count))
    pitch = 2 * RADIUS + 0.001
    half = side * pitch / 2 + 0.01
    ground = matter.Ground().updBody()
    # outward normal +y (floor), then walls facing inward along +-x and +-z
    walls = [
        Transform(Rotation(-math.pi / 2, 2)),
        Transform(Rotation(math.pi, 2), (-half, 0, 0)),
        Transform(Rotation(0.0, 2), (half, 0, 0)),
        Transform(Rotation(math.pi / 2, 1), (0, 0, -half)),
        Transform(Rotation(-math.pi / 2, 1), (0, 0, half)),
    ]
    for X in walls:
        ground.addContactSurface(X, ContactSurface(ContactGeometry.HalfSpace(), material))
    balls = []
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.4 * RADIUS**2)))
    for _ in range(count):
        ball = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        ball.updBody().addContactSurface(
            Transform(), ContactSurface(ContactGeometry.Sphere(RADIUS), material)
        )
        balls.append(ball)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    state = system.realizeTopology()
    for k, ball in enumerate(balls):
        i, j = divmod(k, side)
        x = -half + 0.01 + RADIUS + i * pitch
        z = -half + 0.01 + RADIUS + j * pitch
        ball.setQToFitTranslation(state, (x, RADIUS - 0.001, z))
    system.realize(state, Stage.Dynamics)
    assert ccs.getNumContactForces(state) == count  # each sphere on the floor only
    return system, state, tracker, ccs


def time_dynamics(count: int, repeats: int) -> float:
    system, state, _, _ = box_of_spheres(count)
    best = math.inf
    for _ in range(repeats):
        state.updQ()  # invalidates Position stage
        t0 = time.perf_counter()
        system.realize(state, Stage.Dynamics)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def time_ball_drop() -> tuple[float, int]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.engine.contact_models import build_compliant, contact_model

    model = contact_model("ball_drop")
    run = model["runs"][0]
    built = build_compliant(model["model"])
    integ = RungeKuttaMersonIntegrator(built.ref.system)
    integ.setAccuracy(run["accuracy"])
    integ.setAllowInterpolation(False)
    stepper = TimeStepper(built.ref.system, integ)
    stepper.initialize(built.ref.new_state(model["initial_state"]))
    t0 = time.perf_counter()
    for report in run["reports"][1:]:
        stepper.stepTo(report["t"])
    return time.perf_counter() - t0, integ.getNumStepsTaken()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--no-trajectory", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    times = {}
    for n in sizes:
        times[n] = time_dynamics(n, args.repeats)
        print(f"box {n:5d} spheres: realize Dynamics {times[n]:9.3f} ms")
    if len(sizes) > 1:
        print(f"ratio {sizes[-1]}/{sizes[0]}: {times[sizes[-1]] / times[sizes[0]]:.2f}x")
    if not args.no_trajectory:
        wall, steps = time_ball_drop()
        print(f"ball_drop (1e-8, 2 s): {wall:.2f} s wall, {steps} steps")


if __name__ == "__main__":
    main()
