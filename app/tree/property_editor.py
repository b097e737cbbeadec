"""The "Properties" dock: a form for the selected tree row (a body, Ground's geometry, a
constraint, a force or the hints).

Numbers are typed into line edits ("1.5" or "0, -0.5, 0"); every label says its unit; angles
(and angular rates) are in degrees here and radians in the document. A value is applied when
editing finishes, as one undoable command; a value the document refuses (a mass that is not
positive, non-physical inertia, a body constrained to itself, a loop in the parent chain, text
that is not a number...) is not applied and the reason appears in red beside the field
(``error_label(key)``), so the document always stays valid.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.document import GROUND, DocumentError, GeometrySpec
from app.document.registry import (
    GEOMETRY_KINDS,
    MOBILIZER_DEFAULT_OPTIONS,
    MOBILIZER_TYPES,
    element_types,
)
from app.document.specs import UP_DIRECTIONS, replace
from app.tree.contact_forms import contact_forms, contact_settings_form
from app.tree.tree_model import parse_key
from app.widgets.coordinate_units import from_display, q_kinds, to_display, u_kinds, units_label
from app.widgets.wheel_guard import guard_wheel

ERROR_STYLE = "color: #b03a2e"
#: Units of the mobilizer options shown in the form (angles in degrees, stored in radians).
OPTION_UNITS = {
    "pitch": "m/rad",
    "radii": "m",
    "azimuth_offset": "deg",
    "zenith_offset": "deg",
    "radial_axis": "x or z",
    "azimuth_negated": "true/false",
    "zenith_negated": "true/false",
    "radial_negated": "true/false",
}


class FieldError(ValueError):
    """Text that does not parse; shown beside the field."""


def fmt(v) -> str:
    if isinstance(v, (tuple, list)):
        return ", ".join(fmt(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.12g}"
    return str(v)


def parse_numbers(text: str, n: int | None) -> tuple[float, ...]:
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise FieldError(f"not a number: {text!r}") from None
    if n is not None and len(values) != n:
        what = "a number" if n == 1 else f"{n} numbers separated by commas"
        raise FieldError(f"expected {what}, got {len(values)}")
    if not all(math.isfinite(v) for v in values):
        raise FieldError("values must be finite")
    return values


def parse_number(text: str) -> float:
    return parse_numbers(text, 1)[0]


def degrees(rpy) -> tuple[float, ...]:
    return tuple(round(math.degrees(a), 10) + 0.0 for a in rpy)


def radians(values) -> tuple[float, ...]:
    return tuple(math.radians(a) for a in values)


#: A combo box with more items than this is sized for a typical item, not the longest.
LONG_COMBO = 200

#: Body fields the body form shows as text only (no rows, labels or choices depend on them):
#: an edit of the shown body that changes only these updates the form's texts in place.
VALUE_FIELDS = frozenset({"mass", "com", "inertia", "X_PF", "X_BM", "q", "u"})


def _loop_note(name: str, excluded: set[str]) -> str:
    """The parent field's note on the bodies it refuses (``name`` and its descendants)."""
    if len(excluded) <= 1:
        return ""
    if len(excluded) > 12:
        return f"; not {name} or its {len(excluded) - 1} descendants (a loop)"
    return f"; not {sorted(excluded)} (a loop)"


