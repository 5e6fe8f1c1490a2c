"""A folder import does not follow symbolic links out of the folder: a linked file
or folder is skipped with a reason, and nothing of what it points to reaches the library."""

from __future__ import annotations

import os
from pathlib import Path

from research.sources.library import importer
from research.sources.library.importer import import_paths
from research.sources.library.library_store import Library

SECRET = "Outside secret about the Kestrel ledger, never to be imported."


def _texts(library: Library) -> str:
    return " ".join(library.get_document(d.id).text for d in library.list_documents())


def test_symlinked_files_and_folders_are_skipped(library: Library, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n\n{SECRET}\n")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "real.md").write_text("# Tidal power\n\nTidal turbines in the Pentland Firth produce power.\n")
    (folder / "link.md").symlink_to(outside / "secret.md")
    (folder / "linked-dir").symlink_to(outside, target_is_directory=True)
    (folder / "hostname.txt").symlink_to("/etc/hostname")
    report = import_paths(library, [folder], "web")
    assert [i.name for i in report.imported] == ["real.md"]
    skipped = {s.name: s.reason for s in report.skipped}
    assert set(skipped) == {"link.md", "linked-dir", "hostname.txt"}
    assert all("symbolic link" in reason for reason in skipped.values())
    assert "Kestrel" not in _texts(library)


def test_a_file_swapped_for_a_link_after_listing_is_refused(library: Library, tmp_path: Path, monkeypatch) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text(f"# Secret\n\n{SECRET}\n")
    folder = tmp_path / "notes"
    folder.mkdir()
    target = folder / "a.md"
    target.write_text("# Plain\n\nA plain note about heat pumps and their efficiency.\n")
    real_walk = importer._walk

    def walk_then_swap(paths):
        items = real_walk(paths)
        target.unlink()
        os.symlink(outside, target)  # a race: replaced between listing and reading
        return items

    monkeypatch.setattr(importer, "_walk", walk_then_swap)
    report = import_paths(library, [folder], "web")
    assert report.imported == [] and [s.name for s in report.skipped] == ["a.md"]
    assert "Kestrel" not in _texts(library)


def test_a_file_named_directly_may_be_a_link(library: Library, tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("# Chosen\n\nThe user named this link on the command line about solar panels.\n")
    (tmp_path / "chosen.md").symlink_to(real)
    report = import_paths(library, [tmp_path / "chosen.md"], "web")
    assert [i.name for i in report.imported] == ["chosen.md"]
