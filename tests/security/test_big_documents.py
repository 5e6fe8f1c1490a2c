"""Big documents: the library keeps a 50 MiB document whole, but search hits and
runs carry at most `max_source_text_chars` of it: the opening plus the passages that match."""

from __future__ import annotations

import time
from pathlib import Path

from research.relevance.passages import OMITTED, carried_text
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest
from research.sources.library.library_store import Library, LibraryProvider
from tests.settings_presets import library_settings

FILLER = "Unrelated filler about harbour logistics and crane schedules. " * 30 + "\n\n"
NEEDLE = "Lipid nanoparticles deliver the mRNA vaccines into cells, where ribosomes read it.\n\n"


def _huge_text(mib: int = 50) -> str:
    block = FILLER * 40 + NEEDLE + FILLER * 40
    return "How mRNA vaccines work, at length\n\n" + block * (mib * 1024 * 1024 // len(block) + 1)


def test_carried_text_keeps_small_texts_and_the_best_passages_of_big_ones() -> None:
    assert carried_text("anything", "short text", 100) == "short text"
    text = _huge_text(1)
    out = carried_text("lipid nanoparticles mrna", text, 20_000)
    assert len(out) <= 20_000
    assert out.startswith("How mRNA vaccines work") and "Lipid nanoparticles deliver" in out
    assert OMITTED.strip() in out


def test_a_50_mib_document_stays_whole_in_the_library_but_not_in_hits_or_runs(tmp_path: Path) -> None:
    library = Library(tmp_path / "data" / "library.sqlite")
    library.ensure_sample()
    huge = _huge_text(50)
    doc_id = library.add_document(
        title="mRNA vaccines, the long version", text=huge, kind="academic", url="library://test/huge"
    )
    assert len(library.get_text(doc_id)) == len(huge.strip())  # the library keeps it all

    retrieval = LibraryProvider(library, "academic", max_text_chars=50_000).search(
        "mRNA vaccines lipid nanoparticles", limit=5
    )
    assert retrieval.texts and max(len(t) for t in retrieval.texts.values()) <= 50_000

    settings = library_settings(tmp_path / "data", tmp_path / "logs", llm="offline", max_source_text_chars=50_000)
    runner = ResearchRunner(settings, library=library)
    started = time.monotonic()
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="010"))
    seconds = time.monotonic() - started
    view = fold(runner.store.events(run_id))
    assert any(s.url == "library://test/huge" for s in view.sources.values()), "the big document was found"
    lengths = [len(runner.store.get_text(run_id, sid) or "") for sid in view.sources]
    assert max(lengths) <= 50_000, max(lengths)
    assert seconds < 60, seconds
