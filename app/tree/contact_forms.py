"""The contact part of the "Properties" dock: a body's (or Ground's) contact surfaces and the
System's contact settings.

Each surface is a group: shape, size (radius, radii or half lengths, m), frame X_BS (position
in m, rotation in degrees), material (stiffness in Pa, dissipation in s/m, static, dynamic and
viscous friction), cliques (names separated by commas), and how it is drawn (shown, colour,
opacity), with a button removing it. Below the surfaces: a shape box with "Add contact
surface", and on Ground "Add ground contact plane" (a half space whose surface is the drawn
floor). Every value goes through the document as one undoable edit; a refused value stays in
its field with the reason in red beside it (the property editor's fields).
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

from app.document import GROUND, DocumentError
from app.document.specs import (
    CONTACT_SHAPE_DEFAULTS,
    CONTACT_SHAPES,
    ContactSurfaceSpec,
    replace,
)

#: shown names of the contact shapes (Simbody's ContactGeometry kinds)
SHAPE_TITLES = {
    "halfspace": "HalfSpace",
    "sphere": "Sphere",
    "ellipsoid": "Ellipsoid",
    "brick": "Brick",
    "mesh": "Mesh",
    "cylinder": "Cylinder",
}
SIZE_LABELS = {
    "radius": "Radius (m)",
    "radii": "Radii (m, x y z)",
    "half_lengths": "Half lengths (m, x y z)",
}
MESH_FILE_TIP = (
    "a closed triangle mesh file (.obj, .stl, .ply...); saved relative to the model file"
)
MATERIAL_FIELDS = (
    ("stiffness", "Stiffness (Pa)", "Young's-modulus-like stiffness of the material, > 0"),
    ("dissipation", "Dissipation (s/m)", "Hunt-Crossley dissipation, >= 0 (0: elastic)"),
    ("static_friction", "Static friction", "Coefficient of static friction, >= dynamic"),
    ("dynamic_friction", "Dynamic friction", "Coefficient of dynamic friction, >= 0"),
    ("viscous_friction", "Viscous friction (s/m)", "Friction growing with slip speed, >= 0"),
)


def contact_forms(pe, body: str) -> None:
    """Add the contact surface groups of ``body`` (or Ground) to PropertyEditor ``pe``."""
    from app.tree.property_editor import (
        degrees,
        fmt,
        parse_number,
        parse_numbers,
        radians,
    )

    doc = pe.editor.document
    surfaces = doc.contact_surfaces_of(body)
    for k, c in enumerate(surfaces):
        prefix = f"contact_surfaces[{k}]"
        form = pe._group(f"Contact surface {k + 1}: {SHAPE_TITLES[c.shape]}")

        def setter(change, k=k):
            return _surface_setter(body, k, change)

        pe._combo_field(
            form,
            "Shape",
            f"{prefix}.shape",
            [SHAPE_TITLES[s] for s in CONTACT_SHAPES],
            SHAPE_TITLES[c.shape],
            lambda t, setter=setter: setter(_with_shape(_shape_of(t))),
            f"Change {body}'s contact shape",
        )
        if c.shape == "mesh":
            _mesh_fields(pe, form, body, prefix, c, setter)
        for name in () if c.shape == "mesh" else CONTACT_SHAPES[c.shape]:
            n = 1 if name == "radius" else 3

            def apply(text, name=name, n=n, setter=setter):
                v = parse_numbers(text, n)
                value = v[0] if n == 1 else v
                return setter(lambda old: replace(old, params={**old.params, name: value}))

            pe._text_field(
                form,
                SIZE_LABELS[name],
                f"{prefix}.{name}",
                fmt(c.params.get(name, CONTACT_SHAPE_DEFAULTS[c.shape][name])),
                apply,
                f"Resize {body}'s contact surface",
            )
        pe._text_field(
            form,
            "Position (m)",
            f"{prefix}.X.p",
            fmt(c.X.p),
            lambda t, setter=setter: (
                lambda v: setter(lambda old: replace(old, X=replace(old.X, p=v)))
            )(parse_numbers(t, 3)),
            f"Move {body}'s contact surface",
            "origin of the surface frame S in the body frame",
        )
        pe._text_field(
            form,
            "Rotation (deg)",
            f"{prefix}.X.rpy",
            fmt(degrees(c.X.rpy)),
            lambda t, setter=setter: (
                lambda v: setter(lambda old: replace(old, X=replace(old.X, rpy=radians(v))))
            )(parse_numbers(t, 3)),
            f"Rotate {body}'s contact surface",
            "body-fixed x-y-z angles; a half space fills the +x side of its frame",
        )
        for name, label, tip in MATERIAL_FIELDS:
            pe._text_field(
                form,
                label,
                f"{prefix}.{name}",
                fmt(getattr(c.material, name)),
                lambda t, name=name, setter=setter: (
                    lambda v: setter(
                        lambda old: replace(old, material=replace(old.material, **{name: v}))
                    )
                )(parse_number(t)),
                f"Change {body}'s contact {name.replace('_', ' ')}",
                tip,
            )
        cliques = pe._text_field(
            form,
            "Cliques",
            f"{prefix}.cliques",
            ", ".join(c.cliques),
            lambda t, setter=setter: (
                lambda names: setter(lambda old: replace(old, cliques=names))
            )(tuple(n.strip() for n in t.split(",") if n.strip())),
            f"Change {body}'s contact cliques",
            "names separated by commas; surfaces sharing a clique never touch each other",
        )
        cliques.setPlaceholderText("none")
        pe._check_field(
            form,
            "Drawn",
            f"{prefix}.show",
            c.show,
            lambda on, setter=setter: setter(lambda old: replace(old, show=on)),
            f"Toggle drawing {body}'s contact surface",
        )
        color = pe._text_field(
            form,
            "Colour (r, g, b)",
            f"{prefix}.color",
            fmt(c.color) if c.color is not None else "",
            lambda t, setter=setter: (lambda v: setter(lambda old: replace(old, color=v)))(
                parse_numbers(t, 3) if t.strip() else None
            ),
            f"Colour {body}'s contact surface",
            "components in [0, 1]; empty: the contact colour",
        )
        color.setPlaceholderText("default")
        pe._text_field(
            form,
            "Opacity",
            f"{prefix}.opacity",
            fmt(c.opacity),
            lambda t, setter=setter: (lambda v: setter(lambda old: replace(old, opacity=v)))(
                parse_number(t)
            ),
            f"Change {body}'s contact surface opacity",
        )
        remove = QPushButton("Remove this contact surface")
        remove.setObjectName(f"remove_{prefix}")
        remove.clicked.connect(lambda _=False, k=k: _remove(pe, body, k))
        form.addRow("", remove)

    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    shape_box = QComboBox()
    shape_box.setObjectName("new_contact_shape")
    shape_box.addItems([SHAPE_TITLES[s] for s in CONTACT_SHAPES])
    shape_box.setCurrentText(SHAPE_TITLES["sphere"])
    add = QPushButton("Add contact surface")
    add.setObjectName("add_contact_surface")
    add.setToolTip("Add a contact surface of the chosen shape to this body")
    add.clicked.connect(lambda: _add(pe, body, _shape_of(shape_box.currentText())))
    row.addWidget(QLabel("Contact:"))
    row.addWidget(shape_box)
    row.addWidget(add)
    holder = QWidget()
    holder.setLayout(row)
    pe._vbox.addWidget(holder)
    if body == GROUND:
        plane = QPushButton("Add ground contact plane")
        plane.setObjectName("add_ground_plane")
        plane.setToolTip(
            "A contact half space whose surface is the drawn floor (perpendicular to the up "
            "direction, through the origin)"
        )
        plane.clicked.connect(lambda: pe.editor.add_ground_plane())
        pe._vbox.addWidget(plane)


def _mesh_fields(pe, form, body: str, prefix: str, c, setter) -> None:
    """A mesh surface's file, scale and "use convex hull" box. Ticking the box applies the
    file name in the file field too (so a refused open mesh can be taken as its hull)."""
    from app.tree.property_editor import fmt, parse_numbers

    def set_params(**changes):
        return setter(lambda old: replace(old, params={**old.params, **changes}))

    file_edit = pe._text_field(
        form,
        "Mesh file",
        f"{prefix}.file",
        str(c.params.get("file", "")),
        lambda t: set_params(file=t.strip()),
        f"Change {body}'s contact mesh file",
        MESH_FILE_TIP,
    )
    file_edit.setPlaceholderText("choose a mesh file")
    pe._text_field(
        form,
        "Scale (x y z)",
        f"{prefix}.scale",
        fmt(c.params.get("scale", (1.0, 1.0, 1.0))),
        lambda t: set_params(scale=parse_numbers(t, 3)),
        f"Scale {body}'s contact mesh",
        "factors applied to the file's coordinates (non-zero)",
    )
    hull = pe._check_field(
        form,
        "Use convex hull",
        f"{prefix}.convex_hull",
        bool(c.params.get("convex_hull", False)),
        lambda on: set_params(
            convex_hull=on, file=file_edit.text().strip() or c.params.get("file", "")
        ),
        f"Toggle the convex hull of {body}'s contact mesh",
    )
    hull.setToolTip("contact needs a closed mesh: use the convex hull of one that is not")


def contact_settings_form(pe) -> None:
    """The System's contact settings (in the hints form)."""
    from app.tree.property_editor import fmt, parse_number

    s = pe.editor.document.contact
    form = pe._group("Contact")
    pe._text_field(
        form,
        "Transition velocity (m/s)",
        "contact.transition_velocity",
        fmt(s.transition_velocity),
        lambda t: (lambda v: lambda d: d.set_contact_settings(transition_velocity=v))(
            parse_number(t)
        ),
        "Change the contact transition velocity",
        "slip speed below which friction acts as stiction, > 0",
    )
    pe._check_field(
        form,
        "Track dissipated energy",
        "contact.track_dissipated_energy",
        s.track_dissipated_energy,
        lambda on: lambda d: d.set_contact_settings(track_dissipated_energy=on),
        "Toggle tracking the dissipated energy",
    )


