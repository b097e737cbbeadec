"""The integrators the studio offers, by display name, and how to configure one."""

from __future__ import annotations

from engine.integrators import (
    CPodesIntegrator,
    ExplicitEulerIntegrator,
    RungeKutta2Integrator,
    RungeKutta3Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEuler2Integrator,
    SemiExplicitEulerIntegrator,
    VerletIntegrator,
)

INTEGRATORS = {
    "RungeKuttaMerson": RungeKuttaMersonIntegrator,
    "RungeKuttaFeldberg": RungeKuttaFeldbergIntegrator,
    "RungeKutta3": RungeKutta3Integrator,
    "RungeKutta2": RungeKutta2Integrator,
    "Verlet": VerletIntegrator,
    "SemiExplicitEuler2": SemiExplicitEuler2Integrator,
    "SemiExplicitEuler": SemiExplicitEulerIntegrator,
    "ExplicitEuler": ExplicitEulerIntegrator,
    "CPodes": CPodesIntegrator,
}
DEFAULT_INTEGRATOR = "RungeKuttaMerson"
DEFAULT_ACCURACY = 1e-3
#: Step size (time units) for methods without error control, as a fraction of the time scale.
FIXED_STEP_FRACTION = 1e-3


def make_integrator(name: str, system, accuracy: float):
    """A configured integrator ``name`` for ``system`` (accuracy is a relative fraction)."""
    try:
        cls = INTEGRATORS[name]
    except KeyError:
        choices = sorted(INTEGRATORS)
        raise ValueError(f"unknown integrator {name!r}; choose one of {choices}") from None
    integ = cls(system)
    integ.setAccuracy(float(accuracy))
    if not integ.methodHasErrorControl():
        integ.setFixedStepSize(FIXED_STEP_FRACTION * system.getDefaultTimeScale())
    return integ
