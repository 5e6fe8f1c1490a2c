"""The Sources table's Domain column for library sources: an imported file's name, a shipped or
front-matter document's collection, never the provider's name again; the exports' domain agrees."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from research.api import fold
from research.export.sources_csv import render_sources_csv
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.schemas.urls import library_place
from research.settings import Settings
from research.sources.library.importer import import_bytes
from ui.sources_frame import sources_frame

TOPIC = "How did Impressionism change painting?"
NOTES = "my impressionism notes.md"
NOTES_TEXT = (
    "# How Impressionism changed painting\n\n"
    "Impressionism changed painting by moving the easel outdoors, where painters such as Claude Monet "
    "recorded changing light in quick, broken brushstrokes. Impressionist painting left visible strokes "
    "and bright unmixed colour on the canvas, and it chose modern life over history painting. Critics "
    "first mocked the Impressionist exhibitions of 1874, yet the new way of painting spread across Europe.\n"
)


def test_a_library_address_names_its_file_or_collection() -> None:
    assert library_place("library://sample/impressionism/monet-series") == "sample/impressionism"
    assert library_place("library://upload/0a1b2c/my%20notes.pdf") == "my notes.pdf"
    assert library_place("library://file/3d4e5f/report.docx") == "report.docx"
    assert library_place("library://doc/0123456789abcdef") == "library"
    assert library_place("https://example.org/x") == "" and library_place("") == ""


def test_the_sources_tables_domain_says_where_each_library_source_is_from(make_app, data_dir: Path) -> None:
    runner = ResearchRunner(Settings(_env_file=None, data_dir=data_dir, sources="library", llm="offline"))
    assert not import_bytes(runner.library, NOTES, NOTES_TEXT.encode(), None).skipped
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="111"))
    view = fold(runner.store.events(run_id))

    frame = sources_frame(view)
    assert set(frame["Provider"]) == {"library"}
    domains = dict(zip(frame["Title"], frame["Domain"], strict=True))
    assert domains["How Impressionism changed painting"] == NOTES  # the imported file
    assert {d for t, d in domains.items() if t != "How Impressionism changed painting"} == {"sample/impressionism"}
    exported = csv.DictReader(io.StringIO(render_sources_csv(list(view.sources.values()), {}).decode("utf-8-sig")))
    assert {row["title"]: row["domain"] for row in exported} == domains  # the exports say the same

    page = make_app(run_id).run()  # what the dashboard shows for the stored run
    [table] = [d for d in page.dataframe if d.proto.id.endswith(f"sources-table-{run_id}")]
    assert set(table.value["Domain"]) == set(domains.values())
