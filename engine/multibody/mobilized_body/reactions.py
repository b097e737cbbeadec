"""MobilizedBody accessors for the mobilizer's frames, hinge matrix columns, spatial
inertia in Ground and the mobilizer reaction forces (a mixin of MobilizedBody).

Frames as Simbody: G = Ground, P = parent body, F = the mobilizer's frame on P, M = its
frame on this body B. Spatial vectors are [angular, linear] (2, 3) arrays in G; a spatial
force is [moment about the named point, force] in N m and N.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, UnsupportedOperationError
from engine.common.index_arg import index_value
from engine.math.spatial_inertia import SpatialInertia
from engine.math.transform import Transform

if TYPE_CHECKING:
    from engine.common.state import State


def _shift_force(F: np.ndarray, r_from_to: np.ndarray) -> np.ndarray:
    """The spatial force F = [m_A, f] moved from point A to point C, r_from_to = p_C - p_A:
    m_C = m_A + (p_A - p_C) x f."""
    out = F.copy()
    out[0] = F[0] - np.cross(r_from_to, F[1])
    return out


class MobilizedBodyReactionsMixin:
    """getInboardFrame/getOutboardFrame, getHCol, getBodySpatialInertiaInGround and the
    findMobilizerReaction... family of Simbody's MobilizedBody."""

    # ---------------------------------------------------------------- frames
    def getInboardFrame(self, state: State) -> Transform:
        """X_PF in this State. As in Simbody 3.7 the mobilizer frames are not State variables:
        this is the default frame (setDefaultInboardFrame), realized at Topology stage."""
        self._matter._topo(state)
        return self.getDefaultInboardFrame()

    def getOutboardFrame(self, state: State) -> Transform:
        """X_BM in this State: the default frame (setDefaultOutboardFrame), as in Simbody."""
        self._matter._topo(state)
        return self.getDefaultOutboardFrame()

    def setInboardFrame(self, state: State, X_PF) -> None:
        """Simbody declares this but does not implement it (its MobilizedBody asserts "not
        implemented yet"): refused, with the State left alone."""
        raise UnsupportedOperationError(
            "MobilizedBody.setInboardFrame(state, X_PF): Simbody 3.7 does not implement "
            "per-State mobilizer frames; use setDefaultInboardFrame(X_PF) and realizeTopology"
        )

    def setOutboardFrame(self, state: State, X_BM) -> None:
        """Simbody declares this but does not implement it: refused, the State left alone."""
        raise UnsupportedOperationError(
            "MobilizedBody.setOutboardFrame(state, X_BM): Simbody 3.7 does not implement "
            "per-State mobilizer frames; use setDefaultOutboardFrame(X_BM) and realizeTopology"
        )

    def _frame_origins_in_ground(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """(p_GFo, p_GMo): the origins of F and M in Ground (Position stage)."""
        X_GP = self.getParentMobilizedBody().getBodyTransform(state)
        X_GB = self.getBodyTransform(state)
        p_GF = X_GP.p() + X_GP.R().asMat33() @ self.getDefaultInboardFrame().p()
        p_GM = X_GB.p() + X_GB.R().asMat33() @ self.getDefaultOutboardFrame().p()
        return p_GF, p_GM

    # ---------------------------------------------------------------- hinge
    def _mobility_index(self, state: State, which, what: str, name: str) -> int:
        """``which`` as one of this mobilizer's mobility indices (0..nu-1);
        IndexOutOfRangeError naming ``what`` and its argument ``name`` otherwise."""
        nu = self.getNumU(state)
        which = index_value(which, f"{what}: {name}")
        if not 0 <= which < nu:
            raise IndexOutOfRangeError(
                f"{what}: body {self.getMobilizedBodyIndex()} has {nu} mobilities, "
                f"not a mobility {which}"
            )
        return which

    def getHCol(self, state: State, which: int) -> np.ndarray:
        """Column ``which`` of the mobilizer's hinge matrix in Ground, H_PB_G: the spatial
        velocity [w, v_Bo] of B relative to P, in G, per unit of this mobilizer's u_which
        (Position stage, or position kinematics realized)."""
        which = self._mobility_index(state, which, "getHCol", "which")
        matter = self._matter
        J = matter.calcSystemJacobianAsSpatialVecs(state)
        return J[self.getMobilizedBodyIndex(), :, :, self.getFirstUIndex(state) + which].copy()

    def getH_FMCol(self, state: State, which: int) -> np.ndarray:
        """Column ``which`` of the mobilizer-local hinge matrix H_FM: the cross-mobilizer
        spatial velocity V_FM = [w_FM, v_FM] of Mo in F, expressed in F, per unit of this
        mobilizer's u_which, shape (2, 3) (Position stage)."""
        which = self._mobility_index(state, which, "getH_FMCol", "the mobility index")
        pc = self._matter._position_cache(state)
        return np.array(pc.H_FM[self._index][:, which], dtype=np.float64).reshape(2, 3)

    # --------------------------------------------------------------- inertia
    def getBodySpatialInertiaInGround(self, state: State) -> SpatialInertia:
        """This body's spatial inertia about its origin Bo, expressed in Ground (Position
        stage): mass, the mass centre from Bo in G and the unit inertia about Bo in G."""
        R_GB = self.getBodyTransform(state).R().asMat33()
        mp = self.getBodyMassProperties(state)
        m = float(mp.getMass())
        p_G = R_GB @ np.asarray(mp.getMassCenter(), dtype=np.float64)
        I_B = np.asarray(mp.getInertia().toMat33(), dtype=np.float64)
        G_G = R_GB @ (I_B / m) @ R_GB.T if m > 0 else np.zeros((3, 3))
        return SpatialInertia._make(m, p_G, G_G)

    # ------------------------------------------------------------ reactions
    def findMobilizerReactionOnBodyAtMInGround(self, state: State) -> np.ndarray:
        """The spatial reaction the mobilizer applies to this body B at Mo, in G
        (Acceleration stage), as ``calcMobilizerReactionForces``."""
        b = self.getMobilizedBodyIndex()
        return self._matter.calcMobilizerReactionForces(state)[b].copy()

    def findMobilizerReactionOnBodyAtOriginInGround(self, state: State) -> np.ndarray:
        """The mobilizer's reaction on B moved to the body origin Bo, in G."""
        F_M = self.findMobilizerReactionOnBodyAtMInGround(state)
        _, p_GM = self._frame_origins_in_ground(state)
        return _shift_force(F_M, self.getBodyTransform(state).p() - p_GM)

    def findMobilizerReactionOnParentAtFInGround(self, state: State) -> np.ndarray:
        """The reaction on the parent P at Fo, in G: the opposite of the reaction on B,
        moved from Mo to Fo."""
        F_M = self.findMobilizerReactionOnBodyAtMInGround(state)
        p_GF, p_GM = self._frame_origins_in_ground(state)
        return -_shift_force(F_M, p_GF - p_GM)

    def findMobilizerReactionOnParentAtOriginInGround(self, state: State) -> np.ndarray:
        """The reaction on the parent P moved to the parent's origin Po, in G."""
        F_M = self.findMobilizerReactionOnBodyAtMInGround(state)
        _, p_GM = self._frame_origins_in_ground(state)
        p_GP = self.getParentMobilizedBody().getBodyTransform(state).p()
        return -_shift_force(F_M, p_GP - p_GM)
