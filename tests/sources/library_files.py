"""Files to import in the library tests, and the one document an import leaves."""

from __future__ import annotations

from pathlib import Path

import docx

from research.sources.library.documents import LibraryDocument
from research.sources.library.library_store import Library


def only_document(library: Library) -> LibraryDocument:
    [doc] = library.list_documents()
    found = library.get_document(doc.id)
    assert found is not None
    return found


def write_docx(path: Path, paragraph: str, *, title: str | None = None, author: str | None = None) -> Path:
    """A Word file of one paragraph; core properties not given keep python-docx's defaults."""
    document = docx.Document()
    if title is not None:
        document.core_properties.title = title
    if author is not None:
        document.core_properties.author = author
    document.add_paragraph(paragraph)
    document.save(str(path))
    return path
