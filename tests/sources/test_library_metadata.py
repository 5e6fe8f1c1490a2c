"""Import metadata read by the right tools: YAML front matter by a YAML parser (escapes resolved),
a PDF's year only from a publication date (never its CreationDate), and DOCX core properties that
name the generator (python-docx's default author) ignored."""

from __future__ import annotations

from pathlib import Path

import docx
from fpdf import FPDF

from research.sources.library.importer import import_paths
from research.sources.library.library_store import Library
from research.sources.library.readers import split_front_matter
from tests.sources.library_files import only_document, write_docx


def test_yaml_escapes_and_quotes_are_resolved() -> None:
    meta, body = split_front_matter(
        "---\n"
        'title: "Caf\\u00e9 \\"Le Procope\\" and the Enlightenment"\n'
        "authors: ['O''Brien, Ann', \"B. \\\"Bo\\\" Chen\"]\n"
        "date: 2019-05-01\n"
        "publisher: >-\n  Folded\n  Press\n"
        "---\n"
        "# Body\n"
    )
    assert meta["title"] == 'Café "Le Procope" and the Enlightenment'
    assert meta["authors"] == 'O\'Brien, Ann; B. "Bo" Chen'
    assert meta["date"] == "2019-05-01" and meta["publisher"] == "Folded Press"
    assert body == "# Body\n"


def test_nested_and_aliased_yaml_is_not_metadata() -> None:
    bomb = "---\na: &a ['x', 'x', 'x']\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\ntitle: Fine\n---\nBody"
    meta, body = split_front_matter(bomb)
    assert meta["title"] == "Fine" and meta["a"] == "x; x; x" and meta["c"] == "" and body == "Body"


def test_an_imported_markdown_file_keeps_its_unescaped_title_and_year(library: Library, tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text(
        '---\ntitle: "Tab\\tand \\"quotes\\""\nauthors:\n  - Ada Lovelace\nyear: 1843\n---\nNotes on the engine.\n'
    )
    import_paths(library, [tmp_path / "note.md"], "book")
    doc = only_document(library)
    assert doc.title == 'Tab and "quotes"' and doc.authors == ["Ada Lovelace"] and doc.year == 1843


def _pdf(path: Path, *, xmp: str | None = None) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.set_title("On the Origin of Species")
    if xmp:
        pdf.set_xmp_metadata(xmp)
    pdf.multi_cell(0, 8, "Natural selection acts on heritable variation.", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))  # fpdf2 stamps today's CreationDate
    return path


def test_a_pdf_creation_date_is_not_its_publication_year(library: Library, tmp_path: Path) -> None:
    import_paths(library, [_pdf(tmp_path / "origin.pdf")], "book")
    assert only_document(library).year is None


def test_a_pdf_publication_date_in_its_xmp_is_its_year(library: Library, tmp_path: Path) -> None:
    xmp = (
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">'
        "<prism:publicationDate>1859-11-24</prism:publicationDate></rdf:Description></rdf:RDF>"
    )
    import_paths(library, [_pdf(tmp_path / "origin.pdf", xmp=xmp)], "book")
    assert only_document(library).year == 1859


def test_docx_core_properties_naming_the_generator_are_ignored(library: Library, tmp_path: Path) -> None:
    document = docx.Document()  # python-docx's default template: author "python-docx"
    assert document.core_properties.author == "python-docx"
    document.add_paragraph("Mangroves shelter coasts from storms.")
    document.save(str(tmp_path / "mangroves.docx"))
    import_paths(library, [tmp_path / "mangroves.docx"], "web")
    doc = only_document(library)
    assert doc.authors == [] and doc.title == "Mangroves shelter coasts from storms."


def test_a_real_docx_author_is_kept(library: Library, tmp_path: Path) -> None:
    import_paths(library, [write_docx(tmp_path / "sea.docx", "The sea around us.", author="Rachel Carson")], "book")
    assert only_document(library).authors == ["Rachel Carson"]
