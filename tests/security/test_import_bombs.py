"""Import bombs: PDF and DOCX are read by a limited child process, so a bomb is
one refused file with its reason and the server's own memory does not move."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from research.sources.library import readers, sandbox
from research.sources.library.importer import import_bytes, import_paths
from research.sources.library.library_store import Library
from tests.security.bombs import docx_bomb, pdf_bomb, pdf_with_text


def _rss_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def test_a_pdf_bomb_is_refused_in_a_child_and_the_server_does_not_grow(tmp_path: Path) -> None:
    bomb = pdf_bomb(pages=20, page_mb=60)  # ~3.6 MB on disk, 1.2 GB of content streams
    assert len(bomb) < 4 * 1024 * 1024
    before, started = _rss_mb(), time.monotonic()
    library = Library(tmp_path / "library.sqlite")
    report = import_bytes(library, "bomb.pdf", bomb, "academic")
    assert report.imported == [] and len(report.skipped) == 1
    assert time.monotonic() - started < sandbox.TIMEOUT_SECONDS + 10
    assert _rss_mb() - before < 100  # the parent never parsed it
    assert "PDF" in report.skipped[0].reason or "stopped" in report.skipped[0].reason


def test_the_deadline_stops_a_slow_pdf(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(sandbox.ExtractionRefused, match=r"longer than 1 s \(stopped\)"):
        sandbox.extract(".pdf", pdf_bomb(pages=20, page_mb=60), timeout=1)
    assert time.monotonic() - started < 5


def test_the_memory_ceiling_stops_a_greedy_pdf() -> None:
    with pytest.raises(sandbox.ExtractionRefused, match="more than 200 MB of memory"):
        sandbox.extract(".pdf", pdf_bomb(pages=4, page_mb=60), memory=200 * 1024 * 1024)


def test_too_many_pages_are_refused() -> None:
    with pytest.raises(readers.UnreadableFile, match=f"limit {sandbox.MAX_PAGES:,}"):
        readers.read_pdf("long.pdf", pdf_with_text("x", pages=sandbox.MAX_PAGES + 1))


def test_a_docx_zip_bomb_is_refused_before_it_is_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = docx_bomb(1024)  # ~1 MB zip, 1 GiB document.xml
    assert len(bomb) < 1200 * 1024
    spawned: list[object] = []
    monkeypatch.setattr(sandbox.subprocess, "run", lambda *a, **k: spawned.append(a))
    with pytest.raises(readers.UnreadableFile, match="expands to 1024 MB"):
        readers.read_docx("bomb.docx", bomb)
    assert spawned == []


def test_a_docx_that_inflates_absurdly_per_part_is_refused() -> None:
    with pytest.raises(readers.UnreadableFile, match="compression bomb"):
        readers.read_docx("bomb.docx", docx_bomb(50))


def test_a_readable_pdf_and_docx_still_import(tmp_path: Path) -> None:
    import docx

    path = tmp_path / "notes.docx"
    document = docx.Document()
    document.add_paragraph("Lipid nanoparticles carry the mRNA into cells.")
    document.save(path)
    (tmp_path / "paper.pdf").write_bytes(pdf_with_text("Ribosomes translate the message into protein."))
    report = import_paths(Library(tmp_path / "library.sqlite"), [tmp_path], "academic")
    assert sorted(d.name for d in report.imported) == ["notes.docx", "paper.pdf"], report.skipped


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "RESEARCH_DATA_DIR": str(tmp_path / "data"),
        "RESEARCH_LOG_DIR": str(tmp_path / "logs"),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        [sys.executable, "-m", "research", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_library_import_exits_non_zero_when_every_file_was_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "bomb.docx").write_bytes(docx_bomb(300))
    (folder / "empty.md").write_text("")
    out = _cli(tmp_path, "library", "import", str(folder), "--kind", "web")
    assert out.returncode == 2, out.stderr
    assert "0 imported, 2 skipped" in out.stderr and "every one was skipped" in out.stderr
    (folder / "good.md").write_text("# Good\n\nA readable note about lipid nanoparticles.")
    assert _cli(tmp_path, "library", "import", str(folder), "--kind", "web").returncode == 0


def test_imported_files_never_carry_their_local_path(tmp_path: Path) -> None:
    (tmp_path / "secret-plans.md").write_text("---\nurl: file:///etc/passwd\n---\n# Plans\n\nLipid nanoparticles.")
    (tmp_path / "other.txt").write_text("Lipid nanoparticles and the local path.")
    library = Library(tmp_path / "library.sqlite")
    report = import_paths(library, [tmp_path], "web")
    assert len(report.imported) == 2
    hits = library.search("lipid nanoparticles", limit=10)
    urls = [h.url for h in hits if not h.url.startswith("library://sample/")]
    assert len(urls) == 2 and all(u.startswith("library://file/") for u in urls), urls
    assert not any(str(tmp_path) in u or u.startswith("file:") for u in urls)
