"""Exports: every format opened back and checked for the draft's headings and citations; drafts
with tables, long URLs and non-Latin text; safe file names; BibTeX escaping; CSV safety."""

from __future__ import annotations

import csv
import io
import re

import docx
import pytest
from pypdf import PdfReader

from research.drafts.numbering import source_entries
from research.export.bibtex import bibtex_escape, citation_key, render_bibtex
from research.export.filenames import safe_filename
from research.export.pdf_fonts import find_fonts
from research.export.run_export import ExportDocument, ExportError, export_document, export_run, load_export_document
from research.export.sources_csv import render_sources_csv
from research.schemas.state_shapes import Source

LONG_URL = "https://example.org/archive/" + "segment-" * 34 + "end"  # 300+ characters, no spaces
assert len(LONG_URL) >= 300


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def draft_headings(markdown: str) -> list[str]:
    return [m.group(2) for m in re.finditer(r"^(#{1,3})\s+(.+)$", markdown, re.M)]


# --- the run's own draft ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def doc(finished) -> ExportDocument:
    runner, run_id = finished
    return load_export_document(runner.store, run_id)


def test_markdown_export_is_the_latest_version_with_its_sources_list(finished, doc) -> None:
    runner, run_id = finished
    file = export_run(runner.store, run_id, "md")
    assert file.filename == "how-do-mrna-vaccines-work.md" and file.mime == "text/markdown"
    text = file.data.decode("utf-8")
    assert text.strip() == runner.store.latest_draft(run_id).markdown.strip()
    assert "## Sources" in text and re.search(r"\[1\]", text)


def test_docx_opens_with_the_drafts_headings_citations_and_sources(doc) -> None:
    file = export_document(doc, "docx")
    document = docx.Document(io.BytesIO(file.data))
    headings = [p.text for p in document.paragraphs if p.style.name.startswith("Heading")]
    assert headings == draft_headings(doc.markdown)
    body = "\n".join(p.text for p in document.paragraphs)
    cited = sorted({int(n) for n in re.findall(r"\[(\d+)\]", doc.markdown.split("## Sources")[0])})
    assert cited and all(f"[{n}]" in body for n in cited)
    # Every Sources entry is its own paragraph (the draft has no blank lines between them).
    entries = [p.text for p in document.paragraphs if re.match(r"\[\d+\] ", p.text)]
    assert len(entries) == len(source_entries(doc.markdown))
    assert all(doc.numbered[int(e[1 : e.index("]")])].url in e for e in entries)
    assert document.core_properties.title == doc.topic


def test_pdf_opens_with_the_drafts_headings_citations_and_sources(doc) -> None:
    file = export_document(doc, "pdf")
    assert file.data.startswith(b"%PDF") and file.filename.endswith(".pdf")
    text = squash(pdf_text(file.data))
    for heading in draft_headings(doc.markdown):
        assert squash(heading) in text, heading
    for n, source in doc.numbered.items():
        assert f"[{n}]" in text and squash(source.title) in text
    assert PdfReader(io.BytesIO(file.data)).metadata.title == doc.topic


def test_sources_csv_lists_every_source_cited_ones_first_with_their_numbers(doc) -> None:
    data = export_document(doc, "csv").data
    assert data.startswith("\ufeff".encode())  # spreadsheet apps then read UTF-8 correctly
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert {r["id"] for r in rows} == {s.id for s in doc.sources}
    cited = [r for r in rows if r["cited_as"]]
    assert [int(r["cited_as"]) for r in cited] == sorted(doc.numbered)
    assert rows[: len(cited)] == cited
    for row in cited:
        assert doc.numbered[int(row["cited_as"])].title == row["title"]


def test_sources_csv_carries_each_sources_reliability_and_its_reasons(doc) -> None:
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(export_document(doc, "csv").data.decode("utf-8-sig")))}
    rated = [s for s in doc.sources if s.reliability is not None]
    assert rated, "the sample library's sources are scored by the router"
    for source in rated:
        row, rating = rows[source.id], source.reliability
        assert float(row["reliability"]) == rating.score and row["reliability_label"] == rating.label
        assert row["reliability_reasons"] == rating.reasons  # each factor's reason and points
    # A source recorded before the signal: empty score and reasons, labelled as the table labels it.
    unrated = doc.sources[0].model_copy(update={"reliability": None})
    [row] = list(csv.DictReader(io.StringIO(render_sources_csv([unrated], {}).decode("utf-8-sig"))))
    assert (row["reliability"], row["reliability_label"], row["reliability_reasons"]) == ("", "unrated", "")


