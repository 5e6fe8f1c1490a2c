"""Sources as CSV: one row per source, UTF-8 with a byte-order mark so spreadsheet apps read
non-Latin titles correctly, and cells that a spreadsheet would run as a formula neutralised.
Each row carries its reliability: the score, its label and the reasons, factor by factor."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from research.schemas.state_shapes import Source

COLUMNS = (
    "cited_as",
    "title",
    "authors",
    "year",
    "kind",
    "provider",
    "url",
    "domain",
    "snippet",
    "researcher_id",
    "query",
    "relevance",
    "reliability",
    "reliability_label",
    "reliability_reasons",
    "id",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """The one escaping of a CSV cell (every CSV download uses it): a cell a spreadsheet would run
    as a formula (=, +, -, @, tab, CR first, after any leading spaces) starts with a quote."""
    if value is None or (isinstance(value, float) and value != value):  # None, NaN / pandas NA
        return ""
    if isinstance(value, (int, float)):  # a number (-3, 0.5) is data, not a formula
        return str(value)
    text = str(value)
    if text == "<NA>":
        return ""
    return "'" + text if text.lstrip(" ").startswith(_FORMULA_START) else text


_cell = csv_cell


def render_csv(columns: list[str], rows: Iterable[Iterable[object]]) -> bytes:
    """Any table as CSV (UTF-8 with a byte-order mark), every cell through csv_cell."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_cell(c) for c in columns])
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def render_sources_csv(sources: list[Source], cited_as: dict[str, int]) -> bytes:
    """`cited_as`: source id -> its [n] in the exported draft (empty cell for uncited sources)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for s in sources:
        rating = s.reliability  # None: a run recorded before the signal (empty cells, label "unrated")
        writer.writerow(
            [
                cited_as.get(s.id, ""),
                _cell(s.title),
                _cell("; ".join(s.authors)),
                s.year or "",
                s.kind,
                _cell(s.provider),
                _cell(s.url),
                _cell(s.domain),
                _cell(s.snippet),
                _cell(s.researcher_id),
                _cell(s.query),
                "" if s.relevance is None else s.relevance,
                "" if rating is None else rating.score,
                "unrated" if rating is None else rating.label,
                "" if rating is None else _cell(rating.reasons),
                s.id,
            ]
        )
    return ("\ufeff" + out.getvalue()).encode("utf-8")
