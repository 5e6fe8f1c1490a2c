"""Exports of a stored run: its latest draft version as Markdown, DOCX or PDF (with the numbered
Sources list), and its sources as CSV or BibTeX.

    file = export_run(store, run_id, "pdf")      # ExportFile(data=b"...", filename="...pdf", mime=...)

The dashboard's download buttons and `python -m research export` both call this. The writers live
in research/exporting/ (one per format); this module gathers what they need from the run store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from research.drafts.citations import format_source_entry
from research.drafts.inert import inert_markdown
from research.drafts.numbering import SOURCES_SECTION, resolve_numbered_sources
from research.export.bibtex import render_bibtex
from research.export.claims_csv import render_claims_csv
from research.export.docx_writer import render_docx
from research.export.filenames import safe_filename
from research.export.pdf_writer import render_pdf
from research.export.sources_csv import render_sources_csv
from research.runs.store import RunStore
from research.runs.view import fold
from research.schemas.state_shapes import Source

ExportFormat = Literal["md", "docx", "pdf", "csv", "bib", "claims"]


@dataclass(frozen=True)
class FormatInfo:
    label: str
    extension: str
    mime: str
    needs_draft: bool


EXPORT_FORMATS: dict[str, FormatInfo] = {
    "md": FormatInfo("Markdown", "md", "text/markdown", True),
    "docx": FormatInfo("DOCX", "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", True),
    "pdf": FormatInfo("PDF", "pdf", "application/pdf", True),
    "csv": FormatInfo("Sources (CSV)", "csv", "text/csv", False),
    "bib": FormatInfo("BibTeX", "bib", "application/x-bibtex", False),
    "claims": FormatInfo("Claim check (CSV)", "claims.csv", "text/csv", True),
}


class ExportError(ValueError):
    """The run cannot be exported in that format (e.g. it has no draft). The message says why."""


@dataclass
class ExportDocument:
    """What every export of one run needs."""

    run_id: str
    topic: str
    status: str
    markdown: str | None  # the latest draft version (None: the run produced no draft)
    version: int | None
    sources: list[Source] = field(default_factory=list)  # every source the run found, in order
    numbered: dict[int, Source] = field(default_factory=dict)  # [n] of the draft -> source
    started_at: float | None = None
    claim_check: dict[str, Any] = field(default_factory=dict)  # claims_checked data of the latest checked version

    @property
    def cited_as(self) -> dict[str, int]:
        """source id -> its first [n] in the draft."""
        out: dict[str, int] = {}
        for n in sorted(self.numbered):
            out.setdefault(self.numbered[n].id, n)
        return out

    def ordered_sources(self) -> list[Source]:
        """Cited sources in citation order, then the rest in the order they were found."""
        cited = self.cited_as
        return sorted(self.sources, key=lambda s: (s.id not in cited, cited.get(s.id, 0)))


@dataclass(frozen=True)
class ExportFile:
    data: bytes
    filename: str
    mime: str


def load_export_document(store: RunStore, run_id: str) -> ExportDocument:
    """Raises KeyError when the store has no such run."""
    record = store.get_run(run_id)
    if record is None:
        raise KeyError(f"No run with id {run_id!r}")
    view = fold(store.events(run_id))
    sources = []
    for raw in view.sources.values():
        try:
            sources.append(Source.model_validate(raw))
        except ValidationError:
            continue  # a malformed source in an imported log is skipped, not fatal
    latest = store.latest_draft(run_id)
    markdown = latest.markdown if latest else view.draft
    markdown = inert_markdown(markdown) if markdown else markdown  # nothing in an export loads or runs
    numbered = resolve_numbered_sources(markdown, sources, view.citations) if markdown else {}
    if markdown and not SOURCES_SECTION.search(markdown) and view.citations:
        # An edited version lost its Sources list: restore it from the writer's citation map.
        by_id = {s.id: s for s in sources}
        numbered = {int(n): by_id[sid] for n, sid in view.citations.items() if sid in by_id}
        entries = [format_source_entry(n, numbered[n]) for n in sorted(numbered)]
        markdown = markdown.rstrip() + "\n\n## Sources\n\n" + "\n".join(entries) + "\n"
    return ExportDocument(
        run_id=run_id,
        topic=record.topic,
        status=record.status,
        markdown=markdown,
        version=latest.version if latest else None,
        sources=sources,
        numbered=numbered,
        started_at=view.started_ts or record.created_at,
        claim_check=view.claims.model_dump(mode="json") if view.claims else {},
    )


def export_document(doc: ExportDocument, fmt: str, **pdf_options: Any) -> ExportFile:
    """`pdf_options` go to the PDF writer (e.g. fonts=None for core fonts only)."""
    info = EXPORT_FORMATS.get(fmt)
    if info is None:
        raise ExportError(f"unknown export format {fmt!r}: choose one of {', '.join(EXPORT_FORMATS)}")
    if info.needs_draft and not doc.markdown:
        raise ExportError(f"run {doc.run_id} has no draft to export (status: {doc.status})")
    markdown = doc.markdown or ""
    if fmt == "md":
        data = (markdown.rstrip() + "\n").encode("utf-8")
    elif fmt == "docx":
        data = render_docx(markdown, title=doc.topic)
    elif fmt == "pdf":
        data = render_pdf(markdown, title=doc.topic, **pdf_options)
    elif fmt == "claims":
        data = render_claims_csv(doc.claim_check)
    elif fmt == "csv":
        data = render_sources_csv(doc.ordered_sources(), doc.cited_as)
    else:
        data = render_bibtex(doc.ordered_sources(), accessed=doc.started_at).encode("utf-8")
    stem_ext = info.extension if fmt != "csv" else "sources.csv"
    return ExportFile(data=data, filename=safe_filename(doc.topic, stem_ext), mime=info.mime)


def export_run(store: RunStore, run_id: str, fmt: str) -> ExportFile:
    """Raises KeyError (no such run) or ExportError (unknown format, or no draft for md/docx/pdf)."""
    return export_document(load_export_document(store, run_id), fmt)


__all__ = [
    "EXPORT_FORMATS",
    "ExportDocument",
    "ExportError",
    "ExportFile",
    "ExportFormat",
    "FormatInfo",
    "export_document",
    "export_run",
    "load_export_document",
    "safe_filename",
]
