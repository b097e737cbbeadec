"""The code's references to design notes point at pages and sections that exist in the
repository: docstrings cite ``docs/<page>.md §N``, and nothing cites the reference data's
notes, which live outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [p for d in ("engine", "viz", "app") for p in sorted((ROOT / d).rglob("*.py"))]
CITATION = re.compile(r"docs/([\w-]+\.md)(?: §(\d+))?")


def _sections(page: Path) -> set[str]:
    return set(re.findall(r"^## (\d+)\.", page.read_text(), flags=re.MULTILINE))


def test_every_cited_page_and_section_exists():
    missing = []
    for path in SOURCES:
        for line_no, line in enumerate(path.read_text().splitlines(), 1):
            for page_name, section in CITATION.findall(line):
                page = ROOT / "docs" / page_name
                where = f"{path.relative_to(ROOT)}:{line_no}"
                if not page.is_file():
                    missing.append(f"{where}: docs/{page_name} does not exist")
                elif section and section not in _sections(page):
                    missing.append(f"{where}: docs/{page_name} has no section {section}")
    assert not missing, "\n".join(missing)


def test_no_source_cites_notes_outside_the_repository():
    outside = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in SOURCES
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "CONVENTIONS.md" in line or "shared/reference" in line
    ]
    assert not outside, "cite docs/conventions.md instead:\n" + "\n".join(outside)
