"""The plot-sample column names (``ColumnNames``) equal those made body by body (the
reference below), fresh or made from the names of the model before an edit; the names of the
leading bodies an edit left alone are the very strings made before (not made again)."""

from __future__ import annotations

import pytest

from app.document import BodySpec, ModelData, ModelDocument, build
from app.document.examples import rod_body
from app.simulation.column_names import ColumnNames
from engine import State


def reference(built, state):
    """Columns, q labels, u labels and q index made body by body with the MobilizedBody
    accessors (the definition of the names)."""
    matter = built.matter
    names = built.body_name_of_index
    q_labels = [""] * state.getNQ()
    u_labels = [""] * state.getNU()
    q_index = {}
    for b in range(1, matter.getNumBodies()):
        mobod = matter.getMobilizedBody(b)
        q0 = mobod.getFirstQIndex(state) + state.getQStart(matter.getMySubsystemIndex())
        u0 = mobod.getFirstUIndex(state) + state.getUStart(matter.getMySubsystemIndex())
        for k in range(mobod.getNumQ(state)):
            q_labels[q0 + k] = f"{names[b]}.q{k}"
            q_index[(names[b], k)] = q0 + k
        for k in range(mobod.getNumU(state)):
            u_labels[u0 + k] = f"{names[b]}.u{k}"
    q_labels = [lab or f"q{i}" for i, lab in enumerate(q_labels)]
    u_labels = [lab or f"u{i}" for i, lab in enumerate(u_labels)]
    columns = ["t"]
    columns += [f"q[{i}] {lab}" for i, lab in enumerate(q_labels)]
    columns += [f"u[{i}] {lab}" for i, lab in enumerate(u_labels)]
    columns += [f"udot[{i}] {lab}" for i, lab in enumerate(u_labels)]
    columns += ["kinetic energy", "potential energy", "total energy", "|qErr|", "|uErr|"]
    columns += [f"measure {name}" for name in dict(built.measures)]
    return columns, q_labels, u_labels, q_index


def _document(n: int = 10) -> ModelDocument:
    kinds = ("Pin", "Ball", "Slider", "Free")
    bodies = [
        rod_body(f"b{i}", "Ground" if i == 0 else f"b{i - 1}", 0.3, 1.0, mobilizer=kinds[i % 4])
        for i in range(n)
    ]
    return ModelDocument(ModelData("chain", bodies))


def _check(names: ColumnNames, built, state) -> None:
    columns, q_labels, u_labels, q_index = reference(built, state)
    assert names.columns == columns
    assert names.q_labels == q_labels and names.u_labels == u_labels
    assert list(names.q_index.items()) == list(q_index.items())  # (q order too)


EDITS = [
    ("add a leaf at the end", lambda d: d.add_body(BodySpec("extra", parent="b4")), 10),
    ("remove it", lambda d: d.remove_body("extra"), 10),
    ("re-parent", lambda d: d.set_body("b7", parent="b2"), 10),
    ("mobilizer in the middle", lambda d: d.set_body("b5", mobilizer="Pin"), 5),
    ("rename", lambda d: d.rename_body("b3", "middle"), 3),
    ("insert near the root", lambda d: d.add_body(BodySpec("first", parent="Ground"), 0), 0),
]


@pytest.mark.parametrize("euler", [False, True])
def test_names_made_from_the_previous_model_s_equal_those_made_body_by_body(euler):
    document = _document()
    built = build(document.data)
    state = State(built.state)
    built.matter.setUseEulerAngles(state, euler)
    built.system.realizeModel(state)
    names = ColumnNames.of(built, state)
    _check(names, built, state)
    for _, edit, kept_bodies in EDITS:
        edit(document)
        built = build(document.data)
        state = State(built.state)
        built.matter.setUseEulerAngles(state, euler)
        built.system.realizeModel(state)
        made = ColumnNames.of(built, state, names)
        _check(made, built, state)
        # the q columns of the bodies before the edited one are the strings made before
        old_q, new_q = names.section(0), made.section(0)
        after = kept_bodies + 1  # (the first body index past them)
        kept = int(made.first_q[after]) if after < len(made.first_q) else len(new_q)
        assert all(a is b for a, b in zip(old_q[:kept], new_q[:kept], strict=True))
        if kept < len(new_q):
            assert new_q[kept] is not (old_q[kept] if kept < len(old_q) else None)
        names = made


def test_models_with_constraints_and_contact_subsystems_are_named_the_same():
    from app.document import model_io
    from app.document.examples import example_path

    for example in ("four_bar", "bouncing_balls", "spinning_top"):
        built = build(model_io.load(example_path(example)))
        state = State(built.state)
        _check(ColumnNames.of(built, state), built, state)
        _check(ColumnNames.of(built, state, ColumnNames.of(built, state)), built, state)


def test_the_plot_names_of_kept_columns_keep_their_lower_case_forms():
    from app.simulation.samples import QuantityNames

    document = _document()
    built = build(document.data)
    names = ColumnNames.of(built, State(built.state))
    quantities = QuantityNames(names.columns[1:])
    document.add_body(BodySpec("extra", parent="b4"))  # (at the end: every name is kept)
    built = build(document.data)
    made = ColumnNames.of(built, State(built.state), names)
    after = QuantityNames(made.columns[1:], quantities, made.kept)
    assert after.lower == [n.lower() for n in after.names]
    assert after.index == {n: i for i, n in enumerate(after.names)}
    old_lower = {id(s) for s in quantities.lower}
    reused = sum(id(s) in old_lower for s in after.lower)
    assert reused == len(quantities.names) - 5  # all but the energies and errors
    # runs that do not hold the previous names are made afresh
    wrong = QuantityNames(made.columns[1:], quantities, ((3, 0, 10),))
    assert wrong.lower == after.lower
