"""Generated hostile input against what the store and the file writers rely on: bundle fields out of
range (status, sequence numbers, timestamps, event types), folders full of symbolic links, and
writes cut short at any byte. Bounded here (the "suite" profile of fuzzing.py); `make fuzz` runs
them with HYPOTHESIS_PROFILE=fuzz for many more examples."""

from __future__ import annotations

import io
import json
import math
import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.events.payloads import PAYLOADS
from research.events.status import RunStatus
from research.export.atomic_file import write_atomically
from research.runs.bundle import BundleError, import_bundle
from research.runs.bundle_checks import MAX_TIMESTAMP, MIN_TIMESTAMP
from research.runs.store import RunStore
from research.runs.view import fold, to_json
from research.sources.library.importer import import_paths
from research.sources.library.library_store import Library
from tests.security.fuzzing import offline_bundle_document

NUMBERS = (
    st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, -1, 2**63 - 1, 2**63, 1e17, 1.7e308])
)
OUTSIDE = "Outside marker of the Kestrel ledger, never to be imported."


@pytest.fixture(scope="module")
def bundle_document(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return offline_bundle_document(tmp_path_factory.mktemp("fuzz-fields"), allocation="100")


def _field_change(document: dict, data: st.DataObject) -> dict:
    doc = json.loads(json.dumps(document))
    events = doc["events"]
    for _ in range(data.draw(st.integers(1, 3))):
        event = events[data.draw(st.integers(0, len(events) - 1))]
        field = data.draw(st.sampled_from(["status", "seq", "ts", "type", "exported_at", "draft_ts", "swap"]))
        if field == "status":
            doc["run"]["status"] = data.draw(st.sampled_from([s.value for s in RunStatus]) | st.text(max_size=12))
        elif field in ("seq", "ts"):
            event[field] = data.draw(NUMBERS)
        elif field == "type":
            event["type"] = data.draw(st.sampled_from(sorted(PAYLOADS)) | st.text(max_size=20))
        elif field == "exported_at":
            doc["exported_at"] = data.draw(NUMBERS)
        elif field == "draft_ts" and doc.get("drafts"):
            doc["drafts"][0]["created_at"] = data.draw(NUMBERS)
        elif field == "swap" and len(events) > 1:
            i, j = data.draw(st.integers(0, len(events) - 1)), data.draw(st.integers(0, len(events) - 1))
            events[i], events[j] = events[j], events[i]
    return doc


@pytest.mark.timeout(1800)
@given(data=st.data())
def test_bundle_fields_out_of_range_are_refused_whole_or_imported_in_range(
    bundle_document: dict, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    doc = _field_change(bundle_document, data)
    path = tmp_path_factory.mktemp("fields") / "runs.sqlite"
    store = RunStore(path)
    try:
        run_id = import_bundle(store, json.dumps(doc).encode())
    except BundleError:
        assert store.list_runs() == []  # refused before anything was written
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT COUNT(*) FROM events").fetchone() == (0,)
        return
    events = store.events(run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert all(math.isfinite(e.ts) and MIN_TIMESTAMP <= e.ts <= MAX_TIMESTAMP for e in events)
    assert all(e.type in PAYLOADS for e in events)
    run = store.get_run(run_id)
    assert run is not None and RunStatus(run.status)
    json.dumps(to_json(fold(events)), allow_nan=False)  # strict JSON for every reader
    store.list_runs()


@pytest.mark.timeout(1800)
@given(
    layout=st.lists(
        st.tuples(st.sampled_from(["file", "link-file", "link-dir", "link-abs", "subdir-file"]), st.integers(0, 99)),
        min_size=1,
        max_size=8,
    )
)
def test_a_folder_of_links_never_imports_what_lies_outside(
    tmp_path_factory: pytest.TempPathFactory, layout: list[tuple[str, int]]
) -> None:
    root = tmp_path_factory.mktemp("links")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"Secret\n\n{OUTSIDE}\n")
    folder = root / "notes"
    (folder / "sub").mkdir(parents=True)
    for kind, n in layout:
        name = f"{kind}-{n}"
        if kind == "file":
            (folder / f"{name}.txt").write_text(f"Tidal power {n}\n\nTidal turbines produce power in strait {n}.\n")
        elif kind == "subdir-file":
            (folder / "sub" / f"{name}.txt").write_text(f"Wave power {n}\n\nWave farms store energy {n}.\n")
        elif kind == "link-file" and not (folder / f"{name}.txt").exists():
            (folder / f"{name}.txt").symlink_to(outside / "secret.txt")
        elif kind == "link-dir" and not (folder / name).exists():
            (folder / name).symlink_to(outside, target_is_directory=True)
        elif kind == "link-abs" and not (folder / "sub" / f"{name}.txt").exists():
            (folder / "sub" / f"{name}.txt").symlink_to((outside / "secret.txt").resolve())
    library = Library(root / "library.sqlite")
    try:
        import_paths(library, [folder], "web")
        texts = " ".join(library.get_document(d.id).text for d in library.list_documents())
        assert "Kestrel" not in texts
    finally:
        library.close()


@pytest.mark.timeout(1800)
@given(before=st.binary(max_size=2_000), after=st.binary(min_size=1, max_size=20_000), cut=st.integers(0, 20_000))
def test_a_write_cut_short_at_any_byte_leaves_the_earlier_file(
    tmp_path_factory: pytest.TempPathFactory, before: bytes, after: bytes, cut: int
) -> None:
    folder = tmp_path_factory.mktemp("writes")
    target = folder / "export.pdf"
    write_atomically(target, before)
    real_fdopen = os.fdopen

    class DiskFills(io.FileIO):
        """A file on a disk that fills after `cut` bytes."""

        written = 0

        def write(self, data: bytes) -> int:  # type: ignore[override]
            room = cut - self.written
            if room <= 0:
                raise OSError(28, "No space left on device")
            n = super().write(bytes(data)[:room])
            self.written += n
            return n

    def fdopen(fd: int, mode: str = "r", *args: object, **kwargs: object) -> io.BufferedWriter:
        return io.BufferedWriter(DiskFills(fd, mode.replace("b", ""), closefd=True))  # as open() buffers it

    os.fdopen = fdopen  # type: ignore[assignment]  # the writer opens its temporary file through os.fdopen
    try:
        write_atomically(target, after)
    except OSError:
        assert target.read_bytes() == before  # the earlier file, whole
    else:
        assert target.read_bytes() == after
    finally:
        os.fdopen = real_fdopen
    assert [p.name for p in folder.iterdir()] == ["export.pdf"]  # no temporary file left behind


def test_the_fuzz_lane_runs_these_properties() -> None:
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "tests/security/test_fuzz_store.py" in makefile