def test_bibtex_has_one_entry_per_source_typed_by_kind(doc) -> None:
    text = export_document(doc, "bib").data.decode("utf-8")
    entries = re.findall(r"^@(\w+)\{([^,]+),", text, re.M)
    assert len(entries) == len(doc.sources)
    kinds = {"web": "online", "academic": "article", "book": "book"}
    assert [t for t, _ in entries] == [kinds[s.kind] for s in doc.ordered_sources()]
    keys = [k for _, k in entries]
    assert len(set(keys)) == len(keys) and all(re.fullmatch(r"[a-z0-9]+", k) for k in keys)


def test_a_run_without_a_draft_cannot_be_exported_as_a_document(runner) -> None:
    from research.schemas.state_shapes import ResearchRequest

    run_id = runner.create(ResearchRequest(topic="An unfinished run"))
    with pytest.raises(ExportError, match="no draft"):
        export_run(runner.store, run_id, "pdf")
    assert export_run(runner.store, run_id, "csv").data.decode("utf-8-sig").startswith("cited_as,")
    with pytest.raises(ExportError, match="unknown export format"):
        export_run(runner.store, run_id, "xls")
    with pytest.raises(KeyError):
        export_run(runner.store, "nope", "md")


# --- drafts that break other tools' exports ---------------------------------------------------------

NASTY_MARKDOWN = f"""# Исследование: 東京 and Москва

## Summary

Русский текст о вакцинах [1]. 中文文本：东京的研究 [2]. Arabic: مرحبا بالعالم. Emoji 😀 🚀 ❤️.
A bare long link: {LONG_URL}

| Город | Link | n |
|---|---|---|
| Москва | {LONG_URL} | 1 |
| 东京 | short \\| piped | 2 |

- **bold** item with `code` and _italic_
- item with control char \x01 inside

## Sources

[1] Вакцины и иммунитет. Иван Петров. 2021. web, library. <{LONG_URL}>
[2] 东京研究. 2020. book, library. <https://example.cn/书>
"""


@pytest.fixture
def nasty() -> ExportDocument:
    sources = [
        Source(
            title="Вакцины и иммунитет",
            url=LONG_URL,
            kind="web",
            provider="library",
            authors=["Иван Петров"],
            year=2021,
        ),
        Source(title="东京研究", url="https://example.cn/书", kind="book", provider="library", year=2020),
        Source(title='=HYPERLINK("http://evil")', url="https://e.org/x", kind="academic", provider="openalex"),
    ]
    return ExportDocument(
        run_id="r1",
        topic="東京 / Москва: ../../etc",
        status="finished",
        markdown=NASTY_MARKDOWN,
        version=1,
        sources=sources,
        numbered={1: sources[0], 2: sources[1]},
    )


def test_tables_long_urls_and_non_latin_text_export_to_every_format(nasty) -> None:
    files = {fmt: export_document(nasty, fmt) for fmt in ("md", "docx", "pdf", "csv", "bib")}
    assert all(f.data for f in files.values())
    assert all("/" not in f.filename and f.filename.isascii() for f in files.values())

    assert files["md"].data.decode("utf-8") == NASTY_MARKDOWN.rstrip() + "\n"

    document = docx.Document(io.BytesIO(files["docx"].data))
    body = "\n".join(p.text for p in document.paragraphs)
    assert "Русский текст о вакцинах [1]" in body and "中文文本：东京的研究 [2]" in body and "مرحبا" in body
    table = document.tables[0]
    assert [c.text for c in table.rows[1].cells] == ["Москва", LONG_URL, "1"]
    assert table.rows[2].cells[1].text == "short | piped"
    assert "\x01" not in body  # XML forbids it; the export drops it instead of failing
    links = {r.target_ref for r in document.part.rels.values() if r.reltype.endswith("/hyperlink")}
    assert LONG_URL in links  # a real, clickable hyperlink

    text = pdf_text(files["pdf"].data)
    flat = squash(text)
    assert "Русскийтекстовакцинах[1]" in flat and "Москва" in flat
    assert squash(LONG_URL) in flat  # wrapped mid-word, but all there
    assert "short|piped" in flat
    cjk_font = find_fonts() is not None and find_fonts().fallbacks
    if cjk_font:
        assert "东京的研究" in flat
    else:  # no CJK font on this machine: '?' in its place, and the PDF says so
        assert "?????" in flat and "couldnotbeshown" in flat and "U+4E1C" in text

    rows = list(csv.reader(io.StringIO(files["csv"].data.decode("utf-8-sig"))))
    assert rows[1][1] == "Вакцины и иммунитет" and rows[2][1] == "东京研究"

    bib = files["bib"].data.decode("utf-8")
    assert "title = {{Вакцины и иммунитет}}" in bib and f"url = {{{LONG_URL}}}" in bib


