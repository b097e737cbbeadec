"""MobilizedBody's partition utilities and tree queries (a mixin of MobilizedBody), as
Simbody's: this mobilizer's entries of a matter-subsystem-wide q-like or u-like Vector
(getOneFromQPartition, updOneFromQPartition, getMyPartQ, ...), convertQForceToUForce, and
the body's place in the tree (getLevelInMultibodyTree, getBaseMobilizedBody, ...).

A q-like Vector has one entry per q of the matter subsystem, a u-like one one per u. Simbody's
``upd`` forms return a writable reference; here they return a writable numpy view into the
given array (a 0-d view for one entry: ``v[...] = x`` or ``v += f`` writes through).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_array

if TYPE_CHECKING:
    from engine.common.state import State


class MobilizedBodyPartitionsMixin:
    """Simbody's MobilizedBody partition utilities and tree queries."""

    # ------------------------------------------------------------- partitions
    def _partition(self, state: State, like, level: str, what: str, writable: bool):
        """(the array, first index, count) of this mobilizer's part of a q- or u-like
        vector, after checking its length against the matter subsystem's."""
        matter = self._matter
        total = (matter.getQ(state) if level == "q" else matter.getU(state)).shape[0]
        if writable:
            if not isinstance(like, np.ndarray) or like.dtype != np.float64 or like.ndim != 1:
                raise InvalidArgumentError(
                    f"{what}: the {level}-like vector must be a 1-D float64 numpy array to "
                    f"write into, got {type(like).__name__}"
                )
            if not like.flags.writeable:
                raise InvalidArgumentError(f"{what}: the {level}-like vector is read-only")
            arr = like
        else:
            arr = real_array(like, f"{what}: {level}like", f"a {level}-like vector").reshape(-1)
        if arr.shape[0] != total:
            raise InvalidArgumentError(
                f"{what}: a {level}-like vector of the matter subsystem has length {total}, "
                f"got {arr.shape[0]}"
            )
        if not writable and not np.isfinite(arr).all():
            raise InvalidArgumentError(f"{what}: {level}like: values must be finite")
        if level == "q":
            return arr, self.getFirstQIndex(state), self.getNumQ(state)
        return arr, self.getFirstUIndex(state), self.getNumU(state)

    def getOneFromQPartition(self, state: State, which: int, qlike) -> float:
        """Entry ``which`` (0..nq-1) of this mobilizer's q's in a q-like vector."""
        arr, s, n = self._partition(state, qlike, "q", "getOneFromQPartition", False)
        return float(arr[s + self._check_which(which, n, "q")])

    def updOneFromQPartition(self, state: State, which: int, qlike: np.ndarray) -> np.ndarray:
        """A writable 0-d view of entry ``which`` of this mobilizer's q's in ``qlike``."""
        arr, s, n = self._partition(state, qlike, "q", "updOneFromQPartition", True)
        i = s + self._check_which(which, n, "q")
        return arr[i : i + 1].reshape(())

    def getOneFromUPartition(self, state: State, which: int, ulike) -> float:
        """Entry ``which`` (0..nu-1) of this mobilizer's u's in a u-like vector."""
        arr, s, n = self._partition(state, ulike, "u", "getOneFromUPartition", False)
        return float(arr[s + self._check_which(which, n, "u")])

    def updOneFromUPartition(self, state: State, which: int, ulike: np.ndarray) -> np.ndarray:
        """A writable 0-d view of entry ``which`` of this mobilizer's u's in ``ulike``."""
        arr, s, n = self._partition(state, ulike, "u", "updOneFromUPartition", True)
        i = s + self._check_which(which, n, "u")
        return arr[i : i + 1].reshape(())

    def getMyPartQ(self, state: State, qlike) -> np.ndarray:
        """This mobilizer's nq entries of a q-like vector (a copy)."""
        arr, s, n = self._partition(state, qlike, "q", "getMyPartQ", False)
        return np.array(arr[s : s + n])

    def getMyPartU(self, state: State, ulike) -> np.ndarray:
        """This mobilizer's nu entries of a u-like vector (a copy)."""
        arr, s, n = self._partition(state, ulike, "u", "getMyPartU", False)
        return np.array(arr[s : s + n])

    def updMyPartQ(self, state: State, qlike: np.ndarray) -> np.ndarray:
        """A writable view of this mobilizer's nq entries of ``qlike``."""
        arr, s, n = self._partition(state, qlike, "q", "updMyPartQ", True)
        return arr[s : s + n]

    def updMyPartU(self, state: State, ulike: np.ndarray) -> np.ndarray:
        """A writable view of this mobilizer's nu entries of ``ulike``."""
        arr, s, n = self._partition(state, ulike, "u", "updMyPartU", True)
        return arr[s : s + n]

    def convertQForceToUForce(self, state: State, fq) -> np.ndarray:
        """The mobility force fu = N^T fq equivalent to a force fq in this mobilizer's
        q-space (nq values; Position stage): the same power, fq . qdot = fu . u."""
        fq = real_array(fq, "convertQForceToUForce: fq", "a vector of numbers").reshape(-1)
        nq = self.getNumQ(state)
        if fq.shape[0] != nq or not np.all(np.isfinite(fq)):
            raise InvalidArgumentError(
                f"convertQForceToUForce: body {self._index} has {nq} q's; fq must be {nq} "
                f"finite values, got {fq.tolist()}"
            )
        matter = self._matter
        full = np.zeros(matter.getQ(state).shape[0])
        full[self.getFirstQIndex(state) : self.getFirstQIndex(state) + nq] = fq
        s, n = self.getFirstUIndex(state), self.getNumU(state)
        return np.array(matter.multiplyByN(state, True, full)[s : s + n])

    # ------------------------------------------------------------------ tree
    def getLevelInMultibodyTree(self) -> int:
        """0 for Ground, 1 for a body on Ground, 2 for one on those, ..."""
        level, mobod = 0, self
        while not mobod.isGround():
            level += 1
            mobod = mobod.getParentMobilizedBody()
        return level

    def getBaseMobilizedBody(self):
        """The ancestor attached directly to Ground (this body if it is one; Ground for
        Ground)."""
        mobod = self
        while not mobod.isGround() and not mobod.getParentMobilizedBody().isGround():
            mobod = mobod.getParentMobilizedBody()
        return mobod

    def isInSubsystem(self) -> bool:
        return getattr(self, "_matter", None) is not None

    def isInSameSubsystem(self, mobod) -> bool:
        return self.isInSubsystem() and getattr(mobod, "_matter", None) is self._matter

    def isSameMobilizedBody(self, mobod) -> bool:
        return self.isInSameSubsystem(mobod) and mobod.getMobilizedBodyIndex() == self._index

    def updMatterSubsystem(self):
        return self._matter
