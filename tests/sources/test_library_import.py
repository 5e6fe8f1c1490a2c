"""Importing files into the library: Markdown, text, HTML, PDF, Word; rejected files and uploads."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from research.sources.library import readers as library_import
from research.sources.library.importer import import_bytes, import_paths
from research.sources.library.library_store import Library
from research.sources.library.readers import split_front_matter
from tests.sources.library_files import only_document, write_docx


def _pdf(path: Path, lines: list[str], *, title: str | None = None, author: str | None = None) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    if title:
        pdf.set_title(title)
    if author:
        pdf.set_author(author)
    for line in lines:
        pdf.multi_cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def test_markdown_front_matter_supplies_the_metadata(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "paper.md"
    path.write_text(
        '---\ntitle: "Kelp Forests"\nkind: academic\nurl: https://example.org/kelp\n'
        "authors: [Rachel Carson, Sylvia Earle]\nyear: 1962\npublisher: Sea Press\ntopic: oceans\n---\n"
        "# Ignored heading\n\nKelp forests shelter **sea otters** and [urchins](https://x.org).\n"
    )
    report = import_paths(library, [path], "book")
    assert [(i.title, i.name) for i in report.imported] == [("Kelp Forests", "paper.md")] and not report.skipped
    doc = only_document(library)
    assert doc.kind == "book"  # the kind chosen at import wins over the front matter's
    assert (doc.url, doc.authors, doc.year, doc.publisher, doc.topic) == (
        "https://example.org/kelp", ["Rachel Carson", "Sylvia Earle"], 1962, "Sea Press", "oceans",
    )  # fmt: skip
    assert "Kelp forests shelter sea otters and urchins." in doc.text  # markup removed
    assert not doc.sample


def test_markdown_title_falls_back_to_heading_then_file_name(library: Library, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Intro line.\n\n## Coral *reefs*\n\nCorals bleach in warm water.")
    (tmp_path / "reef_notes-2024.md").write_text("Just a body about coral spawning.")
    import_paths(library, [tmp_path / "a.md", tmp_path / "reef_notes-2024.md"], "web")
    assert sorted(d.title for d in library.list_documents()) == ["Coral reefs", "reef notes 2024"]


def test_kind_none_takes_the_front_matter_kind_else_web(library: Library, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nkind: book\n---\nA book about lighthouses.")
    (tmp_path / "b.md").write_text("A page about lighthouses.")
    (tmp_path / "c.md").write_text("---\nkind: podcast\n---\nAn episode about lighthouses.")
    report = import_paths(library, [tmp_path], None)
    assert library.counts() == {"web": 1, "academic": 0, "book": 1}
    assert report.skipped == [("c.md", "unknown kind 'podcast' (expected web, academic or book)")]


def test_text_file_title_from_a_short_first_line(library: Library, tmp_path: Path) -> None:
    (tmp_path / "tides.txt").write_text("Tidal power\n\nTurbines turn the rise and fall of the sea into power.")
    (tmp_path / "prose.txt").write_text("This file starts with a sentence. It has no title line.")
    import_paths(library, [tmp_path], "web")
    assert sorted(d.title for d in library.list_documents()) == ["Tidal power", "prose"]
    assert [h.title for h in library.search("turbines")] == ["Tidal power"]


def test_text_in_a_legacy_encoding_is_read(library: Library, tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_bytes("Café crème on the Champs-Élysées.".encode("cp1252"))
    report = import_paths(library, [tmp_path / "old.txt"], "web")
    assert report.imported and "Café crème" in only_document(library).text


def test_html_keeps_the_text_and_drops_scripts_and_styles(library: Library, tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><head><title>Wind Farms Offshore</title><style>body { color: hotpink }</style>"
        "<script>var trackingPixel = 'zebracorn';</script></head><body>"
        "<p>Offshore wind farms produce steady power because winds at sea are stronger.</p>"
        "<p>Undersea cables carry the electricity to shore, where it joins the grid.</p>"
        "<script>document.write('zebracorn')</script><noscript>Enable zebracorn</noscript></body></html>"
    )
    report = import_paths(library, [tmp_path / "page.html"], "web")
    assert [i.title for i in report.imported] == ["Wind Farms Offshore"]
    text = only_document(library).text
    assert "Offshore wind farms produce steady power" in text and "Undersea cables" in text
    assert "zebracorn" not in text and "hotpink" not in text and "trackingPixel" not in text
    assert library.search("zebracorn") == []


def test_html_stdlib_reader_without_trafilatura(library: Library, tmp_path: Path, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_trafilatura(name: str, *args, **kwargs):
        if name == "trafilatura":
            raise ImportError("not installed")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_trafilatura)
    (tmp_path / "p.htm").write_text(
        "<h1>Glaciers</h1><style>.x{}</style><p>Glaciers carve &amp; scour valleys.</p><script>evil()</script>"
    )
    import_paths(library, [tmp_path / "p.htm"], "web")
    doc = only_document(library)
    assert doc.title == "Glaciers"
    assert "Glaciers carve & scour valleys." in doc.text and "evil" not in doc.text and ".x" not in doc.text


def test_pdf_text_and_metadata_are_read(library: Library, tmp_path: Path) -> None:
    _pdf(tmp_path / "geo.pdf", ["Geothermal plants tap heat from deep underground.", "They run day and night."],
         title="Geothermal Heat", author="Jane Doe; John Roe")  # fmt: skip
    report = import_paths(library, [tmp_path / "geo.pdf"], "academic")
    assert [i.title for i in report.imported] == ["Geothermal Heat"]
    doc = only_document(library)
    assert doc.kind == "academic" and doc.authors == ["Jane Doe", "John Roe"]
    assert "Geothermal plants tap heat from deep underground." in doc.text
    assert [h.title for h in library.search("geothermal underground", kind="academic")] == ["Geothermal Heat"]


def test_pdf_without_a_title_uses_its_first_line(library: Library, tmp_path: Path) -> None:
    _pdf(tmp_path / "untitled.pdf", ["Volcanic Soils", "Volcanic soils are rich in minerals."])
    import_paths(library, [tmp_path / "untitled.pdf"], "book")
    assert only_document(library).title == "Volcanic Soils"


def test_docx_is_read(library: Library, tmp_path: Path) -> None:
    docx_file = write_docx(tmp_path / "marsh.docx", "Salt marshes store carbon in their mud.", title="Salt Marshes")
    import_paths(library, [docx_file], "web")
    doc = only_document(library)
    assert doc.title == "Salt Marshes" and doc.text == "Salt marshes store carbon in their mud."


def test_rejected_files_are_named_with_reasons_and_the_rest_imported(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    (folder / "nested").mkdir(parents=True)
    (folder / "good.md").write_text("# Good\n\nA useful note about dunes.")
    (folder / "nested" / "deep.txt").write_text("Sand dunes migrate with the wind.")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n....")
    (folder / "blank.txt").write_text("  \n\n ")
    (folder / ".hidden.md").write_text("Hidden files are ignored.")
    _pdf(folder / "scanned.pdf", [])  # a page with no text at all
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    report = import_paths(library, [folder, tmp_path / "missing.md"], "web")

    assert sorted(i.name for i in report.imported) == ["deep.txt", "good.md"]
    reasons = dict(report.skipped)
    assert set(reasons) == {"photo.png", "blank.txt", "scanned.pdf", "broken.pdf", "missing.md"}
    assert "unsupported file type (.png)" in reasons["photo.png"]
    assert reasons["blank.txt"] == "the file is empty"
    assert "no extractable text" in reasons["scanned.pdf"]
    assert "PDF" in reasons["broken.pdf"]
    assert reasons["missing.md"] == "no such file or folder"
    assert library.counts()["web"] == 2
    assert "skipped 5" in report.summary() and "photo.png" in report.summary()


def test_an_unexpected_error_costs_only_that_file(library: Library, tmp_path: Path, monkeypatch) -> None:
    real = library_import._READERS[".txt"]

    def flaky(name: str, data: bytes):
        if name == "bad.txt":
            raise RuntimeError("reader exploded")
        return real(name, data)

    monkeypatch.setitem(library_import._READERS, ".txt", flaky)
    for name in ("a.txt", "bad.txt", "c.txt"):
        (tmp_path / name).write_text(f"Contents of {name}, about moss.")
    report = import_paths(library, [tmp_path], "web")
    assert [i.name for i in report.imported] == ["a.txt", "c.txt"]
    assert report.skipped == [("bad.txt", "could not read the file (RuntimeError: reader exploded)")]


def test_import_bytes_imports_uploads_and_dedupes_repeats(library: Library) -> None:
    data = b"---\ntitle: Lichens\n---\nLichens are partnerships of fungi and algae."
    first = import_bytes(library, "lichens.md", data, "academic")
    again = import_bytes(library, "lichens.md", data, "academic")
    assert [i.title for i in first.imported] == ["Lichens"] and not first.skipped
    assert again.imported[0].id == first.imported[0].id
    assert library.counts()["academic"] == 1
    assert library.search("fungi algae", kind="academic")[0].url.startswith("library://upload/")


def test_import_bytes_reports_rejections_without_raising(library: Library, tmp_path: Path) -> None:
    assert import_bytes(library, "x.exe", b"MZ...", "web").skipped[0].reason.startswith("unsupported file type")
    assert import_bytes(library, "empty.md", b"", "web").skipped == [("empty.md", "the file is empty")]
    assert "PDF" in import_bytes(library, "bad.pdf", b"%PDF-garbage", "web").skipped[0].reason
    blank = _pdf(tmp_path / "blank.pdf", []).read_bytes()
    assert "no extractable text" in import_bytes(library, "blank.pdf", blank, "web").skipped[0].reason
    assert import_bytes(library, "../../etc/passwd.md", b"# Safe\n\nOnly the name counts.", "web").imported[0].name == (
        "passwd.md"
    )
    assert library.counts()["web"] == 1


def test_pdf_upload_reads_back(library: Library, tmp_path: Path) -> None:
    data = _pdf(tmp_path / "u.pdf", ["Peat bogs preserve ancient bodies."], title="Bog Bodies").read_bytes()
    report = import_bytes(library, "u.pdf", data, "book")
    assert [i.title for i in report.imported] == ["Bog Bodies"]
    assert "Peat bogs preserve ancient bodies." in library.search("peat", kind="book")[0].text


def test_split_front_matter_variants() -> None:
    meta, body = split_front_matter("---\ntitle: 'A: B'\nauthors:\n  - One\n  - Two\n---\nBody")
    assert meta == {"title": "A: B", "authors": "One; Two"} and body == "Body"
    assert split_front_matter("No front matter\n---\n") == ({}, "No front matter\n---\n")
