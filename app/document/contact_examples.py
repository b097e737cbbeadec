# ruff: noqa: N806  (Simbody monogram names)
"""The contact examples: bouncing balls, a sphere that slides then rolls, a box on a plane
that tilts until it slides, Newton's cradle. Each uses Simbody's compliant contact (Hertz for
spheres, the brick penalty for the box) with a ground half space under the drawn floor.

Units: m, kg, s; stiffness in Pa, dissipation in s/m. Up is +Y in every example.
"""

from __future__ import annotations

from app.document.specs import (
    GROUND,
    BodySpec,
    ContactMaterialSpec,
    ContactSurfaceSpec,
    FrameSpec,
    GeometrySpec,
    Hints,
    ModelData,
    ground_plane_frame,
)

#: the floor: much stiffer than the objects, so a contact's stiffness and dissipation are
#: about the object's own (Simbody combines the two materials' stiffnesses in series and
#: weights their dissipations by the other's stiffness)
FLOOR = ContactMaterialSpec(
    stiffness=1e9, dissipation=0.0, static_friction=0.8, dynamic_friction=0.6
)


def ground_plane(material: ContactMaterialSpec = FLOOR) -> ContactSurfaceSpec:
    """The half space below the drawn floor (up +Y)."""
    return ContactSurfaceSpec("halfspace", {}, ground_plane_frame("+Y"), material)


def gravity(g: float = 9.81):
    from app.document.examples import gravity as make

    return make(g)


def solid_sphere_inertia(mass: float, radius: float) -> tuple[float, ...]:
    i = 0.4 * mass * radius**2
    return (i, i, i, 0.0, 0.0, 0.0)


def free_q(position, quaternion=(1.0, 0.0, 0.0, 0.0)) -> tuple[float, ...]:
    """q of a Free mobilizer: orientation quaternion then position (m) in the parent."""
    return (*(float(v) for v in quaternion), *(float(v) for v in position))


def ball(
    name: str,
    position,
    radius: float,
    mass: float,
    material: ContactMaterialSpec,
    color,
    u=None,
) -> BodySpec:
    """A free solid ball whose contact sphere is also what is drawn."""
    return BodySpec(
        name=name,
        parent=GROUND,
        mobilizer="Free",
        mass=mass,
        inertia=solid_sphere_inertia(mass, radius),
        q=free_q(position),
        u=None if u is None else tuple(float(v) for v in u),
        contact_surfaces=(
            ContactSurfaceSpec("sphere", {"radius": radius}, material=material, color=color),
        ),
    )


def bouncing_balls() -> ModelData:
    """Three balls dropped from 1 m side by side; only their dissipation c differs (0.025,
    0.1 and 0.5 s/m), so they bounce back high, half way and low (restitution about
    1 - 0.8 c v at an impact speed v of 4.4 m/s, for small c v)."""
    radius, mass = 0.1, 1.0
    bodies = []
    for k, (c, color) in enumerate(
        ((0.025, (0.2, 0.75, 0.3)), (0.1, (0.95, 0.75, 0.15)), (0.5, (0.85, 0.25, 0.2)))
    ):
        material = ContactMaterialSpec(
            stiffness=1e7, dissipation=c, static_friction=0.5, dynamic_friction=0.4
        )
        bodies.append(
            ball(f"ball_c{c:g}", ((k - 1) * 0.5, 1.0 + radius, 0.0), radius, mass, material, color)
        )
    return ModelData(
        "Bouncing balls",
        bodies,
        forces=[gravity()],
        hints=Hints(time_scale=1.0, length_scale=1.0, show_default_geometry=False),
        ground_contact_surfaces=[ground_plane()],
    )


#: launch speed of the sliding sphere (m/s) and its friction coefficients
ROLLING_V0 = 2.0


