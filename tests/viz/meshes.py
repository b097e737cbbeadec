"""Writers for small mesh files used by the viz tests (a cube centred at the origin)."""

from __future__ import annotations

import itertools

import numpy as np

CUBE_QUADS = [
    (0, 2, 3, 1),  # -x
    (4, 5, 7, 6),  # +x
    (0, 1, 5, 4),  # -y
    (2, 6, 7, 3),  # +y
    (0, 4, 6, 2),  # -z
    (1, 3, 7, 5),  # +z
]


def cube_vertices(half: float) -> np.ndarray:
    """The 8 corners; index = 4*ix + 2*iy + iz with i* in {0: -half, 1: +half}."""
    return np.array(list(itertools.product((-half, half), repeat=3)), dtype=float)


def write_cube_obj(path, half: float) -> str:
    v = cube_vertices(half)
    lines = [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in v]
    lines += ["f " + " ".join(str(i + 1) for i in quad) for quad in CUBE_QUADS]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def write_cube_stl(path, half: float) -> str:
    v = cube_vertices(half)
    out = ["solid cube"]
    for a, b, c, d in CUBE_QUADS:
        for tri in ((a, b, c), (a, c, d)):
            p = v[list(tri)]
            n = np.cross(p[1] - p[0], p[2] - p[0])
            n /= np.linalg.norm(n)
            out.append(f"  facet normal {n[0]:.6f} {n[1]:.6f} {n[2]:.6f}")
            out.append("    outer loop")
            out += [f"      vertex {x:.6f} {y:.6f} {z:.6f}" for x, y, z in p]
            out.append("    endloop")
            out.append("  endfacet")
    out.append("endsolid cube")
    path.write_text("\n".join(out) + "\n")
    return str(path)


def write_cube_vtp(path, half: float) -> str:
    from vtkmodules.vtkFiltersSources import vtkCubeSource
    from vtkmodules.vtkIOXML import vtkXMLPolyDataWriter

    cube = vtkCubeSource()
    cube.SetXLength(2 * half)
    cube.SetYLength(2 * half)
    cube.SetZLength(2 * half)
    writer = vtkXMLPolyDataWriter()
    writer.SetFileName(str(path))
    writer.SetInputConnection(cube.GetOutputPort())
    writer.Write()
    return str(path)
