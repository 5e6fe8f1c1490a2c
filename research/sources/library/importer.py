"""Reading files into the local library: Markdown, plain text, HTML, PDF and Word documents.

`import_paths` walks files and folders; `import_bytes` takes one uploaded file. Each file is read on
its own: a file that cannot be used is reported in `ImportReport.skipped` with the reason, and the
others are still imported. Markdown may carry the sample library's front matter (title, kind, url,
authors, year, publisher, topic).
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote

from research.schemas.researchers import ResearcherKind
from research.sources.library.documents import NewDocument
from research.sources.library.readers import (
    MAX_FILE_BYTES,
    SUPPORTED_SUFFIXES,
    UnreadableFile,
    check_size,
    parse_file,
    reader_for,
)

if TYPE_CHECKING:
    from research.sources.library.library_store import Library

log = logging.getLogger(__name__)

__all__ = ["MAX_FILE_BYTES", "SUPPORTED_SUFFIXES", "ImportReport", "UnreadableFile", "import_bytes", "import_paths"]


class SkippedFile(NamedTuple):
    name: str
    reason: str


@dataclass
class ImportedDocument:
    id: int
    title: str
    name: str  # the file it came from


@dataclass
class ImportReport:
    imported: list[ImportedDocument] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)

    def extend(self, other: ImportReport) -> None:
        self.imported.extend(other.imported)
        self.skipped.extend(other.skipped)

    def summary(self) -> str:
        text = f"Imported {len(self.imported)} document(s)"
        if self.skipped:
            text += f"; skipped {len(self.skipped)}: " + "; ".join(f"{s.name} ({s.reason})" for s in self.skipped)
        return text + "."


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnreadableFile):
        return str(exc)
    if isinstance(exc, OSError):
        return f"could not read the file ({exc.strerror or type(exc).__name__})"
    return f"could not read the file ({type(exc).__name__}: {exc})"[:300]


def _store(library: Library, name: str, doc: NewDocument, report: ImportReport) -> None:
    doc_id = library.add_document(
        title=doc.title, text=doc.text, kind=doc.kind, url=doc.url, authors=doc.authors,
        year=doc.year, publisher=doc.publisher, topic=doc.topic,
    )  # fmt: skip
    report.imported.append(ImportedDocument(id=doc_id, title=doc.title, name=name))


def import_bytes(library: Library, filename: str, data: bytes, kind: ResearcherKind | None) -> ImportReport:
    """Import one uploaded file. Its url is derived from its content, so re-uploading it updates
    the same document instead of adding a copy."""
    report = ImportReport()
    name = Path(filename or "upload").name
    digest = hashlib.sha1(data).hexdigest()[:12]
    try:
        doc = parse_file(name, data, kind=kind, url=f"library://upload/{digest}/{quote(name)}")
        _store(library, name, doc, report)
    except Exception as exc:
        report.skipped.append(SkippedFile(name, _reason(exc)))
    return report


def _walk(paths: list[Path]) -> list[Path | tuple[Path, str]]:
    """Files to read, in a stable order; hidden files inside folders are ignored silently. Inside a
    folder, symbolic links (to files or folders) are skipped, never followed out of it."""
    out: list[Path | tuple[Path, str]] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            for child in _folder_files(path):
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if hidden:
                    continue
                out.append((child, _SYMLINK) if child.is_symlink() else child)
        elif path.is_file():
            out.append(path)
        else:
            out.append((path, "no such file or folder"))
    return out


_SYMLINK = "a symbolic link: links inside a folder are not followed"


def _folder_files(folder: Path) -> list[Path]:
    """Every file and symlink under `folder`, without descending into linked folders."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        base = Path(root)
        found += [base / d for d in dirs if (base / d).is_symlink()]  # a linked folder: reported, not walked
        found += [base / f for f in files]
    return sorted(found)


def _read(path: Path, *, follow: bool) -> bytes:
    """The file's bytes; `follow=False` refuses a path swapped for a symlink since it was listed."""
    flags = os.O_RDONLY | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ValueError("not a regular file")
        return file.read()


def import_paths(library: Library, paths: list[Path], kind: ResearcherKind | None) -> ImportReport:
    """Import files and folders (walked recursively). `kind=None` takes each file's front-matter
    kind, else web. Files are imported one by one, so an error costs only that file."""
    report = ImportReport()
    named = {Path(p) for p in paths}  # a file named on the command line may be a link the user chose
    for item in _walk(paths):
        if isinstance(item, tuple):
            report.skipped.append(SkippedFile(item[0].name or str(item[0]), item[1]))
            continue
        try:
            reader_for(item.name)  # unsupported types are refused before reading their bytes
            check_size(item.stat().st_size)
            data = _read(item, follow=item in named)
            # Never the local path (file:///home/...): it would show in sources and exports.
            url = f"library://file/{hashlib.sha1(data).hexdigest()[:12]}/{quote(item.name)}"
            doc = parse_file(item.name, data, kind=kind, url=url)
            _store(library, item.name, doc, report)
        except Exception as exc:
            report.skipped.append(SkippedFile(item.name, _reason(exc)))
    return report
