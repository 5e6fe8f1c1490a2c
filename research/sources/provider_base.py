"""The interface every source provider implements, and what a retrieval returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import DroppedSource, RunWarning, Source


class ProviderError(Exception):
    """A provider could not answer (network, HTTP status, malformed reply). Becomes a warning."""

    def __init__(self, provider: str, message: str) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.message = message


@dataclass
class Retrieval:
    """Sources for one query, their full texts (kept out of graph state) and any warnings."""

    sources: list[Source] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    warnings: list[RunWarning] = field(default_factory=list)
    providers_used: list[str] = field(default_factory=list)
    off_topic: int = 0  # results dropped because they are not about the run's subject
    dropped: list[DroppedSource] = field(default_factory=list)  # those results, each with its reason

    def extend(self, other: Retrieval) -> None:
        self.sources.extend(other.sources)
        self.texts.update(other.texts)
        self.warnings.extend(other.warnings)
        self.off_topic += other.off_topic
        self.dropped.extend(other.dropped)
        self.providers_used.extend(p for p in other.providers_used if p not in self.providers_used)


@runtime_checkable
class SourceProvider(Protocol):
    """One external service (or the local library) for one researcher kind.

    `search` returns sources (and full texts where the service gives them) or raises
    ProviderError. An empty result is a normal answer, not an error.
    """

    name: str
    kind: ResearcherKind

    def search(self, query: str, *, limit: int) -> Retrieval: ...
