"""Python fallback for Custom mobilizers in SimbodyMatterSubsystem (a mixin class).

The compiled kernels handle every built-in mobilizer type. For a Custom body (TYPE_ID
``mobilizers.custom.TYPE_ID``) the matter subsystem calls the user's Python implementation:

* before the Position kernel: X_FM and the columns of H_FM (in F) into the position cache,
  which the kernel then uses as data instead of computing them (a reversed Custom body's
  implementation gives X_MF and H_MF, turned here into X_FM = ~X_MF and H_FM);
* after the Velocity kernel: the body's qdot = N u, and its (d/dt H) u term added into the
  body's local Coriolis acceleration and, shifted outward, into the total Coriolis acceleration
  of the body and its descendants (the kernel left both without it);
* after the N-operator kernel: the body's blocks of N, NInv, NDot products.

Only models with Custom bodies take these paths; the list of Custom bodies is recomputed only
when the topology changes.
"""

from __future__ import annotations

import numpy as np

from engine.common.state import State
from engine.multibody.mobilizers import custom as _custom

_N_METHOD = {0: "multiplyByN", 1: "multiplyByNInv", 2: "multiplyByNDot"}


class MatterCustomSupportMixin:
    """Calls into Custom mobilizer implementations around the compiled kernels."""

    def _custom_bodies(self) -> list:
        """[(body index, MobilizedBody.Custom)] of the current topology (cached)."""
        topo = self._topology
        if getattr(self, "_custom_topology", None) is not topo:
            if topo is not None and topo.nb == len(self._mobods):
                # (a Custom body's type id, reversed or not, is the Custom type's)
                found = np.flatnonzero(np.asarray(topo.mtype)[1:] == _custom.TYPE_ID) + 1
                self._custom_list = [(b, self._mobods[b]) for b in found.tolist()]
            else:
                self._custom_list = [
                    (b, m)
                    for b, m in enumerate(self._mobods)
                    if b > 0 and m._module.TYPE_ID == _custom.TYPE_ID
                ]
            self._custom_topology = topo
        return self._custom_list

    def _custom_position(self, state: State, pc) -> None:
        """X_FM and H_FM of the Custom bodies into the position cache (before the kernel)."""
        from engine.multibody.custom_mobilized_body import as_spatial

        q_all = self.getQ(state)
        topo = self._topology
        for b, mobod in self._custom_bodies():
            impl = mobod._impl
            s, nq, nu = int(topo.qs[b]), self._num_q_in_use(state, b), int(topo.nus[b])
            X = impl.calcMobilizerTransformFromQ(state, np.array(q_all[s : s + nq]))
            R = np.asarray(X.R().asMat33(), dtype=np.float64)
            p = np.asarray(X.p(), dtype=np.float64)
            if not (np.all(np.isfinite(R)) and np.all(np.isfinite(p))):
                raise ValueError(
                    f"Custom body {b}: calcMobilizerTransformFromQ gave non-finite X_FM"
                )
            if mobod._reversed:  # the implementation gave X_MF: X_FM = ~X_MF
                R = R.T.copy()
                p = -(R @ p)
            pc.R_FM[b] = R
            pc.p_FM[b] = p
            H = pc.H_FM[b]
            H[:, :] = 0.0
            for k in range(nu):
                e = np.zeros(nu)
                e[k] = 1.0
                H[:, k] = as_spatial(impl.multiplyByHMatrix(state, e), "multiplyByHMatrix")
            if mobod._reversed:  # H_MF (in M) to H_FM: w = -R_FM w_MF, v = -p_FM x w - R_FM v_MF
                Hw = -(R @ H[0:3, :nu])
                Hv = -np.cross(p, Hw.T).T - R @ H[3:6, :nu]
                H[0:3, :nu] = Hw
                H[3:6, :nu] = Hv

    def _custom_velocity(self, state: State, pc, vc) -> None:
        """qdot and the (d/dt H) u acceleration terms of the Custom bodies (after the kernel)."""
        from engine.multibody.custom_mobilized_body import as_spatial

        customs = self._custom_bodies()
        topo = self._topology
        sx = self.getMySubsystemIndex()
        qdot = state.updQDot(sx)
        u_all = self.getU(state)
        for b, mobod in customs:
            s, nq = int(topo.qs[b]), self._num_q_in_use(state, b)
            us, nu = int(topo.us[b]), int(topo.nus[b])
            qdot[s : s + int(topo.nqs[b])] = 0.0  # (an unused slot in Euler-angle mode)
            qdot[s : s + nq] = self._custom_block(
                mobod, state, "multiplyByN", False, u_all[us : us + nu], nq
            )
        nb = topo.nb
        delta = np.zeros((nb, 6))
        for b, mobod in customs:
            us, nu = int(topo.us[b]), int(topo.nus[b])
            u_b = np.array(u_all[us : us + nu])
            hd = as_spatial(mobod._impl.multiplyByHDotMatrix(state, u_b), "multiplyByHDotMatrix")
            if mobod._reversed:
                hd = self._reversed_hdot_u(pc, b, u_b, hd)
            hdw = pc.R_GF[b] @ hd[0:3]
            hdv = pc.R_GF[b] @ hd[3:6]
            delta[b, 0:3] = hdw
            delta[b, 3:6] = hdv + np.cross(hdw, pc.p_MB_G[b])
        vc.coriolis += delta
        total = np.zeros((nb, 6))
        parent = topo.parent
        first = min(b for b, _ in customs)
        for c in range(first, nb):
            P = parent[c]
            w = total[P, 0:3]
            total[c, 0:3] = w + delta[c, 0:3]
            total[c, 3:6] = total[P, 3:6] + np.cross(w, pc.p_GB[c] - pc.p_GB[P]) + delta[c, 3:6]
        vc.total_coriolis += total

    @staticmethod
    def _reversed_hdot_u(pc, b: int, u: np.ndarray, hd_MF: np.ndarray) -> np.ndarray:
        """HDot_FM u of a reversed Custom body from the implementation's hd = HDot_MF u (in M),
        as Simbody's calcReverseMobilizerHDot_FM: with (w, v) = V_FM = H_FM u, R = R_FM and
        p = p_FM, a_w = -R hd_w and a_v = w x v - R hd_v - p x a_w - (v x w - w x (p x w))."""
        R, p = pc.R_FM[b], pc.p_FM[b]
        V = pc.H_FM[b][:, : u.shape[0]] @ u
        w, v = V[0:3], V[3:6]
        a_w = -(R @ hd_MF[0:3])  # (w x w = 0)
        a_v = np.cross(w, v) - R @ hd_MF[3:6] - np.cross(p, a_w)
        a_v -= np.cross(v, w) - np.cross(w, np.cross(p, w))
        return np.concatenate([a_w, a_v])

    @staticmethod
    def _custom_block(mobod, state: State, method: str, on_right: bool, x, n_out: int):
        out = getattr(mobod._impl, method)(state, on_right, np.array(x, dtype=np.float64))
        out = np.asarray(out, dtype=np.float64).reshape(-1)
        if out.shape != (n_out,) or not np.all(np.isfinite(out)):
            raise ValueError(
                f"Custom body {mobod.getMobilizedBodyIndex()}: {method} must return "
                f"{n_out} finite values, got {out}"
            )
        return out

    def _custom_n(self, state: State, op: int, transpose: bool, x, out) -> None:
        """The Custom bodies' blocks of N/NInv/NDot (op 0/1/2) times x (after the kernel)."""
        topo = self._topology
        method = _N_METHOD[op]
        rows_are_q = (op != 1) != transpose
        for b, mobod in self._custom_bodies():
            s, nq = int(topo.qs[b]), self._num_q_in_use(state, b)
            us, nu = int(topo.us[b]), int(topo.nus[b])
            if rows_are_q:
                out[s : s + int(topo.nqs[b])] = 0.0
                out[s : s + nq] = self._custom_block(
                    mobod, state, method, transpose, x[us : us + nu], nq
                )
            else:
                out[us : us + nu] = self._custom_block(
                    mobod, state, method, transpose, x[s : s + nq], nu
                )
