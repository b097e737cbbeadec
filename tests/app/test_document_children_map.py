"""The document's children map after adding and removing bodies: the same as one made from
the new content's bodies, and handed to the edit's listeners without being made again."""

from __future__ import annotations

from app.document import ModelData, ModelDocument
from app.document.examples import rod_body

# Ground - a - b - c,  a - d - e,  Ground - f
TREE = [("a", "Ground"), ("b", "a"), ("c", "b"), ("d", "a"), ("e", "d"), ("f", "Ground")]


def tree_doc() -> ModelDocument:
    data = ModelData("tree", [rod_body(n, p, 0.5, 1.0) for n, p in TREE])
    return ModelDocument(data)


def fresh_map(doc: ModelDocument) -> dict[str, list[str]]:
    """The children map made from scratch (a new document of the same content)."""
    other = ModelDocument(doc.data, validated=True)
    return {p: other.children(p) for p in ["Ground", *other.body_names()]}


def shown_map(doc: ModelDocument) -> dict[str, list[str]]:
    return {p: doc.children(p) for p in ["Ground", *doc.body_names()]}


class MapRebuilds:
    """Counts how often a document's children map is made from all its bodies while a
    listener asks for descendants during each edit (as the body form does)."""

    def __init__(self, doc: ModelDocument) -> None:
        self.doc = doc
        self.made = 0
        self.seen: list[list[str]] = []
        made_from_bodies = ModelDocument._children_map

        def counting(inner) -> dict[str, list[str]]:
            cache = inner._children_cache
            if inner is doc and (cache is None or cache[0] is not inner._data):
                self.made += 1
            return made_from_bodies(inner)

        self._patch = counting
        doc.add_listener(lambda change: self.seen.append(doc.descendants("a")))


def test_children_after_removals_and_additions_equal_a_fresh_map(monkeypatch):
    doc = tree_doc()
    counter = MapRebuilds(doc)
    monkeypatch.setattr(ModelDocument, "_children_map", counter._patch)
    doc.descendants("a")  # the map of the first content
    counter.made = 0
    edits = [
        lambda: doc.remove_body("c"),  # a leaf
        lambda: doc.add_body(rod_body("g", "b", 0.5, 1.0)),  # appended
        lambda: doc.remove_body("d"),  # a subtree (d, e)
        lambda: doc.add_body(rod_body("h", "Ground", 0.5, 1.0)),
        lambda: doc.remove_body("a"),  # the parent of everything but f and h
    ]
    for edit in edits:
        edit()
        assert shown_map(doc) == fresh_map(doc)
    assert counter.made == 0
    assert counter.seen == [["b", "d", "e"], ["b", "d", "g", "e"], ["b", "g"], ["b", "g"], []]
    assert doc.children("Ground") == ["f", "h"]


def test_a_body_inserted_before_others_gets_its_place_among_its_siblings():
    doc = tree_doc()
    doc.descendants("a")
    doc.add_body(rod_body("g", "a", 0.5, 1.0), index=1)  # before b and d
    assert doc.children("a") == ["g", "b", "d"]
    assert shown_map(doc) == fresh_map(doc)


def test_an_edit_that_keeps_the_parents_keeps_the_map_and_skips_the_tree_checks(monkeypatch):
    """A body's mass or mobilizer changed: the map is carried over (not made from every
    body) and the names and parents are not checked again (the same as before the edit);
    a new parent makes both again, and a loop is still refused."""
    import pytest

    from app.document import DocumentError, validation

    doc = tree_doc()
    counter = MapRebuilds(doc)
    monkeypatch.setattr(ModelDocument, "_children_map", counter._patch)
    parents_checked: list[int] = []
    real_check = validation.check_parents
    monkeypatch.setattr(
        validation, "check_parents", lambda data: (parents_checked.append(1), real_check(data))
    )
    doc.descendants("a")
    counter.made = 0
    doc.set_body("d", mass=0.5)
    doc.set_body("b", mobilizer="Ball")
    assert counter.made == 0 and parents_checked == []
    assert shown_map(doc) == fresh_map(doc)
    doc.set_body("e", parent="b")
    assert parents_checked == [1] and shown_map(doc) == fresh_map(doc)
    with pytest.raises(DocumentError, match="own ancestor"):
        doc.set_body("a", parent="e")
    assert doc.body("a").parent == "Ground"


def test_a_rename_carries_the_map_over_under_the_new_name(monkeypatch):
    """A renamed body (a parent, a leaf, a body under Ground) is in the carried map under its
    new name, in its parent's list and as its children's parent: the same as a map made
    afresh, and not made from every body by the listeners asking for descendants."""
    doc = tree_doc()
    counter = MapRebuilds(doc)
    monkeypatch.setattr(ModelDocument, "_children_map", counter._patch)
    doc.descendants("a")
    counter.made = 0
    doc.rename_body("d", "dee")  # a's second child, e's parent
    assert shown_map(doc) == fresh_map(doc)
    assert doc.children("a") == ["b", "dee"] and doc.children("dee") == ["e"]
    doc.rename_body("e", "ee")  # a leaf
    doc.rename_body("a", "root")  # Ground's child, the parent of b and dee
    doc.rename_body("f", "a")  # a freed name taken again
    assert shown_map(doc) == fresh_map(doc)
    assert doc.children("Ground") == ["root", "a"] and doc.descendants("a") == []
    assert doc.descendants("root") == ["b", "dee", "c", "ee"]
    assert counter.made == 0
    assert counter.seen == [["b", "dee", "c", "e"], ["b", "dee", "c", "ee"], [], []]
