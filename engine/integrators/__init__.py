# ruff: noqa: F401  (this module re-exports the integrators)
"""Time integrators and the TimeStepper (SimTK's Integrator family).

Every integrator shares the Integrator API (integrator.py); each method lives in
its own file. RungeKuttaMersonIntegrator is the usual default; CPodesIntegrator
is for stiff systems.
"""

from engine.integrators.cpodes import CPodes, CPodesIntegrator
from engine.integrators.explicit_euler import ExplicitEulerIntegrator
from engine.integrators.integrator import Integrator, SuccessfulStepStatus, TerminationReason
from engine.integrators.runge_kutta_2 import RungeKutta2Integrator
from engine.integrators.runge_kutta_3 import RungeKutta3Integrator
from engine.integrators.runge_kutta_feldberg import RungeKuttaFeldbergIntegrator
from engine.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator
from engine.integrators.semi_explicit_euler import SemiExplicitEulerIntegrator
from engine.integrators.semi_explicit_euler_2 import SemiExplicitEuler2Integrator
from engine.integrators.time_stepper import TimeStepper
from engine.integrators.verlet import VerletIntegrator
