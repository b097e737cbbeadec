"""URDF import: ``import_urdf(path) -> ImportResult`` (a ModelData and the findings).

- xml_check.py: well-formed XML, joint types, numbers, tree structure, with line numbers;
- packages.py: ``package://`` and relative file names;
- joints.py: URDF joints to mobilizers and their frames;
- inertia.py: URDF inertials to mass properties about the body origin; checks and fixes;
- geometry.py: visual and collision geometry, meshes, materials;
- convert.py: the whole robot; ``relative_to`` for saving beside the meshes;
- command.py: ``mbstudio import``.
"""

from app.importers.urdf.convert import ImportResult, import_urdf, relative_to
from app.importers.urdf.errors import Finding, UrdfImportError

__all__ = ["Finding", "ImportResult", "UrdfImportError", "import_urdf", "relative_to"]
