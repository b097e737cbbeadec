"""Model-stage operators of SimbodyMatterSubsystem: Euler-angle / quaternion conversion and
quaternion normalization (a mixin class; see docs/conventions.md §4).

Quaternion-capable mobilizers (Ball, Free, Ellipsoid, LineOrientation, FreeLine) always own 4
rotational q slots. In quaternion mode they hold ``[w, x, y, z]``; in Euler-angle mode the first
3 hold body-fixed x-y-z angles of R_FM. Free and FreeLine keep their translation p_FM (in F, m)
in the 3 slots after the rotation (slots 4..6 in quaternion mode, 3..5 in Euler mode).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError, StageTooLowError
from engine.common.stage import Stage
from engine.common.state import State
from engine.math.quaternion import Quaternion
from engine.math.rotation import Rotation

# Types whose 3 translation slots follow the rotation.
_TRANSLATING = ("Free", "FreeLine")
# Types whose unused 4th slot is not zeroed by convertToEulerAngles. Simbody 3.7 copies the
# input q that FOLLOWS the 4 rotational slots into it (recorded in euler_vs_quaternion.json:
# the next body's first q; 0 here if there is none).
_COPIES_NEXT_Q = ("LineOrientation",)


def custom_default_in_euler_mode(q: np.ndarray) -> np.ndarray:
    """A quaternion Custom mobilizer's q slots in Euler-angle mode from its quaternion-mode
    q: the x-y-z angles of the quaternion, then the q that followed it, then an unused 0."""
    out = np.zeros_like(q)
    R = Rotation(Quaternion(q[0:4] / np.linalg.norm(q[0:4])))
    out[0:3] = R.convertRotationToBodyFixedXYZ()
    out[3 : q.shape[0] - 1] = q[4:]
    return out


class MatterModelStageMixin:
    """convertToEulerAngles, convertToQuaternions, normalizeQuaternions."""

    def _converted_copy(self, inputState: State, use_euler: bool) -> tuple[State, np.ndarray]:
        """A copy of the State switched to the given mode and re-realized to Model stage (every
        u back to its default, 0), with the input's time; also the input's q."""
        self._require(inputState, Stage.Model, "convertToEulerAngles/convertToQuaternions")
        q_in = np.array(self.getQ(inputState), dtype=np.float64)
        out = inputState.copy()
        self.setUseEulerAngles(out, use_euler)
        self.getSystem().realizeModel(out)
        out.setTime(inputState.getTime())
        return out, q_in

    def convertToEulerAngles(self, inputState: State) -> State:
        """A copy of ``inputState`` describing the same configuration with x-y-z Euler angles
        instead of quaternions (realized to Model stage; u reset to 0 as Simbody 3.7 does)."""
        if self.getUseEulerAngles(inputState):
            return inputState.copy()
        out, q_in = self._converted_copy(inputState, True)
        topo = self._topo()
        q = self.updQ(out)
        for b, mobod in enumerate(self._mobods[1:], start=1):
            s, n = int(topo.qs[b]), int(topo.nqs[b])
            if not topo.uses_quaternion[b]:
                q[s : s + n] = q_in[s : s + n]
                continue
            quat = q_in[s : s + 4]
            norm = float(np.linalg.norm(quat))
            if norm == 0.0:
                raise InvalidArgumentError(
                    f"convertToEulerAngles: body {b} ({mobod.getMobilizerTypeName()}) has an "
                    "all-zero quaternion, which is no rotation"
                )
            R = Rotation(Quaternion(quat / norm))
            q[s : s + 3] = R.convertRotationToBodyFixedXYZ()
            name = mobod.getMobilizerTypeName()
            if name == "Custom":  # the q after the quaternion move up one slot
                q[s + 3 : s + n - 1] = q_in[s + 4 : s + n]
                q[s + n - 1] = 0.0
            elif name in _TRANSLATING:
                q[s + 3 : s + 6] = q_in[s + 4 : s + 7]
                q[s + 6] = 0.0
            elif name in _COPIES_NEXT_Q and s + 4 < q_in.shape[0]:
                q[s + 3] = q_in[s + 4]
            else:
                q[s + 3] = 0.0
        return out

    def convertToQuaternions(self, inputState: State) -> State:
        """A copy of ``inputState`` describing the same configuration with quaternions (w >= 0)
        instead of Euler angles (realized to Model stage; u reset to 0 as Simbody 3.7 does)."""
        if not self.getUseEulerAngles(inputState):
            return inputState.copy()
        out, q_in = self._converted_copy(inputState, False)
        topo = self._topo()
        q = self.updQ(out)
        for b, mobod in enumerate(self._mobods[1:], start=1):
            s, n = int(topo.qs[b]), int(topo.nqs[b])
            if not topo.uses_quaternion[b]:
                q[s : s + n] = q_in[s : s + n]
                continue
            R = Rotation().setRotationToBodyFixedXYZ(q_in[s : s + 3])
            q[s : s + 4] = np.asarray(R.convertRotationToQuaternion(), dtype=np.float64)
            if mobod.getMobilizerTypeName() == "Custom":
                q[s + 4 : s + n] = q_in[s + 3 : s + n - 1]
            elif mobod.getMobilizerTypeName() in _TRANSLATING:
                q[s + 4 : s + 7] = q_in[s + 3 : s + 6]
        return out

    def normalizeQuaternions(self, state: State) -> None:
        """Divide each quaternion in use by its norm (needs Time stage). Like Simbody, which
        takes q for writing first, the State is left at Time stage even when there is nothing
        to normalize (Euler-angle mode, or no quaternions in use)."""
        current = state.getSystemStage()
        if current < Stage.Time:
            raise StageTooLowError(
                f"normalizeQuaternions needs the State realized to Time stage, but it is only at "
                f"{current.getName()}; call system.realize(state, Stage.Time) first",
                needed=Stage.Time,
                current=current,
            )
        if self.getUseEulerAngles(state):
            self.updQ(state)  # q taken for writing: the State backs up to Time stage
            return
        topo = self._topo()
        q = np.array(self.getQ(state), dtype=np.float64)
        for b in topo.quaternion_pool_order:
            s = int(topo.qs[b])
            norm = float(np.linalg.norm(q[s : s + 4]))
            if norm == 0.0:
                raise InvalidArgumentError(
                    f"normalizeQuaternions: body {b} has an all-zero quaternion, which cannot be "
                    "normalized"
                )
            q[s : s + 4] /= norm
        self.updQ(state)[:] = q