def _with_shape(shape: str):
    """A change giving a surface ``shape`` with that shape's default size."""
    return lambda old: replace(old, shape=shape, params=dict(CONTACT_SHAPE_DEFAULTS[shape]))


def _shape_of(title: str) -> str:
    return next(k for k, v in SHAPE_TITLES.items() if v == title)


def _surface_setter(body: str, k: int, change):
    def fn(d):
        surfaces = d.contact_surfaces_of(body)
        surfaces[k] = change(surfaces[k])
        d.set_contact_surfaces(body, surfaces)

    return fn


def _add(pe, body: str, shape: str) -> None:
    surface = ContactSurfaceSpec(shape, dict(CONTACT_SHAPE_DEFAULTS[shape]))
    if shape == "halfspace" and body == GROUND:
        pe.editor.add_ground_plane()
        return
    try:
        pe.editor.edit(
            f"Add contact {SHAPE_TITLES[shape]} to {body}",
            lambda d: d.set_contact_surfaces(body, [*d.contact_surfaces_of(body), surface]),
        )
    except DocumentError as exc:
        pe.editor.report(str(exc))


def _remove(pe, body: str, k: int) -> None:
    def fn(d):
        surfaces = d.contact_surfaces_of(body)
        del surfaces[k]
        d.set_contact_surfaces(body, surfaces)

    pe.editor.edit(f"Remove contact surface from {body}", fn)
