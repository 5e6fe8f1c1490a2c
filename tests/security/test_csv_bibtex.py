"""CSV formula injection (item 8) in every CSV download, and BibTeX specials (item 10), tested by
reading the output back with the real csv module and a real BibTeX parser (bibtexparser)."""

from __future__ import annotations

import csv
import io

import bibtexparser
import pytest

from research.events import Event
from research.export.bibtex import render_bibtex
from research.export.sources_csv import csv_cell, render_sources_csv
from research.runs.view import fold
from research.schemas.state_shapes import Source
from ui.sources_frame import csv_bytes, csv_frame

HOSTILE = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\t=1", ' =HYPERLINK("http://x")']


def _view(titles: list[str]):
    sources = [
        Source(title=t, url=f"https://example.org/{i}", kind="web", provider="p").model_dump()
        for i, t in enumerate(titles)
    ]
    return fold(
        [
            Event(type="run_started", run_id="r", seq=1, data={"topic": "t"}),
            Event(type="sources_found", run_id="r", seq=2, researcher_id="web-1", data={"sources": sources}),
        ]
    )


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


@pytest.mark.parametrize("title", HOSTILE)
def test_the_sources_panel_csv_never_starts_a_cell_with_a_formula(title: str) -> None:
    rows = _rows(csv_bytes(csv_frame(_view([title, "plain"]))))
    header, cells = rows[0], [c for row in rows[1:] for c in row]
    assert "Title" in header
    assert f"'{title}" in cells
    assert not any(c.lstrip(" ").startswith(("=", "+", "@", "\t")) for c in cells)


def test_no_csv_download_bypasses_the_escaping() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(p.relative_to(root))
        for folder in ("ui", "pages")
        for p in (root / folder).rglob("*.py")
        if ".to_csv(" in p.read_text()
    ]
    assert offenders == []


def test_the_export_csv_uses_the_same_cell_escaping() -> None:
    sources = [Source(title=t, kind="web", provider="p") for t in HOSTILE]
    cells = [row[1] for row in _rows(render_sources_csv(sources, {}))[1:]]
    assert cells == [csv_cell(t) for t in HOSTILE]
    assert csv_cell(-3) == "-3" and csv_cell(None) == ""


@pytest.mark.parametrize(
    "title", ["Opening { brace", "Closing } brace", "Both {{ and } then }", "back\\slash {", '% # & $ _ ~ ^ @ " done']
)
def test_bibtex_with_specials_parses_back(title: str) -> None:
    out = render_bibtex(
        [
            Source(
                title=title, url="https://example.org/a{b}", kind="web", provider="p{x", authors=["Ann {Lee"], year=2020
            ),
            Source(title="Second", kind="book", provider="q"),
        ]
    )
    library = bibtexparser.parse_string(out)
    assert not library.failed_blocks and len(library.entries) == 2
    for entry in library.entries:
        for field in entry.fields:
            value = field.value
            # BibTeX itself counts every brace, escaped or not: each field must balance.
            depth = 0
            for ch in value:
                depth += {"{": 1, "}": -1}.get(ch, 0)
                assert depth >= 0, (field.key, value)
            assert depth == 0, (field.key, value)
