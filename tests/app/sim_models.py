"""Small models built in Python for the simulation tests (same shape as the model document's
BuiltModel: system, matter, forces, state, mobilized_bodies, body_name_of_index)."""

from __future__ import annotations

from types import SimpleNamespace

from engine import (
    Body,
    Constraint,
    Force,
    GeneralForceSubsystem,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Transform,
    Vec3,
)
from engine.common.decorative_geometry import DecorativeBrick, DecorativeSphere


class FailAfter(Force):
    """A force element that makes the model undefined after time ``t_fail``."""

    def __init__(self, forces, t_fail: float) -> None:
        super().__init__(forces)
        self.t_fail = t_fail

    def calcForce(self, state, bodyForces, particleForces, mobilityForces) -> None:  # noqa: N802, N803
        if state.getTime() > self.t_fail:
            raise InvalidArgumentError(f"test force refuses to act after t={self.t_fail}")


def chain(
    n: int = 1, q0: float = 0.5, fail_after: float | None = None, rod_length: float | None = None
) -> SimpleNamespace:
    """An n-link pendulum chain hanging along -y from (0, n + 0.5, 0) (Pin joints about z), each
    link 1 m long with a 1 kg ball at its end; gravity 9.81 down -y. Link 1 starts at q0.
    ``rod_length``: also a Rod of that length from the Ground point 1 m beside the pivot to
    link 1's ball (lengths up to 2 m can be assembled; the starting pose fits none of them)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, [0, -1, 0], 9.81)
    if fail_after is not None:
        FailAfter(forces, fail_after)
    parent = matter.Ground()
    top = n + 0.5  # the chain hangs from here, above the ground plane (y = 0)
    parent.getBody().addDecoration(
        Transform(Vec3(0, top + 0.05, 0)), DecorativeBrick([0.3, 0.05, 0.3])
    )
    mobods = {"Ground": parent}
    names = ["Ground"]
    for k in range(n):
        body = Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(0.01, 0.01, 0.01)))
        body.addDecoration(DecorativeSphere(0.25).setColor([0.9, 0.2, 0.1]))
        X_PF = Transform(Vec3(0, top, 0)) if k == 0 else Transform()  # noqa: N806
        mobod = MobilizedBody.Pin(parent, X_PF, body, Transform(Vec3(0, 1, 0)))
        if k == 0:
            mobod.setDefaultQ([q0])
        name = f"link{k + 1}"
        mobods[name] = mobod
        names.append(name)
        parent = mobod
    constraints = []
    if rod_length is not None:
        pivot = Vec3(1, top, 0)
        constraints.append(
            Constraint.Rod(matter.Ground(), pivot, mobods["link1"], Vec3(0, 0, 0), rod_length)
        )
    state = system.realizeTopology()
    system.realizeModel(state)
    return SimpleNamespace(
        system=system,
        matter=matter,
        forces=forces,
        state=state,
        mobilized_bodies=mobods,
        body_name_of_index=names,
        constraints=constraints,
    )
