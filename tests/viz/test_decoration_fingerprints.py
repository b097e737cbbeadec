"""A KeyedGeometry's fingerprints are taken once per distinct set of attribute objects
(decorations copied from one prototype share them): each equals the decoration's own
``fingerprint``, whatever the decorations share."""

from __future__ import annotations

from engine.common.decorative_geometry import DecorativeSphere
from engine.math.transform import Transform
from viz.decoration_keys import KeyedGeometry, fingerprint


def test_shared_fingerprints_equal_each_decoration_s_own():
    from app.document import BodySpec, FrameSpec, GeometrySpec, ModelData, build
    from engine import Stage, State
    from viz.system_decorations import static_decorations

    cylinder = (GeometrySpec("cylinder", {"radius": 0.01, "half_height": 0.05}),)
    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}",
            mobilizer="Ball",
            X_PF=FrameSpec((0.0, -0.1 if i % 3 else -0.2, 0.0)),
            com=(0.0, -0.05, 0.0),
            inertia=(0.01, 0.001, 0.01, 0.0, 0.0, 0.0),
            geometry=cylinder if i % 2 else (),
        )
        for i in range(12)
    ]
    built = build(ModelData(bodies=bodies))
    state = State(built.state)
    built.system.realize(state, Stage.Position)
    decorations = static_decorations(built.system, state)
    keyed = KeyedGeometry(decorations, built.body_name_of_index)
    assert keyed.hashes.tolist() == [fingerprint(g) for g in decorations]
    assert len(set(keyed.hashes.tolist())) > 5  # frames, joints, bones, centres, cylinders

    # one prototype copied to two bodies; a third copy placed elsewhere
    sphere = DecorativeSphere(0.1)
    a, b, c = sphere.clone(), sphere.clone(), sphere.clone()
    a.setBodyId(1)
    b.setBodyId(2)
    c.setBodyId(2)
    X_GD = Transform((0.0, 0.5, 0.0))  # noqa: N806
    a.setTransform(X_GD)
    b.setTransform(Transform(X_GD))  # an equal copy sharing its arrays
    c.setTransform(Transform((0.0, 0.25, 0.0)))
    keyed = KeyedGeometry([a, b, c])
    assert keyed.hashes[0] == keyed.hashes[1] != keyed.hashes[2]
    assert keyed.hashes.tolist() == [fingerprint(g) for g in (a, b, c)]
