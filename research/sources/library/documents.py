"""The library's document records: one to add, one stored, one found by a search."""

from __future__ import annotations

from dataclasses import dataclass, field

from research.schemas.researchers import ResearcherKind


@dataclass
class NewDocument:
    """A document to add. An empty url gets a stable one derived from title and text."""

    title: str
    text: str
    kind: ResearcherKind
    url: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    publisher: str = ""
    topic: str = ""
    sample: bool = False


@dataclass
class LibraryDocument:
    """A stored document. `text` is filled by search hits and left empty by listings."""

    id: int
    kind: ResearcherKind
    title: str
    url: str
    authors: list[str]
    year: int | None
    publisher: str
    topic: str
    sample: bool
    chars: int
    text: str = ""


@dataclass
class LibraryHit(LibraryDocument):
    """A search result: the document plus its relevance (higher is better)."""

    score: float = 0.0
