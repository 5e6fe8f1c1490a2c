"""PDF and DOCX extraction in a child process with a memory ceiling, a CPU and wall-clock limit,
a page cap and a text cap, so a bomb costs one refused file and never the server.

A 1.2 MB PDF whose pages inflate to 60 MB each ran pypdf past 300 s and 2 GB in the dashboard's
own process; a 1 MB docx zip bomb reached 2.1 GB before lxml refused it. Here the child sets
RLIMIT_AS and RLIMIT_CPU on itself before it imports a parser (no preexec_fn: the dashboard has
threads), the parent kills it at the deadline, and a docx whose zip members declare more than
MAX_DECOMPRESSED_BYTES (or an absurd compression ratio) is refused before it is opened at all.

    python -m research.sources.library.sandbox .pdf MEMORY SECONDS < file.pdf   # a JSON line
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import zipfile
from typing import Any

MAX_PAGES = 1_000
MAX_DECOMPRESSED_BYTES = 200 * 1024 * 1024  # a docx's zip members, or one PDF stream
MAX_RATIO = 200  # a docx member inflating more than this is a bomb, not a document
MAX_TEXT_CHARS = 20 * 1024 * 1024  # extracted text; the library caps what runs carry separately
MAX_XMP_BYTES = 1024 * 1024  # the metadata packet searched for a publication date
MEMORY_BYTES = 1024 * 1024 * 1024
TIMEOUT_SECONDS = 60.0


class ExtractionRefused(Exception):
    """The file broke a limit or could not be parsed; the message says which, for the user."""


def check_zip(data: bytes) -> None:
    """Refuse a docx whose members declare too much data or inflate absurdly (read from the
    central directory, nothing decompressed). The child's memory ceiling covers members that lie."""
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError) as exc:
        raise ExtractionRefused(f"not a readable DOCX ({exc})") from None
    if len(members) > 10_000:
        raise ExtractionRefused("the DOCX has more than 10,000 parts")
    total = sum(m.file_size for m in members)
    if total > MAX_DECOMPRESSED_BYTES:
        raise ExtractionRefused(
            f"the DOCX expands to {total // (1024 * 1024)} MB (limit {MAX_DECOMPRESSED_BYTES // (1024 * 1024)} MB)"
        )
    for m in members:
        if m.file_size > 1024 * 1024 and m.file_size > MAX_RATIO * max(1, m.compress_size):
            raise ExtractionRefused(f"the DOCX part {m.filename[:80]} is a compression bomb")


def extract(
    suffix: str, data: bytes, *, timeout: float = TIMEOUT_SECONDS, memory: int = MEMORY_BYTES
) -> dict[str, Any]:
    """The pages (PDF) or paragraphs (DOCX) and metadata of a file, read by a limited child."""
    if suffix == ".docx":
        check_zip(data)
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN", "SECRET"))}
    try:
        out = subprocess.run(
            [sys.executable, "-m", "research.sources.library.sandbox", suffix, str(memory), str(timeout)],
            input=data,
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ExtractionRefused(f"reading it took longer than {timeout:g} s (stopped)") from None
    try:
        answer: dict[str, Any] = json.loads(out.stdout.decode("utf-8").splitlines()[-1])
    except (IndexError, ValueError):
        if out.returncode < 0 or b"MemoryError" in out.stderr:
            raise ExtractionRefused(
                f"reading it needed more than {memory // (1024 * 1024)} MB of memory (stopped)"
            ) from None
        raise ExtractionRefused(f"the reader failed (exit {out.returncode})") from None
    if "error" in answer:
        raise ExtractionRefused(answer["error"])
    return answer


# --- the child ----------------------------------------------------------------------------------


def _limit_self(memory: int, seconds: float) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def _pdf(data: bytes) -> dict[str, Any]:
    import pypdf.filters
    from pypdf import PdfReader

    pypdf.filters.ZLIB_MAX_OUTPUT_LENGTH = min(pypdf.filters.ZLIB_MAX_OUTPUT_LENGTH, MAX_DECOMPRESSED_BYTES)
    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        return {"error": "the PDF is password-protected"}
    if len(reader.pages) > MAX_PAGES:
        return {"error": f"the PDF has {len(reader.pages):,} pages (limit {MAX_PAGES:,})"}
    pages, size = [], 0
    for page in reader.pages:
        text = page.extract_text() or ""
        size += len(text)
        if size > MAX_TEXT_CHARS:
            return {"error": f"the PDF holds more than {MAX_TEXT_CHARS // (1024 * 1024)} M characters of text"}
        pages.append(text)
    info: dict[Any, Any] = reader.metadata or {}
    meta = {k: str(info.get(f"/{k.title()}") or "") for k in ("title", "author")}
    meta["published"] = _xmp_publication_date(reader)
    return {"pages": pages, "meta": meta}


# XMP's publication date (attribute or element form); linear: no nested quantifiers.
_XMP_PUBLISHED = re.compile(rb"prism:(?:publicationDate|coverDate)(?:=[\"']|>)\s{0,20}(\d{4}(?:-\d\d){0,2})")


def _xmp_publication_date(reader: Any) -> str:
    """The PDF's publication date from its XMP packet, or "" (the Info dict has none: its
    CreationDate is when the file was made, not when the work was published)."""
    try:
        stream = reader.trailer["/Root"].get("/Metadata")
        data = stream.get_object().get_data()[:MAX_XMP_BYTES] if stream is not None else b""
    except Exception:  # noqa: BLE001 - a broken XMP packet costs the date, not the file
        return ""
    match = _XMP_PUBLISHED.search(data)
    return match.group(1).decode("ascii") if match else ""


def _docx(data: bytes) -> dict[str, Any]:
    import docx

    document = docx.Document(io.BytesIO(data))
    paragraphs, size = [], 0
    for p in document.paragraphs:
        size += len(p.text)
        if size > MAX_TEXT_CHARS:
            return {"error": f"the DOCX holds more than {MAX_TEXT_CHARS // (1024 * 1024)} M characters of text"}
        paragraphs.append(p.text)
    props = document.core_properties
    return {"paragraphs": paragraphs, "meta": {"title": props.title or "", "author": props.author or ""}}


def _main(suffix: str, memory: int, seconds: float) -> None:
    _limit_self(memory, seconds)
    data = sys.stdin.buffer.read()
    try:
        answer = _pdf(data) if suffix == ".pdf" else _docx(data)
    except MemoryError:
        answer = {"error": f"reading it needed more than {memory // (1024 * 1024)} MB of memory (stopped)"}
    except Exception as exc:  # noqa: BLE001 - any parser failure is this file's reason
        kind = "PDF" if suffix == ".pdf" else "DOCX"
        answer = {"error": f"not a readable {kind} ({type(exc).__name__}: {str(exc)[:200]})"}
    sys.stdout.write("\n" + json.dumps(answer) + "\n")


if __name__ == "__main__":
    _main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
