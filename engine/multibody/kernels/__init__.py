"""O(n) numba kernels over flat per-body arrays (kinematics, inertias, dynamics).

Spatial vectors are length-6 rows [angular, linear] about each body origin Bo,
expressed in Ground. ``H_G[b]`` (6 x 6, first nu columns used) maps body b's u
to its velocity relative to its parent: V_GB = Phi^T V_GP + H_G u.
"""
