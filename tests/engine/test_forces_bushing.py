"""Force.LinearBushing's accessors on the force_zoo element of forces.json: frames compose,
its qdot is the time derivative of its q, and the forces on the two bodies balance."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Stage
from tests.engine.reference_data import load_reference, model_by_name, reference_available
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("forces"), reason="shared/reference/forces.json not present"
)


@pytest.fixture
def bushing_state():
    case = model_by_name(load_reference("forces"), "force_zoo")
    ref = build(case["model"])
    state = ref.new_state(case["samples"][1]["state"])
    ref.system.realize(state, Stage.Velocity)
    return ref.system, ref.matter, ref.elements[12], state


def test_frames_compose(bushing_state):
    system, matter, bushing, s = bushing_state
    X_GF, X_GM, X_FM = bushing.getX_GF(s), bushing.getX_GM(s), bushing.getX_FM(s)
    X = X_GF * X_FM
    np.testing.assert_allclose(X.R().asMat33(), X_GM.R().asMat33(), atol=1e-14)
    np.testing.assert_allclose(X.p(), X_GM.p(), atol=1e-14)
    q = bushing.getQ(s)
    np.testing.assert_allclose(q[3:6], X_FM.p(), atol=1e-15)
    body1 = bushing.getBody1()
    np.testing.assert_allclose(
        X_GF.p(), body1.findStationLocationInGround(s, bushing.getFrameOnBody1(s).p())
    )


def test_qdot_is_the_time_derivative_of_q(bushing_state):
    system, matter, bushing, s = bushing_state
    qdot = bushing.getQDot(s)
    q0 = s.getQ().copy()
    dq = matter.multiplyByN(s, False, s.getU())  # system qdot
    h = 1e-6
    qs = []
    for sign in (1.0, -1.0):
        s.setQ(q0 + sign * h * dq)
        system.realize(s, Stage.Position)
        qs.append(bushing.getQ(s))
    np.testing.assert_allclose((qs[0] - qs[1]) / (2 * h), qdot, rtol=1e-7, atol=1e-8)


def test_forces_balance_and_match_the_generalized_forces(bushing_state):
    system, matter, bushing, s = bushing_state
    F_GM, F_GF = bushing.getF_GM(s), bushing.getF_GF(s)
    p_GM, p_GF = bushing.getX_GM(s).p(), bushing.getX_GF(s).p()
    np.testing.assert_allclose(F_GM[1] + F_GF[1], 0.0, atol=1e-13)
    # Total moment about the Ground origin vanishes.
    moment = F_GM[0] + np.cross(p_GM, F_GM[1]) + F_GF[0] + np.cross(p_GF, F_GF[1])
    np.testing.assert_allclose(moment, 0.0, atol=1e-12)
    f = bushing.getF(s)
    np.testing.assert_allclose(
        f, -(bushing.getStiffness(s) * bushing.getQ(s) + bushing.getDamping(s) * bushing.getQDot(s))
    )
    # Power on body 2 relative to body 1 is f . qdot.
    V_FM = bushing.getV_FM(s)
    R_GF = bushing.getX_GF(s).R().asMat33()
    power = F_GM[0] @ (R_GF @ V_FM[0]) + F_GM[1] @ (R_GF @ V_FM[1])
    assert power == pytest.approx(float(f @ bushing.getQDot(s)), rel=1e-12)
    assert bushing.getPowerDissipation(s) == pytest.approx(
        float(bushing.getDamping(s) @ bushing.getQDot(s) ** 2), rel=1e-14
    )
    assert bushing.getPotentialEnergy(s) == pytest.approx(
        float(bushing.getStiffness(s) @ bushing.getQ(s) ** 2) / 2, rel=1e-14
    )
