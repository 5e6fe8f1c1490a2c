"""Reading one file into a library document: Markdown (with front matter), text, HTML, PDF, DOCX.

Pure functions of (file name, bytes): no store, no side effects, so the importer, the shipped
samples and the tests all read files the same way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from research.schemas.researchers import RESEARCHER_KINDS, ResearcherKind
from research.sources.library import sandbox, text_readers
from research.sources.library.documents import NewDocument
from research.sources.library.front_matter import split_front_matter

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 50 * 1024 * 1024
SUPPORTED_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".docx")
_TITLE_MAX = 200


class UnreadableFile(Exception):
    """A file that cannot become a document; the message is the reason shown to the user."""


@dataclass
class ParsedFile:
    """What a reader extracts from one file, before it becomes a NewDocument."""

    title: str
    text: str
    meta: dict[str, str] = field(default_factory=dict)


# --- markdown -----------------------------------------------------------------------------------


def markdown_to_text(body: str) -> str:
    """Plain reading text: markup removed, each heading its own paragraph (read by the CommonMark
    parser, in this process: for trusted text such as the shipped samples)."""
    return text_readers.markdown_body(body)["text"]


def first_heading(body: str) -> str:
    return text_readers.markdown_body(body)["heading"]


# --- readers --------------------------------------------------------------------------------------


def _decode(data: bytes) -> str:
    try:
        return text_readers.decode(data)
    except text_readers.NotText as exc:
        raise UnreadableFile(str(exc)) from None


def _title_from_name(name: str) -> str:
    stem = Path(name).stem
    return " ".join(re.sub(r"[_\-]+", " ", stem).split()).strip() or name


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line[:_TITLE_MAX]
    return ""


def read_markdown(name: str, data: bytes) -> ParsedFile:
    """An uploaded Markdown file: its body is parsed in the limited child (sandbox.py)."""
    return _markdown(name, data, _extract_in_child)


def _markdown(name: str, data: bytes, read_body: Callable[[str, bytes], dict[str, Any]]) -> ParsedFile:
    meta, body = split_front_matter(_decode(data))
    answer = read_body(".md", body.encode("utf-8", errors="replace"))
    title = meta.get("title") or answer["heading"] or _title_from_name(name)
    return ParsedFile(title=title, text=answer["text"], meta=meta)


def _extract_in_child(suffix: str, data: bytes) -> dict[str, Any]:
    try:
        return sandbox.extract(suffix, data)
    except sandbox.ExtractionRefused as exc:
        raise UnreadableFile(str(exc)) from None


def _markdown_in_process(suffix: str, data: bytes) -> dict[str, Any]:
    return dict(text_readers.markdown_body(data.decode("utf-8")))


def read_text(name: str, data: bytes) -> ParsedFile:
    text = _decode(data).strip()
    first = _first_line(text)
    # A short first line without a full stop reads as a title; otherwise use the file name.
    looks_like_title = first and len(first) <= 120 and not first.endswith((".", ",", ";"))
    return ParsedFile(title=first if looks_like_title else _title_from_name(name), text=text)


def read_html(name: str, data: bytes) -> ParsedFile:
    # Parsed in the limited child (sandbox.py): 10 M `<p>a` reached 3 GB in-process.
    answer = _extract_in_child(".html", data)
    text = answer["text"]
    return ParsedFile(title=answer["title"] or _first_line(text) or _title_from_name(name), text=text)


# Programs that stamp their own name into a file's author or title (python-docx's default template
# says author "python-docx"); a person or an organisation is never called this.
GENERATOR_NAMES = frozenset(
    {"python-docx", "python-pptx", "docx4j", "apache poi", "aspose.words", "pandoc", "fpdf", "fpdf2", "reportlab"}
)


def _is_generator(value: str) -> bool:
    return " ".join(value.split()).lower() in GENERATOR_NAMES


_PDF_JUNK_TITLES = re.compile(r"^(untitled|microsoft word - .*|document\d*|slide \d+)$", re.I)


def read_pdf(name: str, data: bytes) -> ParsedFile:
    # Parsed in a limited child process (sandbox.py): a PDF bomb costs this file, not the server.
    try:
        answer = sandbox.extract(".pdf", data)
    except sandbox.ExtractionRefused as exc:
        raise UnreadableFile(str(exc)) from None
    text = "\n\n".join(p.strip() for p in answer["pages"] if p.strip())
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)  # re-join words hyphenated across lines
    if not text.strip():
        raise UnreadableFile("the PDF has no extractable text (scanned images need OCR first)")
    info = answer["meta"]
    meta_title = " ".join(info.get("title", "").split())
    title = meta_title if meta_title and not _PDF_JUNK_TITLES.match(meta_title) else _first_line(text)
    meta: dict[str, str] = {}
    if info.get("author") and not _is_generator(info["author"]):
        meta["authors"] = info["author"]
    # The year is a publication date's (XMP prism:publicationDate / coverDate), never the file's
    # CreationDate: a 2024 scan of an 1859 book was not published in 2024.
    if year := re.match(r"^((?:1[5-9]|20)\d\d)", info.get("published", "")):
        meta["year"] = year.group(1)
    return ParsedFile(title=title or _title_from_name(name), text=text, meta=meta)


def read_docx(name: str, data: bytes) -> ParsedFile:
    try:
        answer = sandbox.extract(".docx", data)
    except sandbox.ExtractionRefused as exc:
        raise UnreadableFile(str(exc)) from None
    paragraphs = [p.strip() for p in answer["paragraphs"] if p.strip()]
    info = answer["meta"]
    # Core properties that name the program that wrote the file say nothing about the document.
    author, title = (v if not _is_generator(v) else "" for v in (info.get("author", ""), info.get("title", "")))
    meta = {"authors": author} if author else {}
    title = title.strip() or (paragraphs[0][:_TITLE_MAX] if paragraphs else "")
    return ParsedFile(title=title or _title_from_name(name), text="\n\n".join(paragraphs), meta=meta)


_READERS: dict[str, Callable[[str, bytes], ParsedFile]] = {
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".txt": read_text,
    ".html": read_html,
    ".htm": read_html,
    ".pdf": read_pdf,
    ".docx": read_docx,
}


# --- turning files into documents -----------------------------------------------------------------


def _year(value: str | None) -> int | None:
    match = re.search(r"\b(\d{4})\b", value or "")
    return int(match.group(1)) if match else None


def _authors(value: str | None) -> list[str]:
    return [a.strip() for a in re.split(r";|\band\b|&", value or "") if a.strip()]


def _public_url(value: str | None) -> str:
    """A front-matter url worth keeping: http(s) or library://; never file:// or javascript:."""
    value = (value or "").strip()
    return value if re.match(r"^(https?|library)://[^\s]+$", value, re.I) else ""