def sliding_to_rolling() -> ModelData:
    """A ball launched along +x at 2 m/s without spin down a lane: friction slows it and
    spins it up until it rolls, at 5/7 of the launch speed (the plot shows vx falling to
    about 1.43 m/s; the spin rate reaches -vx / r)."""
    radius, mass = 0.1, 1.0
    material = ContactMaterialSpec(
        stiffness=1e7, dissipation=1.0, static_friction=0.3, dynamic_friction=0.3
    )
    floor = ContactMaterialSpec(
        stiffness=1e9, dissipation=1.0, static_friction=0.3, dynamic_friction=0.3
    )
    sphere = ball(
        "ball",
        (-1.5, radius - 1.5e-4, 0.0),
        radius,
        mass,
        material,
        (0.2, 0.45, 0.85),
        u=(0.0, 0.0, 0.0, ROLLING_V0, 0.0, 0.0),
    )
    # two white dots on the ball's equator show its spin
    dots = tuple(
        GeometrySpec("sphere", {"radius": 0.025}, FrameSpec((s * 0.085, 0.0, 0.03)), (1, 1, 1))
        for s in (-1.0, 1.0)
    )
    sphere = BodySpec(**{**sphere.__dict__, "geometry": dots})
    lane = GeometrySpec(
        "brick",
        {"half_lengths": (2.6, 0.001, 0.2)},
        FrameSpec((1.0, 0.001, 0.0)),
        (0.98, 0.85, 0.65),
    )
    return ModelData(
        "Sliding to rolling",
        [sphere],
        ground_geometry=[lane],
        forces=[gravity()],
        hints=Hints(time_scale=1.0, length_scale=1.0, show_default_geometry=False),
        ground_contact_surfaces=[ground_plane(floor)],
    )


#: tilting rate of the plane (rad/s) and the box's static friction coefficient
TILT_RATE = 0.12
BOX_STATIC_FRICTION = 0.5


def tilting_plane() -> ModelData:
    """A box resting on a plane that tilts slowly (a Pin with a heavy flywheel turning at
    0.12 rad/s): the box sticks until tan(tilt) exceeds its static friction 0.5 (about 27
    degrees, near t = 3.9 s), then slides down."""
    half = (0.1, 0.08, 0.1)
    plate_half = (1.5, 0.02, 0.5)
    plate_material = ContactMaterialSpec(
        stiffness=1e9, dissipation=1.0, static_friction=0.6, dynamic_friction=0.5
    )
    plate = BodySpec(
        name="plane",
        parent=GROUND,
        mobilizer="Pin",
        X_PF=FrameSpec((0.0, 0.6, 0.0)),
        mass=1000.0,
        inertia=(1e4, 1e4, 1e4, 0.0, 0.0, 0.0),
        geometry=(
            GeometrySpec(
                "brick",
                {"half_lengths": plate_half},
                FrameSpec((0.0, -plate_half[1], 0.0)),
                (0.72, 0.76, 0.8),
            ),
        ),
        u=(TILT_RATE,),
        contact_surfaces=(
            ContactSurfaceSpec(
                "halfspace", {}, ground_plane_frame("+Y"), plate_material, show=False
            ),
        ),
    )
    # a brick on a half space is a penalty contact: stiffness per touching vertex, N/m
    box_material = ContactMaterialSpec(
        stiffness=1e5,
        dissipation=1.0,
        static_friction=BOX_STATIC_FRICTION,
        dynamic_friction=0.3,
    )
    mass = 1.0
    moments = tuple(
        mass / 3.0 * (half[(i + 1) % 3] ** 2 + half[(i + 2) % 3] ** 2) for i in range(3)
    )
    box = BodySpec(
        name="box",
        parent=GROUND,
        mobilizer="Free",
        mass=mass,
        inertia=(*moments, 0.0, 0.0, 0.0),
        q=free_q((0.0, 0.6 + half[1] - 2.5e-5, 0.0)),
        contact_surfaces=(
            ContactSurfaceSpec(
                "brick", {"half_lengths": half}, material=box_material, color=(0.8, 0.45, 0.15)
            ),
        ),
    )
    stand = GeometrySpec(
        "cylinder",
        {"radius": 0.05, "half_height": 0.3},
        FrameSpec((0.0, 0.3, -0.55)),
        (0.3, 0.3, 0.3),
    )
    return ModelData(
        "Box on a tilting plane",
        [plate, box],
        ground_geometry=[stand],
        forces=[gravity()],
        hints=Hints(time_scale=1.0, length_scale=1.0, show_default_geometry=False),
    )


