"""What the constraints on one individual mobility share: argument handling and the base
class of ConstantCoordinate, ConstantSpeed and ConstantAcceleration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_scalar
from engine.common.stage import Stage
from engine.multibody.constraints.constraint import Constraint

if TYPE_CHECKING:
    from typing import Self

    from engine.common.state import State
    from engine.multibody.mobilized_body import MobilizedBody


def mobility_and_value(cls_name: str, mobod, args, value_name: str):
    """``(mobod, which, value)`` from ``(mobod, value)`` or ``(mobod, which, value)``."""
    if len(args) == 1:
        which, value = 0, args[0]
    elif len(args) == 2:
        which, value = args
    else:
        raise InvalidArgumentError(f"Constraint.{cls_name}(mobilizedBody, [which,] {value_name})")
    value = real_scalar(value, f"Constraint.{cls_name}: {value_name}")
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


class MobilityValueConstraint(Constraint):
    """A constraint holding one mobility ``(mobilizedBody, which)`` of one body at a value.

    The value is a discrete State variable allocated at ``VALUE_STAGE`` (the stage that
    changing it invalidates), initialized from the constructor's default; ``_cur`` holds the
    State's value while the matter subsystem evaluates the equations (``_prepare``).
    Subclasses give the equations and Simbody's accessor names (getDefaultSpeed, setSpeed,
    ...), which call the ``_..._value`` helpers here.
    """

    #: the value's name in the constructor's usage message
    VALUE_NAME = "value"
    #: the stage of the value's discrete variable
    VALUE_STAGE = Stage.Position
    #: appended to "<TYPE_NAME> <constraint index>" in the discrete variable's name
    VARIABLE_SUFFIX = ""

    def __init__(self, mobod: MobilizedBody, args: tuple) -> None:
        which, self._default_value = mobility_and_value(
            self.TYPE_NAME, mobod, args, self.VALUE_NAME
        )
        self._check_mobilizer(mobod)
        self._ix_value = -1
        self._cur = self._default_value
        super().__init__([], [(mobod, which)], matter=mobod.getMatterSubsystem())

    def _check_mobilizer(self, mobod: MobilizedBody) -> None:
        """Reject a mobilizer this constraint cannot act on (any is fine by default)."""

    def getMobilizedBody(self) -> MobilizedBody:
        return self._mobilities[0][0]

    def _set_default_value(self, value: float) -> Self:
        self._default_value = real_scalar(value, f"Constraint.{self.TYPE_NAME}: default value")
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def _allocate(self, state: State) -> None:
        self._ix_value = self._matter.allocateDiscreteVariable(
            state,
            self.VALUE_STAGE,
            self._default_value,
            name=f"{self.TYPE_NAME} {self._index}{self.VARIABLE_SUFFIX}",
        )

    def _prepare(self, state: State) -> None:
        self._cur = self._get_value(state)

    def _set_value(self, state: State, value: float) -> None:
        value = real_scalar(value, f"Constraint.{self.TYPE_NAME}: value")
        self._matter.setDiscreteVariable(state, self._ix_value, value)

    def _get_value(self, state: State) -> float:
        return float(self._matter.getDiscreteVariable(state, self._ix_value))
