"""TriangleMeshContact: a contact involving one or two triangle meshes (Simbody 3.7).

It records, for each surface that is a TriangleMesh, the set of its faces that are at least
partly inside the other surface's undeformed shape (``getSurface1Faces``,
``getSurface2Faces``; empty for a surface that is not a mesh). The ElasticFoundation force
generator puts one spring on each of those faces.
"""

from __future__ import annotations

from engine.contact.contact import Contact


class TriangleMeshContact(Contact):
    """Mesh contact: the faces of each mesh surface that lie (partly) inside the other."""

    TYPE_NAME = "TriangleMesh"

    def __init__(self, surface1, surface2, X_S1S2, faces1=(), faces2=()) -> None:
        super().__init__(surface1, surface2, X_S1S2)
        self._faces1 = frozenset(int(f) for f in faces1)
        self._faces2 = frozenset(int(f) for f in faces2)
        self._depth = 0.0

    def getSurface1Faces(self) -> frozenset:
        """Faces of surface 1 (if it is a mesh) inside surface 2."""
        return self._faces1

    def getSurface2Faces(self) -> frozenset:
        """Faces of surface 2 (if it is a mesh) inside surface 1."""
        return self._faces2


def mesh_contact_from_tracker(s1: int, s2: int, ground: tuple, faces1, faces2):
    """A TriangleMeshContact built from a tracker's Ground-frame arrays (no checks)."""
    contact = TriangleMeshContact.__new__(TriangleMeshContact)
    contact._init_from_tracker(s1, s2, ground)
    contact._faces1 = frozenset(int(f) for f in faces1)
    contact._faces2 = frozenset(int(f) for f in faces2)
    contact._depth = 0.0
    return contact
