"""Mobilizer kinematics kernels, one file per mobilizer type.

Every type's file defines numba-compiled functions with the same signatures
(all vectors in the inboard frame F, spatial vectors [angular, linear] of the
outboard frame origin Mo):

* ``x_fm(q, params, euler, R, p)``: R_FM and p_FM from the mobilizer's q slots.
* ``h_fm(q, params, euler, R, p, H)``: H (6 x nu): V_FM = H u.
* ``hdot_u(q, u, params, euler, R, p, out)``: out (6,) = (d/dt H) u, so that
  A_FM = H udot + hdot_u.
* ``n_matrix(q, params, euler, R, N)``: N (nq_slots x nu): qdot = N u.
* ``ninv_matrix(q, params, euler, R, NInv)``: NInv (nu x nq_slots): u = NInv qdot.
* ``ndot_matrix(q, qdot, params, euler, R, NDot)``: d/dt N.

and Python constants TYPE_ID, NAME, NQ_SLOTS, NU, USES_QUATERNION (True if the
rotation may be a quaternion) and DEFAULT_Q (default q slots). ``dispatch.py``
selects the type's function by TYPE_ID inside the O(n) kernels.
"""
