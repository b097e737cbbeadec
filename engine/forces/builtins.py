# ruff: noqa: F401  (importing each module registers its Force.<Name> attribute)
"""Import every built-in force element so that ``Force.<Name>`` exists for each."""

from engine.forces import (
    constant_force,
    constant_torque,
    custom,
    discrete_forces,
    global_damper,
    gravity,
    linear_bushing,
    mobility_constant_force,
    mobility_discrete_force,
    mobility_linear_damper,
    mobility_linear_spring,
    mobility_linear_stop,
    two_point_constant_force,
    two_point_linear_damper,
    two_point_linear_spring,
    uniform_gravity,
)
