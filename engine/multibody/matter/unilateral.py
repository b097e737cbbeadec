"""The SimbodyMatterSubsystem methods that own unilateral contacts and state-limited
frictions: adoptUnilateralContact, getNumUnilateralContacts, get/updUnilateralContact,
adoptStateLimitedFriction, getNumStateLimitedFrictions, get/updStateLimitedFriction."""

from __future__ import annotations

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError


class MatterUnilateralMixin:
    """Contacts are kept in adoption order; their index is their UnilateralContactIndex."""

    def _unilateral_lists(self) -> tuple[list, list]:
        if not hasattr(self, "_unilateral_contacts"):
            self._unilateral_contacts: list = []
            self._state_limited_frictions: list = []
        return self._unilateral_contacts, self._state_limited_frictions

    def _unilateral_realize_topology(self, state) -> None:
        """Allocate the State's switches: which unilateral contacts the time stepper has
        enabled (none at first) and which state-limited frictions are on (all at first).
        Switching one is an Instance-stage change, as in Simbody."""
        from engine.common.stage import Stage

        contacts, frictions = self._unilateral_lists()
        ix = self._ix.extra
        ix["unilateral_enabled"] = self.allocateDiscreteVariable(
            state, Stage.Instance, (False,) * len(contacts), name="unilateral contacts enabled"
        )
        ix["friction_enabled"] = self.allocateDiscreteVariable(
            state, Stage.Instance, (True,) * len(frictions), name="frictions enabled"
        )

    def _conditional_flag(self, state, which: str, index: int) -> bool:
        """Whether conditional constraint ``index`` of kind ``which`` is on in ``state``."""
        return bool(self.getDiscreteVariable(state, self._ix.extra[which])[index])

    def _set_conditional_flag(self, state, which: str, index: int, on: bool) -> None:
        """Switch conditional constraint ``index`` of kind ``which`` in ``state`` (the State
        changes only when the switch does)."""
        flags = self.getDiscreteVariable(state, self._ix.extra[which])
        if bool(flags[index]) != on:
            flags = list(flags)
            flags[index] = on
            self.setDiscreteVariable(state, self._ix.extra[which], tuple(flags))

    def _adopt_conditional(self, item, cls, items: list, what: str) -> int:
        if not isinstance(item, cls):
            raise InvalidArgumentError(
                f"{what}: expected a {cls.__name__}, got {type(item).__name__}"
            )
        if item._matter is not None:
            raise InvalidArgumentError(f"{what}: this {type(item).__name__} was already adopted")
        for body in item._bodies():
            if body.getMatterSubsystem() is not self:
                raise InvalidArgumentError(
                    f"{what}: the {type(item).__name__} uses a body of another matter subsystem"
                )
        items.append(item)
        item._adopted(self, len(items) - 1)
        return len(items) - 1

    @staticmethod
    def _conditional_at(items: list, index, what: str):
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            and not hasattr(index, "__index__")
        ):
            raise InvalidArgumentError(
                f"{what}: expected an integer index, got {type(index).__name__}"
            )
        i = int(index)
        if not 0 <= i < len(items):
            raise IndexOutOfRangeError(f"{what}: there is no index {i}; there are {len(items)}")
        return items[i]

    def adoptUnilateralContact(self, contact) -> int:
        """Take ownership of a UnilateralContact; returns its UnilateralContactIndex."""
        from engine.multibody.unilateral.unilateral_contact import UnilateralContact

        contacts, _ = self._unilateral_lists()
        return self._adopt_conditional(
            contact, UnilateralContact, contacts, "adoptUnilateralContact"
        )

    def getNumUnilateralContacts(self) -> int:
        return len(self._unilateral_lists()[0])

    def getUnilateralContact(self, index):
        return self._conditional_at(self._unilateral_lists()[0], index, "getUnilateralContact")

    def updUnilateralContact(self, index):
        return self._conditional_at(self._unilateral_lists()[0], index, "updUnilateralContact")

    def adoptStateLimitedFriction(self, friction) -> int:
        """Take ownership of a StateLimitedFriction; returns its StateLimitedFrictionIndex."""
        from engine.multibody.unilateral.state_limited_friction import StateLimitedFriction

        _, frictions = self._unilateral_lists()
        return self._adopt_conditional(
            friction, StateLimitedFriction, frictions, "adoptStateLimitedFriction"
        )

    def getNumStateLimitedFrictions(self) -> int:
        return len(self._unilateral_lists()[1])

    def getStateLimitedFriction(self, index):
        return self._conditional_at(self._unilateral_lists()[1], index, "getStateLimitedFriction")

    def updStateLimitedFriction(self, index):
        return self._conditional_at(self._unilateral_lists()[1], index, "updStateLimitedFriction")
