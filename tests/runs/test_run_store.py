"""The run store: run records, draft versions, and page text kept out of graph state."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.schemas.state_shapes import ResearchRequest, Source
from research.settings import Settings
from research.sources.provider_base import Retrieval
from tests.helpers import final_state

MARKER = "ZQXJ-FULL-PAGE-TEXT"
PAGE_CHARS = 200_000


def big_page(source_id: str) -> str:
    """200 KB of page text: a few quotable sentences, then a marker block no sentence splitter
    would quote (one run-on block), so any copy of it in state would be the page itself."""
    head = (
        "Heat pumps move heat with a refrigerant cycle that carries it from the outside air indoors. "
        "Field trials of heat pumps in cold climates found they stay efficient well below freezing. "
    )
    block = f" {MARKER}-{source_id} " + " ".join(["filler"] * ((PAGE_CHARS - len(head)) // 7))
    return (head + block)[:PAGE_CHARS]


class BigPageRouter:
    """Two sources per query, each with a 200 KB page (the same two URLs for every query)."""

    def describe(self, kind):
        return ["big-stub"]

    def expected_seconds(self, kind):
        return None

    def retrieve(self, kind, query, limit, topic=None) -> Retrieval:
        sources = [
            Source(
                title=f"Heat pumps guide {i}",
                url=f"https://site{i}.example.org/heat-pumps",
                kind=kind,
                provider="big-stub",
                snippet="Heat pumps: a short snippet.",
            )
            for i in (1, 2)
        ]
        return Retrieval(sources=sources, texts={s.id: big_page(s.id) for s in sources}, providers_used=["big-stub"])


def test_page_text_stays_out_of_checkpoints_and_is_kept_in_the_store(settings: Settings) -> None:
    runner = ResearchRunner(settings, sources=BigPageRouter())
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100", max_iterations=0))
    assert runner.store.get_run(run_id).status == "finished"

    sources = final_state(runner, run_id)["sources"]
    assert len(sources) == 2
    for source in sources:
        text = runner.store.get_text(run_id, source.id)
        assert len(text) == PAGE_CHARS and f"{MARKER}-{source.id}" in text
        assert len(source.snippet) <= 600

    db_files = [p for p in settings.data_dir.glob("checkpoints.sqlite*") if p.is_file()]
    total = sum(p.stat().st_size for p in db_files)
    with sqlite3.connect(settings.checkpoints_db) as db:
        blobs = [bytes(row[0]) for row in db.execute("SELECT checkpoint FROM checkpoints")]
        blobs += [bytes(row[0]) for row in db.execute("SELECT value FROM writes") if row[0] is not None]
        values = [bytes(row[0]) for row in db.execute("SELECT blob FROM checkpoint_blobs") if row[0] is not None]
    assert len(values) > 10  # the channels' values (research/runs/blob_saver.py): searched like the rest
    blobs += values
    assert len(blobs) > 10
    assert not [b for b in blobs if MARKER.encode() in b or b"filler filler filler" in b]
    # Tens of checkpoints of two 200 KB pages would be megabytes; ids and snippets are a few KB each.
    assert total < PAGE_CHARS * len(sources), total


def test_draft_versions_are_kept(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="120", max_iterations=0))
    [first] = runner.store.draft_versions(run_id)
    assert (first.version, first.note) == (1, "Writer's draft")
    assert first.markdown == final_state(runner, run_id)["draft"].markdown

    edited = first.markdown.replace("## Summary", "## Summary (edited)")
    assert runner.store.save_draft_version(run_id, edited, note="edited") == 2
    versions = runner.store.draft_versions(run_id)
    assert [(v.version, v.note) for v in versions] == [(1, "Writer's draft"), (2, "edited")]
    assert versions[0].markdown == first.markdown  # the original is never overwritten
    assert runner.store.latest_draft(run_id).markdown == edited


def test_run_records(runner: ResearchRunner) -> None:
    first = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="120", max_iterations=0))
    second = runner.run(ResearchRequest(topic="Rust vs Go for backend services", max_iterations=0))
    assert first != second
    record = runner.store.get_run(first)
    assert (record.topic, record.requested_allocation, record.allocation, record.allocation_origin) == (
        "How do mRNA vaccines work?",
        "120",
        "120",
        "user",
    )
    assert record.status == "finished" and record.brain == "offline"
    assert record.source_count > 0 and record.summary["critiques"] >= 1
    assert record.seconds is not None and record.seconds >= 0
    assert [r.run_id for r in runner.store.list_runs()] == [second, first]  # newest first

    runner.store.delete_run(first)
    assert runner.store.get_run(first) is None
    assert runner.store.events(first) == [] and runner.store.draft_versions(first) == []
    assert runner.store.get_run(second) is not None


def test_store_survives_a_new_process_view(tmp_path: Path) -> None:
    # Everything is on disk: a second store object on the same file (another process, a page
    # reload) sees the same runs and events.
    a = RunStore(tmp_path / "runs.sqlite")
    a.create_run("r1", "topic", None, "offline")
    a.put_texts("r1", {"s1": "page text", "s2": ""})
    b = RunStore(tmp_path / "runs.sqlite")
    assert b.get_run("r1").topic == "topic"
    assert b.get_text("r1", "s1") == "page text"
    assert b.get_text("r1", "s2") == "" and b.get_text("r2", "s1") == ""


def test_checkpoints_and_events_are_written_in_wal_mode_without_an_fsync_per_commit(runner: ResearchRunner) -> None:
    # synchronous=FULL fsynced the WAL on every checkpoint write, while holding the saver's lock.
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100", max_iterations=0))
    with runner.checkpointer() as saver:
        assert saver.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert saver.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert saver.get_tuple({"configurable": {"thread_id": run_id}}) is not None
    with runner.store._connect() as db:
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 1
