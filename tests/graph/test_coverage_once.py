"""The writer reads back the coverage the last analyst worked out beside its call, when its sources
are the same, instead of working it out again before its first call; the draft is the same."""

from __future__ import annotations

import pytest

import research.graph.nodes.run_coverage as run_coverage
from research.graph.run_memos import AnsweredCoverage
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.helpers import events_of

TOPIC = "How do mRNA vaccines work?"


def _run(settings: Settings, monkeypatch: pytest.MonkeyPatch, calls: list[int]) -> tuple[str, int]:
    worked_out = run_coverage.question_coverage

    def counted(topic, questions, sources, text_of):  # type: ignore[no-untyped-def]
        calls.append(len(sources))
        return worked_out(topic, questions, sources, text_of)

    monkeypatch.setattr(run_coverage, "question_coverage", counted)
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="210", max_iterations=1))
    [draft] = events_of(runner, run_id, "draft_ready")
    return draft.data.markdown, len(events_of(runner, run_id, "critique_issued"))


def test_the_writer_reuses_the_last_analysts_coverage(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    draft, reviews = _run(settings, monkeypatch, calls)
    assert reviews >= 1 and calls and len(calls) == reviews  # one per analyst; none for the writer

    again: list[int] = []
    monkeypatch.setattr(AnsweredCoverage, "answers", lambda *args: None)  # the memo never matches
    fresh, _ = _run(settings.model_copy(update={"data_dir": settings.data_dir / "again"}), monkeypatch, again)
    assert len(again) == reviews + 1 and again[-1] == calls[-1]  # the writer's own, on the same sources
    assert fresh == draft
