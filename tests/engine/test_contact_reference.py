"""Compliant contact against ../shared/reference/contact.json (Simbody 3.7): every static
sample of ``compliant_zoo`` (contacts' geometry, ContactForces, patch details, applied body
forces, PE at Acceleration and Position stage, dissipated power, udot)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from engine import (
    BrickHalfSpaceContact,
    CircularPointContact,
    Contact,
    EllipticalPointContact,
    Stage,
)
from tests.engine.close import assert_close
from tests.engine.contact_models import build_compliant, contact_model

TOL = 1e-9
ZOO = contact_model("compliant_zoo")


@functools.cache
def _zoo():
    return build_compliant(ZOO["model"])


def _realized(sample: dict, stage=Stage.Acceleration):
    cs = _zoo()
    state = cs.ref.new_state(sample["state"])
    cs.ref.system.realize(state, stage)
    return cs, state


SAMPLES = [(s["kind"], k) for k, s in enumerate(ZOO["samples"])]


@pytest.mark.parametrize("kind, k", SAMPLES, ids=[f"{kind}{k}" for kind, k in SAMPLES])
def test_compliant_zoo_sample(kind, k):
    sample = ZOO["samples"][k]
    out = sample["outputs"]
    cs, state = _realized(sample)
    system, tracker, ccs = cs.ref.system, cs.tracker, cs.ccs

    snapshot = tracker.getActiveContacts(state)
    assert snapshot.getNumContacts() == len(out["contacts"])
    assert ccs.getNumContactForces(state) == out["num_contact_forces"]
    for ref in out["contacts"]:
        cid = snapshot.getContactIdForSurfacePair(ref["surface1"], ref["surface2"])
        assert cid is not None, f"no contact between surfaces {ref['surface1'], ref['surface2']}"
        contact = snapshot.getContactById(cid)
        assert (contact.getSurface1(), contact.getSurface2()) == (ref["surface1"], ref["surface2"])
        assert Contact.nameOfCondition(contact.getCondition()) == ref["condition"]
        what = f"{kind} {ref['type']} {ref['surface1']}-{ref['surface2']}"
        _check_geometry(contact, ref, what)
        force = ccs.getContactForceById(state, cid)
        assert force.isValid() and force.getContactId() == cid
        f = ref["force"]
        assert_close(force.getContactPoint(), f["contact_point_G"], what + " C", TOL)
        assert_close(force.getForceOnSurface2(), f["force_on_surface2_G"], what, TOL, reshape=True)
        assert_close(force.getPotentialEnergy(), f["potential_energy"], what + " PE", TOL)
        assert_close(force.getPowerDissipation(), f["power_dissipation"], what + " power", TOL)
        patch = ccs.calcContactPatchDetailsById(state, cid)
        assert patch.isValid() == ref["patch_valid"]
        assert patch.getNumDetails() == len(ref["details"])
        for j, d in enumerate(ref["details"]):
            detail = patch.getContactDetail(j)
            w = f"{what} detail {j}"
            assert_close(detail.getContactPoint(), d["contact_point_G"], w, TOL)
            assert_close(detail.getContactNormal(), d["normal_G"], w, TOL)
            assert_close(detail.getSlipVelocity(), d["slip_velocity_G"], w, TOL)
            assert_close(detail.getForceOnSurface2(), d["force_on_surface2_G"], w, TOL)
            assert_close(detail.getDeformation(), d["deformation"], w, TOL)
            assert_close(detail.getDeformationRate(), d["deformation_rate"], w, TOL)
            assert_close(detail.getPotentialEnergy(), d["potential_energy"], w, TOL)
            assert_close(detail.getPowerLoss(), d["power_loss"], w, TOL)
            assert np.isnan(detail.getPatchArea()) and np.isnan(detail.getPeakPressure())

    assert_close(ccs.calcPotentialEnergy(state), out["contact_potential_energy"], "contact PE", TOL)
    assert_close(ccs.getDissipatedPower(state), out["contact_dissipated_power"], "power", TOL)
    assert_close(system.calcPotentialEnergy(state), out["potential_energy"], "PE", TOL)
    assert_close(system.calcKineticEnergy(state), out["kinetic_energy"], "KE", TOL)
    assert_close(
        system.getRigidBodyForces(state),
        out["applied_body_forces_G"],
        "body forces",
        TOL,
        reshape=True,
    )
    assert_close(state.getZDot(), out["zdot"], "zdot", TOL)
    assert_close(state.getUDot(), out["udot"], "udot", TOL)

    _, position_state = _realized(sample, Stage.Position)
    assert position_state.getSystemStage() == Stage.Position
    assert_close(
        system.calcPotentialEnergy(position_state),
        out["potential_energy_position_stage"],
        "PE at Position stage",
        TOL,
    )


def _check_geometry(contact, ref: dict, what: str) -> None:
    if ref["type"] == "CircularPointContact":
        c = CircularPointContact.getAs(contact)
        assert c.getRadius1() == ref["radius1"]  # inf for the half space
        assert_close(c.getRadius2(), ref["radius2"], what, TOL)
        assert_close(c.getEffectiveRadius(), ref["effective_radius"], what, TOL)
        assert_close(c.getDepth(), ref["depth"], what + " depth", TOL)
        assert_close(c.getOriginInGround(), ref["origin_G"], what + " origin", TOL)
        assert_close(c.getNormalInGround(), ref["normal_G"], what + " normal", TOL)
        # Simbody's accessors: origin and normal in S1
        X_GS1 = c.getSurface1TransformInGround()
        assert_close(X_GS1 * c.getOrigin(), ref["origin_G"], what + " origin in S1", TOL)
        assert_close(X_GS1.R() * c.getNormal(), ref["normal_G"], what + " normal in S1", TOL)
        X_S1S2 = c.getTransform()
        X_GS2 = c.getSurface2TransformInGround()
        assert_close((X_GS1 * X_S1S2).toMat44(), X_GS2.toMat44(), what + " X_S1S2", TOL)
    elif ref["type"] == "EllipticalPointContact":
        c = EllipticalPointContact.getAs(contact)
        assert_close(c.getDepth(), ref["depth"], what + " depth", TOL)
        assert_close(c.getCurvatures(), ref["curvatures_max_min"], what + " curvatures", TOL)
        assert_close(c.getOriginInGround(), ref["origin_G"], what + " origin", TOL)
        assert_close(c.getNormalInGround(), ref["normal_G"], what + " normal", TOL)
        frame = c.getContactFrameInGround()
        R_ref = np.asarray(ref["contact_frame_G"]["R"]).reshape(3, 3)
        R = frame.R().asMat33()
        assert_close(R[:, 2], R_ref[:, 2], what + " frame z", TOL)
        # the direction of maximum curvature is an axis: its sign is arbitrary
        assert_close(abs(R[:, 0] @ R_ref[:, 0]), 1.0, what + " frame x", TOL)
        assert_close(frame.p(), ref["contact_frame_G"]["p"], what + " frame origin", TOL)
    else:
        assert ref["type"] == "BrickHalfSpaceContact"
        c = BrickHalfSpaceContact.getAs(contact)
        assert c.getLowestVertex() == ref["lowest_vertex"]
        assert_close(c.getDepth(), ref["depth"], what + " depth", TOL)
        assert_close(c.getNormalInGround(), ref["normal_G"], what + " normal", TOL)
