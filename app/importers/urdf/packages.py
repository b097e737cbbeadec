"""Where the files a URDF names (meshes) are: ``package://PKG/rest``, ``file://`` URIs and
relative paths.

A ``package://PKG/rest`` URI is looked up, in order, in the URDF's ancestor directories (one
named PKG, or one that contains a PKG directory), then in each directory of ``package_paths``
(``--package-path``) and of ``ROS_PACKAGE_PATH`` (the directory itself when it is named PKG,
else its PKG subdirectory). Relative paths start at the URDF's directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlparse


class PackageResolver:
    """Resolves the file names of one URDF; ``resolve`` returns (path, searched) where path is
    None when no candidate exists and ``searched`` lists the places tried."""

    def __init__(self, urdf_path: Path, package_paths: Iterable = (), env=None) -> None:
        self.urdf_dir = Path(urdf_path).resolve().parent
        env = os.environ if env is None else env
        dirs = [Path(p) for p in package_paths]
        dirs += [Path(p) for p in env.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if p]
        self.package_paths = dirs

    def _package_candidates(self, package: str, rest: str) -> list[Path]:
        out = []
        for a in (self.urdf_dir, *self.urdf_dir.parents):
            if a.name == package:
                out.append(a / rest)
            out.append(a / package / rest)
        for d in self.package_paths:
            if d.name == package:
                out.append(d / rest)
            out.append(d / package / rest)
        return out

    def resolve(self, uri: str) -> tuple[Path | None, list[Path]]:
        if uri.startswith("package://"):
            package, _, rest = uri[len("package://") :].partition("/")
            candidates = self._package_candidates(package, rest)
        elif uri.startswith("file://"):
            candidates = [Path(unquote(urlparse(uri).path))]
        else:
            p = Path(os.path.expanduser(uri))
            candidates = [p if p.is_absolute() else self.urdf_dir / p]
        for c in candidates:
            if c.is_file():
                return Path(os.path.normpath(c)), candidates
        return None, candidates