def test_pdf_without_unicode_fonts_replaces_what_it_cannot_draw_and_says_so(nasty) -> None:
    text = pdf_text(export_document(nasty, "pdf", fonts=None).data)
    assert "A bare long link" in text
    assert "could not be shown" in squash(text).replace("couldnotbeshown", "could not be shown")
    assert re.search(r"U\+04[0-4][0-9A-F]", text)  # Cyrillic code points named in the note
    assert "Русский" not in text


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(nasty) -> None:
    rows = list(csv.reader(io.StringIO(render_sources_csv(nasty.sources, {}).decode("utf-8-sig"))))
    assert rows[3][1] == '\'=HYPERLINK("http://evil")'


# --- file names and BibTeX ------------------------------------------------------------------------------


@pytest.mark.parametrize("topic", ["../../etc/passwd", "", "a" * 500, "東京", "CON", "a/b\\c:d*e?f", "\x00\n\t"])
def test_safe_filename_is_safe_for_any_topic(topic: str) -> None:
    name = safe_filename(topic, "pdf")
    stem = name.removesuffix(".pdf")
    assert name.endswith(".pdf") and stem and not stem.startswith(".")
    assert re.fullmatch(r"[a-z0-9-]+", stem), name
    assert len(name) <= 80


def test_safe_filename_examples() -> None:
    assert safe_filename("How do mRNA vaccines work?", "md") == "how-do-mrna-vaccines-work.md"
    assert safe_filename("../../etc/passwd", "pdf") == "etc-passwd.pdf"
    assert safe_filename("", "pdf") == "research.pdf"
    assert safe_filename("Café crème", "docx") == "cafe-creme.docx"
    assert safe_filename("東京", "pdf") != safe_filename("大阪", "pdf")  # hashed, not one shared name
    assert safe_filename("topic", "../json.gz") == "topic.json.gz"


def test_bibtex_escapes_latex_specials_once() -> None:
    assert bibtex_escape(r"R&D 100% $5 #1 a_b {x} ~y ^z back\slash") == (
        r"R\&D 100\% \$5 \#1 a\_b \textbraceleft{}x\textbraceright{} \textasciitilde{}y \textasciicircum{}z back\textbackslash{}slash"
    )
    source = Source(
        title="Costs & {Benefits}: 50% of_it",
        url="https://e.org/a{b}",
        kind="book",
        provider="openlibrary",
        authors=["Ann O'Neil", "Bob Smith"],
        year=2020,
    )
    bib = render_bibtex([source])
    assert "title = {{Costs \\& \\textbraceleft{}Benefits\\textbraceright{}: 50\\% of\\_it}}" in bib
    assert "author = {Ann O'Neil and Bob Smith}" in bib
    assert "url = {https://e.org/a%7Bb%7D}" in bib
    assert bib.count("{") == bib.count("}") + bib.count("\\}") - bib.count("\\{")  # braces balance


def test_bibtex_keys_are_unique_ascii_and_stable() -> None:
    same = [
        Source(
            title="The History of Printing",
            url=f"https://e.org/{i}",
            kind="book",
            provider="x",
            authors=["Müller, Hans"],
            year=1999,
        )
        for i in range(3)
    ]
    taken: set[str] = set()
    keys = [citation_key(s, taken) for s in same]
    assert keys == ["muller1999history", "muller1999historya", "muller1999historyb"]
    cyrillic = Source(title="Вакцины", url="https://nauka.ru/x", kind="web", provider="x", authors=["Иванов"])
    assert citation_key(cyrillic, set()) == "nauka"
    assert citation_key(Source(title="東京", kind="web", provider="library"), set()) == "library"
