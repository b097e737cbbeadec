"""Argument handling shared by the constraints on individual mobilities."""

from __future__ import annotations

from engine.common.exceptions import InvalidArgumentError


def mobility_and_value(cls_name: str, mobod, args, value_name: str):
    """``(mobod, which, value)`` from ``(mobod, value)`` or ``(mobod, which, value)``."""
    if len(args) == 1:
        which, value = 0, args[0]
    elif len(args) == 2:
        which, value = args
    else:
        raise InvalidArgumentError(f"Constraint.{cls_name}(mobilizedBody, [which,] {value_name})")
    value = float(value)
    return int(which), value


def require_qdot_equals_u(cls_name: str, mobod) -> None:
    """Coordinate constraints use u as qdot: only mobilizers with qdot = u qualify."""
    module = mobod._module
    if module is None:
        raise InvalidArgumentError(f"Constraint.{cls_name}: Ground has no coordinates")
    if module.USES_QUATERNION or module.NQ_SLOTS != module.NU:
        raise InvalidArgumentError(
            f"Constraint.{cls_name}: the {module.NAME} mobilizer of body "
            f"{mobod.getMobilizedBodyIndex()} does not have qdot = u; coordinate "
            "constraints need a mobilizer whose coordinates are integrated from u directly"
        )
