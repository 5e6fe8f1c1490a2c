"""Sources as CSV: one row per source, UTF-8 with a byte-order mark so spreadsheet apps read
non-Latin titles correctly, and cells that a spreadsheet would run as a formula neutralised."""

from __future__ import annotations

import csv
import io

from research.schemas import Source

COLUMNS = (
    "cited_as", "title", "authors", "year", "kind", "provider", "url", "domain", "snippet",
    "researcher_id", "query", "relevance", "id",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def render_sources_csv(sources: list[Source], cited_as: dict[str, int]) -> bytes:
    """`cited_as`: source id -> its [n] in the exported draft (empty cell for uncited sources)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for s in sources:
        writer.writerow([
            cited_as.get(s.id, ""), _cell(s.title), _cell("; ".join(s.authors)), s.year or "", s.kind,
            _cell(s.provider), _cell(s.url), _cell(s.domain), _cell(s.snippet), _cell(s.researcher_id),
            _cell(s.query), "" if s.relevance is None else s.relevance, s.id,
        ])
    return ("\ufeff" + out.getvalue()).encode("utf-8")