class PropertyEditor(QWidget):
    """Form for one tree key; ``editor`` is the ModelEditor (document + undo stack)."""

    def __init__(self, editor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("propertyEditor")
        self.editor = editor
        self.key = ""
        self.fields: dict[str, tuple[QWidget, QLabel]] = {}
        self._refresh_pending = False
        #: The document's changes since the form was made or updated (None: one that needs
        #: the form made again, or an unknown one).
        self._changes: list | None = []
        self._committing = False
        self._shown: tuple = ()
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)
        self._form_widget: QWidget | None = None
        self.show_key("")

    # -- public
    def show_key(self, key: str) -> None:
        self.key = key or ""
        if self._committing:  # a field of the current form is still handling its edit
            self.document_changed()
        else:
            self.refresh()

    def document_changed(self, change=None) -> None:
        """Bring the form up to date after the current event (editing may be finishing in
        it): ``change`` is the document's Change (None: make the form again)."""
        if change is None or self._changes is None:
            self._changes = None
        else:
            self._changes.append(change)
        if not self._refresh_pending:
            self._refresh_pending = True
            QTimer.singleShot(0, self._deferred_refresh)

    def _deferred_refresh(self) -> None:
        self._refresh_pending = False
        changes, self._changes = self._changes, []
        if self._shown == self._showing():  # (built for this content meanwhile)
            return
        if changes and self._update_values(changes):
            return
        self.refresh()

    def _update_values(self, changes: list) -> bool:
        """Update the shown body form's texts in place when ``changes`` (the document's since
        the form was made) only changed value fields of that body (VALUE_FIELDS): the form
        then equals one made afresh. False (nothing done) for any other change."""
        kind, name = parse_key(self.key)
        doc = self.editor.document
        if kind != "body" or self._shown[:2] != (self.key, id(doc)):
            return False
        for change in changes:
            if (
                change.target != name
                or not change.fields
                or not VALUE_FIELDS.issuperset(change.fields)
            ):
                return False
        try:
            body = doc.body(name)
        except (KeyError, DocumentError):
            return False
        texts = self._body_texts(body)
        if not texts.keys() <= self.fields.keys():
            return False
        for key, text in texts.items():
            edit = self.fields[key][0]
            edit.setText(text)
            edit.setProperty("applied", text)
        for _field, error in self.fields.values():  # (a form made afresh shows no error)
            self._show_error(error, None)
        self._shown = self._showing()
        return True

    def _showing(self) -> tuple:
        """What the form is made from: the key and the document's content (its revision)."""
        doc = self.editor.document
        return (self.key, id(doc), getattr(doc, "revision", None))

    def field(self, key: str) -> QWidget:
        return self.fields[key][0]

    def error_label(self, key: str) -> QLabel:
        return self.fields[key][1]

    def errors(self) -> dict[str, str]:
        return {k: lab.text() for k, (_, lab) in self.fields.items() if lab.text()}

    # -- form building
    def refresh(self) -> None:
        self._shown = self._showing()
        self._changes = []
        self.fields = {}
        old = self._form_widget
        widget = QWidget()
        widget.setObjectName("propertyForm")
        self._vbox = QVBoxLayout(widget)
        self._vbox.setAlignment(Qt.AlignmentFlag.AlignTop)
        doc = self.editor.document
        kind, rest = parse_key(self.key)
        try:
            if doc is None or not kind:
                self._note("Select a body, constraint or force in the model tree to edit it.")
            elif kind == "body" and rest in doc.body_names():
                self._body_form(rest)
            elif kind == "ground":
                self._note("Ground is fixed. Its geometry is drawn in the ground frame.")
                self._geometry_forms(GROUND)
                contact_forms(self, GROUND)
            elif kind in ("constraints", "forces", "measures") and int(rest) < len(
                getattr(doc, kind)
            ):
                self._element_form(kind, int(rest))
            elif kind == "hints":
                self._hints_form()
            elif kind == "section" and rest == "measures":
                self._note(
                    "Use '+ Measure' above to add one (a probe on the selected body, or an "
                    "operation on the selected measure). Select a measure to plot it."
                )
            elif kind == "section":
                self._note(
                    f"Use '+ {'Constraint' if rest == 'constraints' else 'Force'}' above to add "
                    "one between the selected bodies."
                )
            else:
                self._note("Nothing to edit.")
        except (ValueError, KeyError):
            self._note("Nothing to edit.")
        guard_wheel(widget)  # the wheel scrolls the form; it edits only a focused field
        self.scroll.setWidget(widget)  # deletes the previous form
        self._form_widget = widget
        del old

    def _note(self, text: str) -> None:
        label = QLabel(text)
        label.setWordWrap(True)
        self._vbox.addWidget(label)

    def _group(self, title: str) -> QFormLayout:
        box = QGroupBox(title)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # a field that does not fit beside its label goes below it (a narrow dock) rather than
        # past the dock's right edge
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self._vbox.addWidget(box)
        return form

    def _error(self, key: str) -> QLabel:
        label = QLabel()
        label.setObjectName(f"error_{key}")
        label.setStyleSheet(ERROR_STYLE)
        label.setWordWrap(True)
        label.hide()
        return label

    def _row(
        self, form: QFormLayout, label: str, key: str, editor: QWidget, tip: str = ""
    ) -> QLabel:
        error = self._error(key)
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(editor, 2)
        h.addWidget(error, 3)
        editor.setObjectName(f"field_{key}")
        if tip:
            editor.setToolTip(tip)
        form.addRow(label, row)
        self.fields[key] = (editor, error)
        return error

    def _text_field(
        self,
        form: QFormLayout,
        label: str,
        key: str,
        value: str,
        apply: Callable[[str], Callable],
        description: str,
        tip: str = "",
    ) -> QLineEdit:
        """A line edit; on editingFinished ``apply(text)`` parses and returns fn(document)."""
        edit = QLineEdit(value)
        error = self._row(form, label, key, edit, tip)
        edit.setProperty("applied", value)

        def commit() -> None:
            text = edit.text()
            if text == edit.property("applied") and not error.text():
                return
            self._committing = True
            try:
                fn = apply(text)
                self.editor.edit(description, fn)
            except (FieldError, DocumentError) as exc:
                self._show_error(error, exc)
                return
            finally:
                self._committing = False
            if isValid(edit):
                edit.setProperty("applied", text)
                self._show_error(error, None)

        edit.editingFinished.connect(commit)
        return edit

    def _combo_field(
        self,
        form,
        label: str,
        key: str,
        items: list[str],
        current: str,
        apply,
        description: str,
        tip: str = "",
    ) -> QComboBox:
        combo = QComboBox()
        # sized for a short name, not by measuring every item (a 20,000-body model), so that
        # it fits beside its label in a narrow dock (the list shows the names in full)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(16 if len(items) > LONG_COMBO else 8)
        combo.addItems(items)
        combo.setCurrentText(current)
        error = self._row(form, label, key, combo, tip)

        def changed(text: str) -> None:
            if text == current:
                self._show_error(error, None)
                return
            self._committing = True
            try:
                self.editor.edit(description, apply(text))
            except DocumentError as exc:
                self._show_error(error, exc)
                return
            finally:
                self._committing = False
            if isValid(error):
                self._show_error(error, None)

        combo.currentTextChanged.connect(changed)
        return combo

    def _check_field(
        self, form, label: str, key: str, value: bool, apply, description: str
    ) -> QCheckBox:
        box = QCheckBox()
        box.setChecked(bool(value))
        error = self._row(form, label, key, box)

        def toggled(checked: bool) -> None:
            self._committing = True
            try:
                self.editor.edit(description, apply(bool(checked)))
            except DocumentError as exc:
                self._show_error(error, exc)
            finally:
                self._committing = False

        box.toggled.connect(toggled)
        return box

    @staticmethod
    def _show_error(label: QLabel, exc) -> None:
        if exc is None:
            label.setText("")
            label.hide()
            return
        label.setText(exc.message if isinstance(exc, DocumentError) else str(exc))
        label.show()

    # -- bodies
    def _body_form(self, name: str) -> None:
        doc = self.editor.document
        b = doc.body(name)
        form = self._group(f"Body '{name}'")
        self._text_field(
            form,
            "Name",
            "name",
            b.name,
            lambda t: lambda d: d.rename_body(name, t.strip() if t.strip() else t),
            f"Rename {name}",
        )
        excluded = {name, *doc.descendants(name)}
        parents = [GROUND] + [n for n in doc.body_names() if n != name]
        self._combo_field(
            form,
            "Parent",
            "parent",
            parents,
            b.parent,
            lambda p: lambda d: d.set_body(name, parent=p),
            f"Re-parent {name}",
            "The body this one is mobilized from" + _loop_note(name, excluded),
        )

        mob = self._group("Mobilizer")
        self._combo_field(
            mob,
            "Type",
            "mobilizer",
            sorted(MOBILIZER_TYPES),
            b.mobilizer,
            lambda t: lambda d: d.set_body(name, mobilizer=t),
            f"Change {name}'s mobilizer",
        )
        for option in MOBILIZER_TYPES[b.mobilizer].options:
            value = b.mobilizer_params.get(
                option, MOBILIZER_DEFAULT_OPTIONS.get(b.mobilizer, {}).get(option, "")
            )
            unit = OPTION_UNITS.get(option, "")
            if unit == "deg" and isinstance(value, (int, float)):
                value = round(math.degrees(value), 10) + 0.0
            self._text_field(
                mob,
                f"{option} ({unit})" if unit else option,
                f"mobilizer_params.{option}",
                fmt(value),
                lambda t, o=option: self._option_setter(name, o, t),
                f"Change {name}'s {option}",
            )
        texts = self._body_texts(b)
        self._frame_fields(mob, "X_PF (on parent)", "X_PF", texts, lambda f: {"X_PF": f}, name)
        self._frame_fields(mob, "X_BM (on body)", "X_BM", texts, lambda f: {"X_BM": f}, name)

        mass = self._group("Mass properties")
        self._text_field(
            mass,
            "Mass (kg)",
            "mass",
            texts["mass"],
            lambda t: self._mass_setter(name, t),
            f"Change {name}'s mass",
            "kg, positive; the inertia scales with the mass (the body's shape is kept)",
        )
        self._text_field(
            mass,
            "Mass centre (m, in B)",
            "com",
            texts["com"],
            lambda t: (lambda v: lambda d: d.set_body(name, com=v))(parse_numbers(t, 3)),
            f"Change {name}'s mass centre",
        )
        self._text_field(
            mass,
            "Inertia about Bo",
            "inertia",
            texts["inertia"],
            lambda t: (lambda v: lambda d: d.set_body(name, inertia=v))(parse_numbers(t, 6)),
            f"Change {name}'s inertia",
            "kg m²: xx, yy, zz, xy, xz, yz about the body origin, in B",
        )

        init = self._group("Initial state")
        nq, nu = MOBILIZER_TYPES[b.mobilizer].nq, MOBILIZER_TYPES[b.mobilizer].nu
        qk, uk = q_kinds(b.mobilizer, nq), u_kinds(b.mobilizer, nu)
        q_edit = self._text_field(
            init,
            f"q ({units_label(qk)})",
            "q",
            texts["q"],
            lambda t: self._state_setter(name, "q", t, qk),
            f"Set {name}'s initial q",
            "empty: the mobilizer's default; angles in degrees, lengths in m",
        )
        u_edit = self._text_field(
            init,
            f"u ({units_label(uk)})",
            "u",
            texts["u"],
            lambda t: self._state_setter(name, "u", t, uk),
            f"Set {name}'s initial u",
            "empty: zero; angular rates in deg/s, speeds in m/s",
        )
        q_edit.setPlaceholderText("default")
        u_edit.setPlaceholderText("zero")
        self._geometry_forms(name)
        contact_forms(self, name)

    @classmethod
    def _body_texts(cls, b) -> dict[str, str]:
        """The texts of the body form's VALUE_FIELDS rows for BodySpec ``b``, by field key
        (frames in m and degrees, q and u in the shown units)."""
        kind = MOBILIZER_TYPES[b.mobilizer]
        texts = {}
        for frame in ("X_PF", "X_BM"):
            value = getattr(b, frame)
            texts[f"{frame}.p"] = fmt(value.p)
            texts[f"{frame}.rpy"] = fmt(degrees(value.rpy))
        texts["mass"] = fmt(b.mass)
        texts["com"] = fmt(b.com)
        texts["inertia"] = fmt(b.inertia)
        texts["q"] = cls._state_text(b.q, q_kinds(b.mobilizer, kind.nq))
        texts["u"] = cls._state_text(b.u, u_kinds(b.mobilizer, kind.nu))
        return texts

    def _mass_setter(self, name: str, text: str):
        """Set the mass, scaling the inertia with it (the unit inertia, the body's shape, is
        kept). A mass that is not positive is refused: a massless body with no inertia makes
        the articulated-body inertias singular, and scaling the inertia by 0 would lose it."""
        mass = parse_number(text)
        if mass <= 0:
            raise FieldError(
                f"the mass must be positive (got {fmt(mass)} kg): a body without mass "
                "makes the equations of motion singular"
            )
        b = self.editor.document.body(name)
        if b.mass > 0:
            inertia = tuple(i * mass / b.mass for i in b.inertia)
        elif any(b.inertia[:3]):  # a massless body from a file: its inertia is kept as it is
            inertia = tuple(b.inertia)
        else:  # nothing to scale: a solid sphere of 0.1 m radius about Bo
            inertia = (0.004 * mass, 0.004 * mass, 0.004 * mass, 0.0, 0.0, 0.0)
        return lambda d: d.set_body(name, mass=mass, inertia=inertia)

    def _option_setter(self, name: str, option: str, text: str):
        b = self.editor.document.body(name)
        if option == "radii":
            value = parse_numbers(text, 3)
        elif option in ("radial_axis",):
            value = text.strip()
        elif option.endswith("negated"):
            value = text.strip().lower() in ("1", "true", "yes")
        elif OPTION_UNITS.get(option) == "deg":
            value = math.radians(parse_number(text))
        else:
            value = parse_number(text)
        params = {**b.mobilizer_params, option: value}
        return lambda d: d.set_body(name, mobilizer_params=params)

    @staticmethod
    def _state_text(values, kinds: list[str]) -> str:
        """SI values (rad, m, rad/s, m/s) as shown: angles and rates in degrees."""
        if values is None:
            return ""
        if len(values) != len(kinds):
            return fmt(tuple(values))
        shown = (round(to_display(k, v), 10) + 0.0 for k, v in zip(kinds, values, strict=True))
        return fmt(tuple(shown))

    @staticmethod
    def _state_setter(name: str, which: str, text: str, kinds: list[str]):
        """Typed values in the shown units back to SI (the document checks the length)."""
        if not text.strip():
            value = None
        else:
            shown = parse_numbers(text, None)
            value = (
                tuple(from_display(k, v) for k, v in zip(kinds, shown, strict=True))
                if len(shown) == len(kinds)
                else shown
            )
        return lambda d: d.set_body(name, **{which: value})

    def _frame_fields(
        self, form, label: str, key: str, texts: dict[str, str], make: Callable, name: str
    ) -> None:
        """The position and rotation rows of frame ``key`` of body ``name`` (their texts
        from ``texts``, see _body_texts)."""

        def setter(part: str):
            def apply(text: str):
                values = parse_numbers(text, 3)
                current = getattr(self.editor.document.body(name), key)
                new = (
                    replace(current, p=values)
                    if part == "p"
                    else replace(current, rpy=radians(values))
                )
                return lambda d: d.set_body(name, **make(new))

            return apply

        self._text_field(
            form,
            f"{label} position (m)",
            f"{key}.p",
            texts[f"{key}.p"],
            setter("p"),
            f"Move {name}'s {key}",
        )
        self._text_field(
            form,
            f"{label} rotation (deg)",
            f"{key}.rpy",
            texts[f"{key}.rpy"],
            setter("rpy"),
            f"Rotate {name}'s {key}",
            "body-fixed x-y-z angles in degrees",
        )

    # -- geometry
    def _geometry_forms(self, body: str) -> None:
        doc = self.editor.document
        geometry = doc.geometry_of(body)
        for k, geom in enumerate(geometry):
            form = self._group(f"Geometry {k + 1}: {geom.kind}")
            prefix = f"geometry[{k}]"
            self._combo_field(
                form,
                "Kind",
                f"{prefix}.kind",
                sorted(GEOMETRY_KINDS),
                geom.kind,
                lambda t, k=k: self._geometry_setter(
                    body, k, lambda gs: GeometrySpec(t, {}, gs.X, gs.color, gs.opacity)
                ),
                f"Change {body}'s geometry kind",
            )
            for arg in GEOMETRY_KINDS[geom.kind].args:
                value = geom.params.get(arg.name, arg.default)
                if arg.kind == "path":  # a mesh file name, relative to the model file
                    self._text_field(
                        form,
                        arg.name,
                        f"{prefix}.{arg.name}",
                        str(value),
                        lambda t, k=k, arg=arg: self._geometry_setter(
                            body, k, lambda gs: replace(gs, params={**gs.params, arg.name: t})
                        ),
                        f"Change {body}'s mesh file",
                    )
                    continue
                n = 3 if arg.kind in ("vec3", "direction") else 1

                def apply(text, k=k, arg=arg, n=n):
                    v = parse_numbers(text, n)
                    v = v if n == 3 else v[0]
                    return self._geometry_setter(
                        body, k, lambda gs: replace(gs, params={**gs.params, arg.name: v})
                    )

                self._text_field(
                    form,
                    f"{arg.name} ({arg.unit})" if arg.unit else arg.name,
                    f"{prefix}.{arg.name}",
                    fmt(value),
                    apply,
                    f"Change {body}'s geometry",
                )
            self._text_field(
                form,
                "Position (m)",
                f"{prefix}.X.p",
                fmt(geom.X.p),
                lambda t, k=k: (
                    lambda v: self._geometry_setter(
                        body, k, lambda gs: replace(gs, X=replace(gs.X, p=v))
                    )
                )(parse_numbers(t, 3)),
                f"Move {body}'s geometry",
            )
            self._text_field(
                form,
                "Rotation (deg)",
                f"{prefix}.X.rpy",
                fmt(degrees(geom.X.rpy)),
                lambda t, k=k: (
                    lambda v: self._geometry_setter(
                        body, k, lambda gs: replace(gs, X=replace(gs.X, rpy=radians(v)))
                    )
                )(parse_numbers(t, 3)),
                f"Rotate {body}'s geometry",
            )
            color = self._text_field(
                form,
                "Colour (r, g, b)",
                f"{prefix}.color",
                fmt(geom.color) if geom.color is not None else "",
                lambda t, k=k: self._color_setter(body, k, t),
                f"Colour {body}'s geometry",
                "components in [0, 1]; empty: default colour",
            )
            color.setPlaceholderText("default")
            pick = QPushButton("Pick…")
            pick.setObjectName(f"pick_{prefix}.color")
            pick.clicked.connect(lambda _=False, k=k: self._pick_color(body, k))
            form.addRow("", pick)
            self._text_field(
                form,
                "Opacity",
                f"{prefix}.opacity",
                fmt(geom.opacity),
                lambda t, k=k: (
                    lambda v: self._geometry_setter(body, k, lambda gs: replace(gs, opacity=v))
                )(parse_number(t)),
                f"Change {body}'s geometry opacity",
            )
            remove = QPushButton("Remove this geometry")
            remove.setObjectName(f"remove_{prefix}")
            remove.clicked.connect(lambda _=False, k=k: self._remove_geometry(body, k))
            form.addRow("", remove)
        add_row = QHBoxLayout()
        kind_box = QComboBox()
        kind_box.setObjectName("new_geometry_kind")
        kind_box.addItems(sorted(GEOMETRY_KINDS))
        kind_box.setCurrentText("sphere")
        add = QPushButton("Add geometry")
        add.setObjectName("add_geometry")
        add.clicked.connect(lambda: self._add_geometry(body, kind_box.currentText()))
        add_row.addWidget(kind_box)
        add_row.addWidget(add)
        holder = QWidget()
        holder.setLayout(add_row)
        self._vbox.addWidget(holder)

    def _color_setter(self, body: str, k: int, text: str):
        color = parse_numbers(text, 3) if text.strip() else None
        return self._geometry_setter(body, k, lambda gs: replace(gs, color=color))

    def _geometry_setter(self, body: str, k: int, change: Callable[[GeometrySpec], GeometrySpec]):
        def fn(d):
            geometry = d.geometry_of(body)
            geometry[k] = change(geometry[k])
            d.set_geometry(body, geometry)

        return fn

    def _add_geometry(self, body: str, kind: str) -> None:
        params = {a.name: a.default for a in GEOMETRY_KINDS[kind].args}
        try:
            self.editor.edit(
                f"Add {kind} to {body}",
                lambda d: d.set_geometry(body, [*d.geometry_of(body), GeometrySpec(kind, params)]),
            )
        except DocumentError as exc:
            self.editor.report(str(exc))

    def _remove_geometry(self, body: str, k: int) -> None:
        def fn(d):
            geometry = d.geometry_of(body)
            del geometry[k]
            d.set_geometry(body, geometry)

        self.editor.edit(f"Remove geometry from {body}", fn)

    def _pick_color(self, body: str, k: int) -> None:
        g = self.editor.document.geometry_of(body)[k]
        initial = QColor.fromRgbF(*(g.color or (0.7, 0.7, 0.7)))
        color = QColorDialog.getColor(initial, self, "Geometry colour")
        if color.isValid():
            rgb = (round(color.redF(), 4), round(color.greenF(), 4), round(color.blueF(), 4))
            self.editor.edit(
                f"Colour {body}'s geometry",
                self._geometry_setter(body, k, lambda g: replace(g, color=rgb)),
            )

    # -- constraints and forces
    def _element_form(self, section: str, index: int) -> None:
        doc = self.editor.document
        e = getattr(doc, section)[index]
        spec = element_types(section)[e.type]
        what = {"constraints": "Constraint", "forces": "Force"}.get(section, "Measure")
        form = self._group(f"{what} {index + 1}: {e.type}")
        earlier = [m.name for m in doc.measures[:index]] if section == "measures" else []
        if spec.doc:
            form.addRow(QLabel(spec.doc))
        self._text_field(
            form,
            "Name",
            "element.name",
            e.name,
            lambda t: lambda d: d.set_element(section, index, name=t),
            f"Rename {what.lower()}",
        )
        bodies = [GROUND, *doc.body_names()]
        for arg in spec.args:
            value = e.args.get(arg.name, arg.default)
            label = f"{arg.name} ({arg.unit})" if arg.unit else arg.name
            key = f"args.{arg.name}"
            desc = f"Change {e.label()} {arg.name}"
            if arg.kind == "measure":
                self._combo_field(
                    form,
                    label,
                    key,
                    earlier if value in earlier else [value, *earlier],
                    value,
                    lambda t, a=arg.name: lambda d: d.set_element(section, index, args={a: t}),
                    desc,
                    "A measure defined above this one",
                )
            elif arg.kind == "body":
                self._combo_field(
                    form,
                    label,
                    key,
                    bodies,
                    value,
                    lambda t, a=arg.name: lambda d: d.set_element(section, index, args={a: t}),
                    desc,
                )
            elif arg.kind == "frame":
                for part in ("p", "rpy"):
                    shown = value.get(part, (0, 0, 0))
                    shown = degrees(shown) if part == "rpy" else shown

                    def apply(t, a=arg.name, part=part, frame=value):
                        v = parse_numbers(t, 3)
                        return lambda d: d.set_element(
                            section,
                            index,
                            args={a: {**dict(frame), part: radians(v) if part == "rpy" else v}},
                        )

                    self._text_field(
                        form,
                        f"{arg.name} {'position (m)' if part == 'p' else 'rotation (deg)'}",
                        f"{key}.{part}",
                        fmt(shown),
                        apply,
                        desc,
                    )
            elif arg.kind == "rotation":
                self._text_field(
                    form,
                    f"{arg.name} (deg)",
                    key,
                    fmt(degrees(value.get("rpy", (0, 0, 0)))),
                    lambda t, a=arg.name: (
                        lambda v: (
                            lambda d: d.set_element(section, index, args={a: {"rpy": radians(v)}})
                        )
                    )(parse_numbers(t, 3)),
                    desc,
                )
            elif arg.kind == "bool":
                self._check_field(
                    form,
                    label,
                    key,
                    bool(value),
                    lambda checked, a=arg.name: (
                        lambda d: d.set_element(section, index, args={a: checked})
                    ),
                    desc,
                )
            elif arg.kind == "index":
                self._text_field(
                    form,
                    label,
                    key,
                    fmt(value),
                    lambda t, a=arg.name: (
                        lambda v: (
                            lambda d: d.set_element(
                                section, index, args={a: int(v) if v == int(v) else v}
                            )
                        )
                    )(parse_number(t)),
                    desc,
                )
            else:
                n = 3 if arg.kind in ("vec3", "direction") else 1
                self._text_field(
                    form,
                    label,
                    key,
                    fmt(value),
                    lambda t, a=arg.name, n=n: (
                        lambda v: (
                            lambda d: d.set_element(section, index, args={a: v if n == 3 else v[0]})
                        )
                    )(parse_numbers(t, n)),
                    desc,
                )

    # -- hints
    def _hints_form(self) -> None:
        h = self.editor.document.hints
        form = self._group("System hints")
        self._combo_field(
            form,
            "Up direction",
            "hints.up",
            list(UP_DIRECTIONS),
            h.up,
            lambda t: lambda d: d.set_hints(up=t),
            "Change the up direction",
        )
        self._check_field(
            form,
            "Uniform background",
            "hints.uniform_background",
            h.uniform_background,
            lambda v: lambda d: d.set_hints(uniform_background=v),
            "Toggle the uniform background",
        )
        self._check_field(
            form,
            "Show default geometry",
            "hints.show_default_geometry",
            h.show_default_geometry,
            lambda v: lambda d: d.set_hints(show_default_geometry=v),
            "Toggle the default geometry",
        )
        self._text_field(
            form,
            "Time scale (s)",
            "hints.time_scale",
            fmt(h.time_scale),
            lambda t: (lambda v: lambda d: d.set_hints(time_scale=v))(parse_number(t)),
            "Change the time scale",
        )
        self._text_field(
            form,
            "Length scale (m)",
            "hints.length_scale",
            fmt(h.length_scale),
            lambda t: (lambda v: lambda d: d.set_hints(length_scale=v))(parse_number(t)),
            "Change the length scale",
        )
        contact_settings_form(self)
