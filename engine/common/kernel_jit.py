"""``kernel_jit``: numba's ``njit`` for kernels that allocate nothing.

numba keeps every array it passes between compiled functions alive by reference counting:
each call increments and decrements the count of every array argument, each through a call
into numba's runtime. Arrays built from an ``ArrayTable`` have no count, so those calls do
nothing, yet a realization passing ~50 arrays down three levels spent a third of a 10-body
Velocity-to-Acceleration realization on them (1.0 of 2.7 us). ``kernel_jit`` compiles a
kernel with numba's runtime switched off (its private ``_nrt`` option): no reference
counting, and no array may be created (``np.empty`` and friends fail to compile, so a
kernel takes its scratch arrays from its caller). Functions it calls are compiled the same
way. Arrays it is given must be kept alive by the caller, which a Python caller always does.
"""

from __future__ import annotations

from numba import njit

kernel_jit = njit(cache=True, nogil=True, _nrt=False)
