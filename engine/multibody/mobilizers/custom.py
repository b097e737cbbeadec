"""Custom mobilizer: kinematics written by the user in Python (MobilizedBody.Custom).

A Custom body cannot run inside the numba kernels. It has its own TYPE_ID, which the compiled
O(n) algorithms recognise: the Position kernel does not compute X_FM and H_FM for it but uses
the values the matter subsystem wrote into the cache beforehand from the user's
``calcMobilizerTransformFromQ`` and ``multiplyByHMatrix``; the matter subsystem also fills in
the Custom bodies' blocks of qdot = N u, of the N operators and of the velocity-dependent
acceleration term (d/dt H) u after the kernels have run (``matter/custom_support.py``). Models
without Custom bodies never take that path.

``CustomMobilizerType`` stands in for a mobilizer module (TYPE_ID, NAME, NQ_SLOTS, NU,
USES_QUATERNION, DEFAULT_Q) for one Custom body, since each Custom body has its own sizes (and
uses a quaternion if its Implementation has nAngles = 4).
"""

from __future__ import annotations

import numpy as np

TYPE_ID = 18
NAME = "Custom"


class CustomMobilizerType:
    """The per-body 'mobilizer module' of a Custom body (sizes from its Implementation)."""

    TYPE_ID = TYPE_ID
    NAME = NAME
    USES_QUATERNION = False

    def __init__(self, implementation) -> None:
        self.implementation = implementation
        self.NQ_SLOTS = int(implementation.getNumQ())
        self.NU = int(implementation.getNumU())
        self.USES_QUATERNION = int(implementation.getNumAngles()) == 4
        default = np.asarray(implementation.getDefaultQ(), dtype=np.float64).reshape(-1)
        if default.shape != (self.NQ_SLOTS,) or not np.all(np.isfinite(default)):
            raise ValueError(
                f"Custom mobilizer: getDefaultQ must return {self.NQ_SLOTS} finite values, "
                f"got {default.tolist()}"
            )
        if self.USES_QUATERNION and not np.linalg.norm(default[0:4]) > 0:
            raise ValueError("Custom mobilizer: the default quaternion (q[0:4]) is all zero")
        self.DEFAULT_Q = default
        self.__doc__ = f"Custom mobilizer with nq={self.NQ_SLOTS}, nu={self.NU}"
