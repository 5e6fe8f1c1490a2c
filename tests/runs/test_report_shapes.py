"""Report shapes through the real runner on the sample library (offline brain): each shape and a
target length recorded in run_started, the writer's draft in that shape, the choice kept when a
paused run is continued by another process, and a revision that writes the report again in another
shape (a draft_revised event carrying the shape)."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.drafts.report_form import word_count
from research.events.payloads import DraftReady, RunStarted
from research.events.payloads_trust import DraftRevisedData
from research.report_shape import ReportShape
from research.runs.reshape import reshape_run
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.state_shapes import ResearchRequest
from tests.settings_presets import library_settings

TOPIC = "How do mRNA vaccines work?"


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> ResearchRunner:
    root = tmp_path_factory.mktemp("shapes")
    return ResearchRunner(library_settings(root / "data", root / "logs", llm="offline"))


def _run(runner: ResearchRunner, shape: ReportShape, **request: object) -> tuple[str, RunStarted, DraftReady]:
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="120", report_shape=shape, **request))  # type: ignore[arg-type]
    events = runner.store.events(run_id)
    started = next(e.data for e in events if isinstance(e.data, RunStarted))
    ready = next(e.data for e in events if isinstance(e.data, DraftReady))
    return run_id, started, ready


@pytest.fixture(scope="module")
def standard(runner: ResearchRunner) -> tuple[str, RunStarted, DraftReady]:
    return _run(runner, ReportShape())


def test_the_standard_shape_is_recorded_and_writes_todays_draft(standard: tuple[str, RunStarted, DraftReady]) -> None:
    _, started, ready = standard
    assert (started.report_shape, started.target_words) == ("standard", None)
    assert "## Key points" not in ready.markdown and "## Outline" not in ready.markdown
    assert ready.words == word_count(ready.markdown) and ready.length_note == ""


def test_a_brief_is_a_summary_and_a_key_point_per_question(
    runner: ResearchRunner, standard: tuple[str, RunStarted, DraftReady]
) -> None:
    run_id, started, ready = _run(runner, ReportShape(shape="brief"))
    assert started.report_shape == "brief"
    view = fold(runner.store.events(run_id))
    assert "## Key points" in ready.markdown
    assert all(f"- **{q.rstrip('?')}**: " in ready.markdown for q in view.research_questions)
    assert ready.words is not None and standard[2].words is not None and ready.words < standard[2].words / 1.5
    # The claim check still reads each key point against its own question.
    assert view.claims and {c.section for c in view.claims.claims} <= {
        "Summary",
        *(q.rstrip("?") for q in view.research_questions),
    }


def test_detailed_writes_longer_sections_from_more_sources(
    runner: ResearchRunner, standard: tuple[str, RunStarted, DraftReady]
) -> None:
    _, started, ready = _run(runner, ReportShape(shape="detailed"))
    assert started.report_shape == "detailed"
    assert ready.words is not None and standard[2].words is not None and ready.words > standard[2].words * 1.5
    assert len(ready.citations) >= len(standard[2].citations)


def test_outline_first_lists_the_sections_before_the_report(runner: ResearchRunner) -> None:
    _, _, ready = _run(runner, ReportShape(shape="outline"))
    assert ready.markdown.index("## Outline") < ready.markdown.index("## Summary")
    assert "1. Summary (" in ready.markdown


def test_a_target_the_evidence_cannot_fill_is_said_not_padded(
    runner: ResearchRunner, standard: tuple[str, RunStarted, DraftReady]
) -> None:
    run_id, started, ready = _run(runner, ReportShape(target_words=3000))
    assert started.target_words == 3000
    assert ready.length_note.startswith(f"About {ready.words:,} words of the 3,000 asked for")
    assert f"_{ready.length_note}_" in ready.markdown
    view = fold(runner.store.events(run_id))
    assert any(w.message == ready.length_note for w in view.warnings)  # said as a warning too
    assert to_json(view)["report_shape"] == {
        "shape": "standard",
        "target_words": 3000,
        "words": ready.words,
        "length_note": ready.length_note,
    }


def test_a_short_target_is_kept(runner: ResearchRunner, standard: tuple[str, RunStarted, DraftReady]) -> None:
    _, _, ready = _run(runner, ReportShape(target_words=150))
    assert ready.words is not None and ready.words <= 150 * 1.1 and ready.length_note == ""


def test_a_continued_run_keeps_its_shape(tmp_path: Path) -> None:
    settings = library_settings(tmp_path / "data", tmp_path / "logs", llm="offline")
    first = ResearchRunner(settings)
    run_id = first.run(
        ResearchRequest(topic=TOPIC, allocation="100", review_plan=True, report_shape=ReportShape(shape="brief"))
    )
    assert first.store.get_run(run_id).status == "paused"
    record = first.store.get_run(run_id)
    assert ResearchRunner(settings).stored_request(record).report_shape == ReportShape(shape="brief")

    ResearchRunner(settings).continue_plan(run_id)  # another process: its default shape is standard

    assert "## Key points" in (first.store.latest_draft(run_id).markdown or "")


def test_a_revision_writes_the_report_again_in_another_shape(runner: ResearchRunner) -> None:
    run_id, _, ready = _run(runner, ReportShape())
    before = runner.store.latest_draft(run_id)

    revision = reshape_run(runner.store, run_id, ReportShape(shape="brief", target_words=120), settings=runner.settings)

    assert revision.version == before.version + 1 and revision.check.ok
    assert "## Key points" in revision.markdown and word_count(revision.markdown) <= 120 * 1.1
    latest = runner.store.latest_draft(run_id)
    assert latest.markdown == revision.markdown and latest.note.startswith("Revised: Written again as Brief")
    event = runner.store.events(run_id)[-1].data
    assert isinstance(event, DraftRevisedData) and (event.report_shape, event.target_words) == ("brief", 120)
    view = fold(runner.store.events(run_id))
    assert view.report_shape == ReportShape(shape="brief", target_words=120) and view.draft == revision.markdown
    assert set(view.citations.values()) <= set(view.sources)  # every [n] is one of the run's sources