def newtons_cradle(n: int = 5, pulled: float = -0.55) -> ModelData:
    """Five steel-like balls on pins, touching in a row; the first is pulled back and
    released: the impulse passes down the row and the last ball swings out (elastic
    sphere-sphere Hertz contact, no dissipation)."""
    radius, length, mass = 0.1, 0.8, 1.0
    height = 1.2
    material = ContactMaterialSpec(
        stiffness=5e8, dissipation=0.0, static_friction=0.0, dynamic_friction=0.0
    )
    bodies = []
    bar = []
    for k in range(n):
        x = (k - (n - 1) / 2) * 2 * radius
        com = (0.0, -length, 0.0)
        i = 0.4 * mass * radius**2
        bodies.append(
            BodySpec(
                name=f"ball{k + 1}",
                parent=GROUND,
                mobilizer="Pin",
                X_PF=FrameSpec((x, height, 0.0)),
                mass=mass,
                com=com,
                inertia=(i + mass * length**2, i, i + mass * length**2, 0.0, 0.0, 0.0),
                geometry=(
                    GeometrySpec(
                        "cylinder",
                        {"radius": 0.006, "half_height": (length - radius) / 2},
                        FrameSpec((0.0, -(length - radius) / 2, 0.0)),
                        (0.35, 0.35, 0.35),
                    ),
                ),
                q=(pulled,) if k == 0 else None,
                contact_surfaces=(
                    ContactSurfaceSpec(
                        "sphere",
                        {"radius": radius},
                        FrameSpec(com),
                        material,
                        color=(0.75, 0.78, 0.82),
                    ),
                ),
            )
        )
        bar.append(x)
    frame = GeometrySpec(
        "brick",
        {"half_lengths": ((n + 1) * radius, 0.015, 0.05)},
        FrameSpec((0.0, height + 0.015, 0.0)),
        (0.3, 0.3, 0.3),
    )
    posts = [
        GeometrySpec(
            "cylinder",
            {"radius": 0.02, "half_height": height / 2},
            FrameSpec((s * (n + 1) * radius, height / 2, 0.0)),
            (0.3, 0.3, 0.3),
        )
        for s in (-1.0, 1.0)
    ]
    return ModelData(
        "Newton's cradle",
        bodies,
        ground_geometry=[frame, *posts],
        forces=[gravity()],
        hints=Hints(time_scale=1.0, length_scale=1.0, show_default_geometry=False),
    )


def add_ragdoll_contact(data: ModelData) -> ModelData:
    """The ragdoll with a ground plane and contact shapes on its bodies (all in one clique,
    so the limbs pass through each other and only touch the floor): its ellipsoids and the
    head sphere become contact surfaces, each limb gets an ellipsoid along it and each shin a
    brick foot."""
    from dataclasses import replace

    skin = ContactMaterialSpec(
        stiffness=3e6, dissipation=2.0, static_friction=0.9, dynamic_friction=0.7
    )
    # a brick on a half space is a penalty contact: stiffness per touching vertex, N/m
    sole = replace(skin, stiffness=3e5)
    clique = ("ragdoll",)
    bodies = []
    for b in data.bodies:
        surfaces = []
        for g in b.geometry:
            if g.kind == "ellipsoid":
                surfaces.append(
                    ContactSurfaceSpec("ellipsoid", dict(g.params), g.X, skin, clique, show=False)
                )
            elif g.kind == "sphere":
                surfaces.append(
                    ContactSurfaceSpec("sphere", dict(g.params), g.X, skin, clique, show=False)
                )
            elif g.kind == "cylinder":
                r, h = g.params["radius"], g.params["half_height"]
                surfaces.append(
                    ContactSurfaceSpec(
                        "ellipsoid", {"radii": (r, h + r, r)}, g.X, skin, clique, show=False
                    )
                )
        geometry = list(b.geometry)
        if b.name.endswith("_shin"):
            length = 2 * b.geometry[0].params["half_height"]
            foot = FrameSpec((0.0, -length - 0.03, 0.06))
            half = (0.05, 0.03, 0.11)
            geometry.append(GeometrySpec("brick", {"half_lengths": half}, foot, (0.2, 0.2, 0.22)))
            surfaces.append(
                ContactSurfaceSpec("brick", {"half_lengths": half}, foot, sole, clique, show=False)
            )
        bodies.append(replace(b, geometry=tuple(geometry), contact_surfaces=tuple(surfaces)))
    out = data.copy()
    out.bodies = bodies
    out.ground_contact_surfaces = [ground_plane()]
    return out


CONTACT_BUILDERS = {
    "bouncing_balls": bouncing_balls,
    "sliding_to_rolling": sliding_to_rolling,
    "tilting_plane": tilting_plane,
    "newtons_cradle": newtons_cradle,
}

__all__ = [
    "CONTACT_BUILDERS",
    "add_ragdoll_contact",
    "bouncing_balls",
    "ground_plane",
    "newtons_cradle",
    "sliding_to_rolling",
    "tilting_plane",
]
