"""What a URDF import reports: errors that stop it and findings that do not."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One problem found in a URDF: ``element`` names it (e.g. ``link 'base'``), ``line`` is its
    line in the file (0 when unknown), ``fixable`` says whether ``--fix-inertias`` repairs it."""

    element: str
    message: str
    line: int = 0
    fixable: bool = False

    def __str__(self) -> str:
        where = f"{self.element} (line {self.line})" if self.line else self.element
        return f"{where}: {self.message}"


class UrdfImportError(ValueError):
    """A URDF that cannot be imported; ``findings`` lists every reason with element and line."""

    def __init__(self, path, findings: list[Finding]) -> None:
        self.path = str(path)
        self.findings = list(findings)
        lines = "\n".join(f"  {f}" for f in self.findings)
        super().__init__(f"{self.path}: cannot import:\n{lines}")

    @property
    def fixable(self) -> bool:
        """True when every finding would be repaired by importing with fix_inertias."""
        return bool(self.findings) and all(f.fixable for f in self.findings)