def to_document(parsed: ParsedFile, *, kind: ResearcherKind | None, url: str, sample: bool = False) -> NewDocument:
    """A ParsedFile as a NewDocument; an explicit kind wins over the front matter's."""
    meta = parsed.meta
    chosen = kind or meta.get("kind") or "web"
    if chosen not in RESEARCHER_KINDS:
        raise UnreadableFile(f"unknown kind {chosen!r} (expected web, academic or book)")
    if not parsed.text.strip():
        raise UnreadableFile("no text in the file")
    return NewDocument(
        title=" ".join(parsed.title.split())[:_TITLE_MAX] or "Untitled",
        text=parsed.text,
        kind=chosen,
        url=_public_url(meta.get("url")) or url,
        authors=_authors(meta.get("authors") or meta.get("author")),
        year=_year(meta.get("year") or meta.get("date")),
        publisher=meta.get("publisher", ""),
        topic=meta.get("topic", ""),
        sample=sample,
    )


def reader_for(name: str) -> Callable[[str, bytes], ParsedFile]:
    """The reader for a file name, or UnreadableFile naming the supported types."""
    suffix = Path(name).suffix.lower()
    reader = _READERS.get(suffix)
    if reader is None:
        shown = suffix or "no extension"
        raise UnreadableFile(f"unsupported file type ({shown}); supported: {', '.join(SUPPORTED_SUFFIXES)}")
    return reader


def check_size(size: int) -> None:
    if size > MAX_FILE_BYTES:
        raise UnreadableFile(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")


def parse_file(name: str, data: bytes, *, kind: ResearcherKind | None, url: str) -> NewDocument:
    """One file's bytes as a document, or UnreadableFile with the reason it cannot be one."""
    reader = reader_for(name)
    if not data.strip():
        raise UnreadableFile("the file is empty")
    check_size(len(data))
    return to_document(reader(name, data), kind=kind, url=url)


def read_sample_file(path: Path) -> NewDocument:
    """A shipped sample document (front matter required for its kind and url)."""
    parsed = _markdown(path.name, path.read_bytes(), _markdown_in_process)  # shipped with the desk: trusted
    if "kind" not in parsed.meta:
        raise UnreadableFile("sample front matter has no kind")
    return to_document(parsed, kind=None, url=f"library://sample/{path.stem}", sample=True)
