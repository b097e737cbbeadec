"""``mbstudio import ROBOT.urdf --out ROBOT.mbs.json``: convert a URDF into a model file.

Mesh file names in the written model are relative to its directory. An existing file is
never overwritten without ``--force``. Findings that do not stop the import (missing meshes,
tiny masses) are printed; exit status 1 when the URDF cannot be imported, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli import PROG, register_command


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("urdf", type=Path, metavar="ROBOT.urdf", help="the URDF file to import")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="MODEL.mbs.json",
        help="model file to write (default: ROBOT.mbs.json in the current directory)",
    )
    parser.add_argument(
        "--floating",
        action="store_true",
        help="give the root link a free (6-dof) joint instead of welding it to the ground",
    )
    parser.add_argument(
        "--package-path",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="where to look for package:// files (repeatable; ROS_PACKAGE_PATH is also used)",
    )
    parser.add_argument(
        "--height",
        type=float,
        default=0.0,
        metavar="Z",
        help="place the root link's origin Z metres above the ground (default 0)",
    )
    parser.add_argument(
        "--fix-inertias",
        action="store_true",
        help="repair non-physical inertias and raise tiny masses instead of refusing them",
    )
    parser.add_argument(
        "--copy-meshes",
        action="store_true",
        help="copy the meshes (and the description's licence files) into meshes/ beside the "
        "model file",
    )
    parser.add_argument(
        "--reduce",
        type=float,
        metavar="FRACTION",
        help="with --copy-meshes: keep about this fraction of each mesh's triangles "
        "(written as STL)",
    )
    parser.add_argument(
        "--contact",
        action="store_true",
        help="turn each link's <collision> geometry into contact surfaces (one clique: the "
        "robot does not collide with itself) and add a ground contact plane",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing model file")


def run(args: argparse.Namespace) -> int:
    out: Path = args.out if args.out is not None else Path(args.urdf.stem + ".mbs.json")
    if not args.urdf.is_file():
        print(f"{PROG} import: no such file: {args.urdf}", file=sys.stderr)
        return 2
    if args.reduce is not None and not (0 < args.reduce < 1 and args.copy_meshes):
        print(f"{PROG} import: --reduce needs --copy-meshes and 0 < FRACTION < 1", file=sys.stderr)
        return 2
    if out.exists() and not args.force:
        print(
            f"{PROG} import: {out} exists; use --force to overwrite it (nothing was written)",
            file=sys.stderr,
        )
        return 2
    from app.document import model_io
    from app.importers.urdf import UrdfImportError, import_urdf, relative_to

    try:
        result = import_urdf(
            args.urdf,
            floating=args.floating,
            package_paths=args.package_path,
            fix_inertias=args.fix_inertias,
            height=args.height,
        )
    except UrdfImportError as exc:
        print(f"{PROG} import: {exc}", file=sys.stderr)
        if exc.fixable:
            print("  (--fix-inertias repairs these)", file=sys.stderr)
        return 1
    for f in result.warnings:
        print(f"warning: {f}", file=sys.stderr)
    if result.fixable:
        print("  (--fix-inertias raises the tiny masses)", file=sys.stderr)
    for f in result.fixed:
        print(f"fixed: {f}", file=sys.stderr)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.copy_meshes:
        from app.importers.urdf.bundle import bundle_meshes

        bundle_meshes(result, out.parent, reduce=args.reduce)
    if args.contact:
        from app.importers.urdf.contact import add_collision_contact

        result.data, notes = add_collision_contact(result.data)
        for f in notes:
            print(f"contact: {f}", file=sys.stderr)
    model_io.save(relative_to(result.data, out.parent), out)
    data = result.data
    dofs = sum(1 for b in data.bodies if b.mobilizer != "Weld")
    print(
        f"{PROG} import: wrote {out}: {len(data.bodies)} bodies ({dofs} moving), "
        f"{len(result.meshes)} mesh files, {len(result.warnings)} warnings"
        + (
            f", {sum(len(b.contact_surfaces) for b in data.bodies)} contact surfaces"
            if args.contact
            else ""
        )
    )
    return 0


register_command("import", "convert a URDF robot description into a model file", configure, run)
