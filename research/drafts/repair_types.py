"""What the draft guards removed, so the writer can say so instead of repairing silently."""

from __future__ import annotations

from pydantic import BaseModel, Field


class CitationRepair(BaseModel):
    text: str
    removed: list[int] = Field(default_factory=list)  # [n] that pointed at no given source
    split: list[str] = Field(default_factory=list)  # grouped markers such as "[1, 3]" split into [1][3]
    uncited: list[str] = Field(default_factory=list)  # sentences left without any citation (start of each)


class UrlRepair(BaseModel):
    text: str
    removed: list[str] = Field(default_factory=list)  # URLs, bare domains and DOIs not among the sources
    dropped_sentences: int = 0  # sentences removed because the link was part of their grammar


class DraftRepair(BaseModel):
    text: str
    citations: CitationRepair
    urls: UrlRepair
    markers_removed: int = 0  # internal prompt delimiters (<<<DRAFT>>> ...) taken out

    def warnings(self) -> list[str]:
        """One readable line per kind of repair; empty when the draft needed none."""
        out: list[str] = []
        if self.markers_removed:
            out.append(f"Removed {self.markers_removed} internal prompt marker(s) from the draft.")
        if self.citations.removed:
            line = "Removed citations that matched no source: " + ", ".join(f"[{n}]" for n in self.citations.removed)
            if self.citations.uncited:
                line += "; now uncited: " + "; ".join(f"“{s}”" for s in self.citations.uncited)
            out.append(line + ".")
        if self.citations.split:
            out.append("Split grouped citations into single markers: " + ", ".join(self.citations.split) + ".")
        if self.urls.removed:
            line = "Removed links not among the sources: " + ", ".join(self.urls.removed)
            if self.urls.dropped_sentences:
                line += f" ({self.urls.dropped_sentences} sentence(s) that depended on them dropped)"
            out.append(line + ".")
        return out
