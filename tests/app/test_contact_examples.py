"""Contact documents built into the engine, and the contact examples' physics: balls stay on
the floor and bounce by their dissipation, a sliding ball ends rolling at 5/7 of its speed,
Newton's cradle passes the swing on, the ragdoll lands and lies on the floor."""

from __future__ import annotations

import numpy as np
import pytest

from app.document import GROUND, build, model_io
from app.document.examples import example_path
from app.headless import simulate_to


def built_example(key: str):
    return build(model_io.load(example_path(key)))


def test_builder_puts_each_surface_on_its_body_with_its_shape_and_material():
    built = built_example("bouncing_balls")
    doc = model_io.load(example_path("bouncing_balls"))
    tracker = built.contact_tracker
    assert tracker is not None and built.contact_forces is not None
    assert tracker.getNumSurfaces() == 4
    expected = [(GROUND, "HalfSpace")] + [(b.name, "Sphere") for b in doc.bodies]
    got = []
    for name, ordinal in built.contact_surfaces:
        body = built.mobilized_bodies[name].getBody()
        surface = body.getContactSurface(ordinal)
        got.append((name, surface.getShape().getTypeName()))
        spec = doc.data.contact_surfaces_of(name)[ordinal]
        assert surface.getMaterial().getDissipation() == spec.material.dissipation
        if spec.shape == "sphere":
            assert surface.getShape().getRadius() == spec.params["radius"]
    assert got == expected
    # the ball's contact sphere is drawn (a decoration on its body); Ground's plane is not
    # (the floor is)
    ball = built.mobilized_bodies[doc.bodies[0].name].getBody()
    assert ball.getNumDecorations() == 1
    assert built.mobilized_bodies[GROUND].getBody().getNumDecorations() == 0


def test_cliques_and_settings_reach_the_engine():
    built = built_example("ragdoll")
    surfaces = [
        built.mobilized_bodies[n].getBody().getContactSurface(k)
        for n, k in built.contact_surfaces
        if n != GROUND
    ]
    cliques = {tuple(s.getCliques()) for s in surfaces}
    assert len(cliques) == 1 and len(next(iter(cliques))) == 1  # one shared clique
    plane = built.mobilized_bodies[GROUND].getBody().getContactSurface(0)
    assert plane.getCliques() == () or list(plane.getCliques()) == []
    doc = model_io.load(example_path("bouncing_balls"))
    doc.set_contact_settings(transition_velocity=0.003, track_dissipated_energy=True)
    compliant = build(doc).contact_forces
    assert compliant.getTransitionVelocity() == 0.003
    assert compliant.getTrackDissipatedEnergy() is True


def names(built) -> list[str]:
    return [b.name for b in built.data.bodies]


def ball_heights(built, state) -> np.ndarray:
    return np.array(
        [built.mobilized_bodies[n].getBodyOriginLocation(state)[1] for n in names(built)]
    )


def test_bouncing_balls_stay_above_the_floor_and_bounce_by_their_dissipation():
    built = built_example("bouncing_balls")
    radius = 0.1
    heights = []
    simulate_to(
        built,
        1.2,
        1e-4,
        None,
        on_sample=lambda s: heights.append(ball_heights(built, s)),
        times=list(np.arange(0.01, 1.2001, 0.01)),
    )
    heights = np.array(heights)
    # never through the floor: at most the elastic Hertz indentation of a 1 kg ball hitting
    # at 4.4 m/s, (5 m v^2 / (16 E sqrt(R)))^(2/5) = 7.8 mm (E = 1e7 Pa)
    assert heights.min() > radius - 0.0078
    # impact at about t = 0.45 s; the rebound peaks are ordered by dissipation
    after = heights[60:]
    peaks = after.max(axis=0)
    assert peaks[0] > peaks[1] > peaks[2]
    assert peaks[0] > radius + 0.6  # nearly elastic: back up most of the metre
    assert peaks[2] < radius + 0.25


def test_sliding_ball_ends_rolling_at_five_sevenths_of_its_speed():
    from app.document.contact_examples import ROLLING_V0

    built = built_example("sliding_to_rolling")
    state = simulate_to(built, 1.0, 1e-4, None)
    ball = built.mobilized_bodies["ball"]
    u = ball.getU(state)
    vx, wz = u[3], u[2]
    assert vx == pytest.approx(5.0 / 7.0 * ROLLING_V0, rel=0.02)
    assert wz == pytest.approx(-vx / 0.1, rel=0.02)  # rolling: no slip


def test_newtons_cradle_passes_the_swing_to_the_last_ball():
    built = built_example("newtons_cradle")
    state = simulate_to(built, 0.75, 1e-5, None)
    q = {n: built.mobilized_bodies[n].getQ(state)[0] for n in names(built)}
    assert q["ball5"] > 0.4  # swung out, nearly as far as ball 1 was pulled (0.55 rad)
    assert abs(q["ball1"]) < 0.06  # stopped at the row
    assert all(abs(q[f"ball{k}"]) < 0.1 for k in (2, 3, 4))


def lowest_point(built, state) -> float:
    """The lowest height of every body's contact surfaces (spheres, ellipsoids, bricks)."""
    from app.document.builder import transform

    low = np.inf
    for b in built.data.bodies:
        mobod = built.mobilized_bodies[b.name]
        X_GB = mobod.getBodyTransform(state)  # noqa: N806
        for c in b.contact_surfaces:
            X_GS = X_GB * transform(c.X)  # noqa: N806
            R = X_GS.R().toMat33()  # noqa: N806
            up_in_s = R.T @ np.array([0.0, 1.0, 0.0])
            centre = float(X_GS.p()[1])
            if c.shape == "sphere":
                low = min(low, centre - c.params["radius"])
            elif c.shape == "ellipsoid":
                radii = np.asarray(c.params["radii"])
                low = min(low, centre - float(np.linalg.norm(radii * up_in_s)))
            elif c.shape == "brick":
                half = np.asarray(c.params["half_lengths"])
                low = min(low, centre - float(np.abs(up_in_s) @ half))
    return low


def test_ragdoll_lands_and_lies_on_the_floor_at_one_second():
    import engine

    built = built_example("ragdoll")
    # its ellipsoids, bricks and head sphere on the floor are in the fused kernel: compiled
    # Merson steps (well under a CPU second here)
    built.system.realize(built.state, engine.Stage.Acceleration)
    assert built.system.whyNotFused(built.state) == ""
    start = built.state.copy()
    built.system.realize(start, engine.Stage.Position)
    assert lowest_point(built, start) > 0.05  # thrown from above the floor
    state = simulate_to(built, 1.0, 1e-3, None)
    low = lowest_point(built, state)
    assert -0.02 < low < 0.01  # on the floor, with a small penetration at most
    pelvis = built.mobilized_bodies["pelvis"].getBodyOriginLocation(state)
    assert pelvis[1] < 0.35  # lying, not standing


def test_render_and_simulate_take_a_bundled_examples_name(tmp_path, monkeypatch):
    from pathlib import Path

    from app.headless import resolve_model_path

    monkeypatch.chdir(tmp_path)
    assert resolve_model_path(Path("ragdoll")) == example_path("ragdoll")
    assert resolve_model_path(Path("no_such_model")) == Path("no_such_model")
    (tmp_path / "ragdoll").write_text("{}")  # a file of that name wins
    assert resolve_model_path(Path("ragdoll")) == Path("ragdoll")
