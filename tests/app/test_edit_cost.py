"""Edits of a large model cost little on the GUI thread (issue 22: 161 s per edit of a
20,000-body chain). A document edit checks only the body specs it changes; the model tree
updates the edited body's row in place (tests/app/test_incremental_edits.py: every kind of
edit in the window); the System is rebuilt by the simulation worker
(tests/app/test_simulation_session.py)."""

from __future__ import annotations

import pytest

from app.document import BodySpec, DocumentError, ModelData, ModelDocument, validation


def _chain(n: int) -> ModelDocument:
    inertia = (0.1, 0.1, 0.1, 0.0, 0.0, 0.0)
    bodies = [
        BodySpec(f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}", inertia=inertia)
        for i in range(n)
    ]
    return ModelDocument(ModelData(bodies=bodies))


def test_an_edit_checks_only_the_bodies_it_changes(monkeypatch):
    document = _chain(200)
    checked = []
    real = validation.check_body
    monkeypatch.setattr(
        validation, "check_body", lambda b, **kw: (checked.append(b.name), real(b, **kw))
    )
    document.set_body("b50", mass=2.0)
    assert checked == ["b50"]
    checked.clear()
    document.rename_body("b7", "seven")  # b7 and its child b8 (its parent's new name)
    assert sorted(checked) == ["b8", "seven"]
    # what the changed body must satisfy is still checked, in full
    with pytest.raises(DocumentError, match="mass"):
        document.set_body("b9", mass=-1.0)
    with pytest.raises(DocumentError, match="already exists"):
        document.rename_body("b10", "b11")
    with pytest.raises(DocumentError, match="own ancestor"):
        document.set_body("b3", parent="b150")
    assert document.body("b3").parent == "b2" and document.body("b9").mass == 1.0
    assert document.descendants("b197") == ["b198", "b199"]


@pytest.mark.parametrize("n", [12, 50])  # nested, and deeper than MAX_NESTED_DEPTH: flat
def test_the_tree_updates_an_edited_body_in_place(qtbot, n):
    from app.tree.tree_model import MAX_NESTED_DEPTH, ModelTreeModel

    document = _chain(n)
    model = ModelTreeModel(document)
    assert model.flat == (n > MAX_NESTED_DEPTH)
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    item = model._body_items["b5"]
    document.set_body("b5", mass=3.5)
    assert not resets, "a mass edit rebuilt the whole tree"
    assert model._body_items["b5"] is item and "3.5 kg" in item.toolTip()
    document.rename_body("b5", "five")  # the same row, renamed
    assert not resets, "a rename rebuilt the whole tree"
    assert model._body_items["five"] is item and item.text() == "five"
    assert "b5" not in model._body_items
    child = model._body_items["b6"]
    assert "b6" in child.toolTip()
    if model.flat:  # listed under Ground, its Type column naming its parent
        type_item = child.parent().child(child.row(), 1)
        assert type_item.text().endswith("on five"), type_item.text()
    else:
        assert child.parent() is item


def test_a_large_model_s_plot_samples_fit_in_a_bounded_buffer():
    """A 20,000-body Ball chain has 200,000 sampled columns: 20,000 rows of them (30 GB) could
    not be allocated and the studio could not simulate it. The ring buffer keeps fewer rows
    for models with many columns."""
    from app.document import FrameSpec, build
    from app.simulation import session as session_module
    from app.simulation.session import SimulationSession

    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}",
            mobilizer="Ball",
            X_PF=FrameSpec((0.0, -0.1, 0.0)),
            inertia=(0.1, 0.1, 0.1, 0.0, 0.0, 0.0),
        )
        for i in range(300)
    ]
    session = SimulationSession(build(ModelDocument(ModelData(bodies=bodies))))
    samples = session.samples
    width = len(samples.columns)
    assert width > 3000  # t, 1,200 q, 900 u, 900 udot, energies
    assert samples.capacity * width * 8 <= session_module.SAMPLE_BYTES
    assert samples.capacity >= 2
    small = SimulationSession(build(_chain(3).data))
    assert small.samples.capacity == 20000  # a small model keeps its whole history


def test_a_mass_edit_keeps_the_drawing():
    """Bodies with equal specs share one Body template in the build, so after one body's mass
    is edited its decorations are copies of another template than before: they draw the same
    and must be seen as the same (the view is not rebuilt for a mass edit)."""
    from app.document import FrameSpec, GeometrySpec, build
    from app.simulation.session import SimulationSession, _same_geometry

    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}",
            X_PF=FrameSpec((0.0, -0.2, 0.0)),
            com=(0.0, -0.1, 0.0),
            inertia=(0.02, 0.01, 0.02, 0.0, 0.0, 0.0),
            geometry=(GeometrySpec("cylinder", {"radius": 0.01, "half_height": 0.1}),),
        )
        for i in range(12)
    ]
    document = ModelDocument(ModelData(bodies=bodies))
    before = SimulationSession(build(document))._geometry
    document.set_body("b5", mass=2.0, inertia=(0.04, 0.02, 0.04, 0.0, 0.0, 0.0))
    after = SimulationSession(build(document))._geometry
    assert after is not before and _same_geometry(before, after)
    document.set_body("b5", geometry=(GeometrySpec("sphere", {"radius": 0.05}),))
    changed = SimulationSession(build(document))._geometry
    assert not _same_geometry(after, changed)
