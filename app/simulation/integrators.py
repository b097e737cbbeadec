"""The integrators the studio offers, by display name, and how to configure one."""

from __future__ import annotations

import inspect
import math

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


def has_error_control(name: str) -> bool:
    """Whether integrator ``name`` chooses its own step size (else it takes a fixed step)."""
    return name not in FIXED_STEP_INTEGRATORS


#: methods without error control: they step with a fixed step size (see make_integrator)
FIXED_STEP_INTEGRATORS = ("SemiExplicitEuler", "ExplicitEuler", "Verlet")


def default_step_size(system) -> float:
    """The fixed step size used when none is given: FIXED_STEP_FRACTION of the time scale."""
    return FIXED_STEP_FRACTION * system.getDefaultTimeScale()


def make_integrator(name: str, system, accuracy: float, step_size: float | None = None):
    """A configured integrator ``name`` for ``system`` (accuracy is a relative fraction in
    (0, 1)). A method without error control steps with ``step_size`` (time units; None: the
    default_step_size). Bad values raise ValueError (or the engine's InvalidArgumentError)."""
    try:
        cls = INTEGRATORS[name]
    except KeyError:
        choices = sorted(INTEGRATORS)
        raise ValueError(f"unknown integrator {name!r}; choose one of {choices}") from None
    accuracy = float(accuracy)
    if not 0 < accuracy < 1:
        raise ValueError(f"the accuracy must be between 0 and 1, got {accuracy:g}")
    h = default_step_size(system) if step_size is None else float(step_size)
    if not (h > 0 and math.isfinite(h)):
        raise ValueError(f"the step size must be a positive time, got {h:g}")
    params = inspect.signature(cls).parameters
    integ = cls(system, stepSize=h) if "stepSize" in params else cls(system)
    integ.setAccuracy(accuracy)
    if not integ.methodHasErrorControl():
        integ.setFixedStepSize(h)
    return integ
