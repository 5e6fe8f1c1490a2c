"""The reviewer over the whole draft: a new, re-checked version with reasons; the writer's stays v1."""

from __future__ import annotations

import pytest

from research.brains.base import WriteRequest
from research.brains.offline.offline_brain import OfflineBrain
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.text import split_sentences

FABRICATED = "Penguins on the moon first brewed the vaccine in volcanic glass bottles [1]."


@pytest.fixture
def sloppy_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The offline writer plus an unsupported claim and a sentence repeated in a later section."""
    original = OfflineBrain.write

    def write(self, request: WriteRequest):
        lines = original(self, request).splitlines()
        summary = lines.index("## Summary") + 2
        repeated = split_sentences(lines[summary])[0]
        lines[summary] += f" {FABRICATED}"
        last_section = max(
            i
            for i, line in enumerate(lines)
            if line.startswith("## ") and line != "## Known gaps" and i > summary and lines[i + 2].strip()
        )
        lines[last_section + 2] = f"{repeated} {lines[last_section + 2]}"
        return "\n".join(lines) + "\n"

    monkeypatch.setattr(OfflineBrain, "write", write)


def test_the_reviewer_writes_version_2_with_reasons(runner: ResearchRunner, sloppy_writer) -> None:
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))
    events = runner.store.events(run_id)
    checks = [e.data.model_dump(mode="json") for e in events if e.type == "claims_checked"]
    assert [c["version"] for c in checks] == [1, 2]
    assert any(c["verdict"] == "unsupported" and "Penguins" in c["sentence"] for c in checks[0]["claims"])
    assert checks[1]["precision"] == 1.0 and checks[0]["precision"] < 1.0
    revised = next(e.data for e in events if e.type == "draft_revised")
    assert revised.version == 2 and "Penguins" not in revised.markdown
    assert any("unsupported claim" in r for r in revised.reasons)
    assert any("repeated sentence" in r for r in revised.reasons)
    versions = runner.store.draft_versions(run_id)
    assert [v.version for v in versions] == [1, 2]
    assert "Penguins" in versions[0].markdown and versions[0].note == "Writer's draft"  # nothing is lost
    assert versions[1].note.startswith("Reviewer: ")
    view = fold(events)
    assert view.draft == revised.markdown and to_json(view)["revisions"][0]["version"] == 2
    assert to_json(view)["citation_precision"] == 1.0


def test_no_review_rounds_keeps_the_writers_draft(tmp_path, session_log_dir, sloppy_writer) -> None:
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        log_dir=session_log_dir,
        sources="library",
        llm="offline",
        review_rounds=0,
    )
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))
    assert not [e for e in runner.store.events(run_id) if e.type == "draft_revised"]
    assert [v.version for v in runner.store.draft_versions(run_id)] == [1]


def test_a_question_the_review_finds_unanswered_is_a_known_gap_in_the_json_and_the_evidence(
    runner: ResearchRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.eval.near_miss import agrees, draft_gaps

    original = OfflineBrain.write
    emptied: list[str] = []

    def write(self, request: WriteRequest):
        lines = original(self, request).splitlines()
        question = request.questions[-1]
        at = lines.index(f"## {question.rstrip('?')}")
        lines[at + 2] = "Nobody can say."  # the section now cites nothing
        emptied.append(question)
        return "\n".join(lines) + "\n"

    monkeypatch.setattr(OfflineBrain, "write", write)
    view = fold(runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))))
    question = emptied[-1]
    assert question in view.known_gaps and question.rstrip("?") in [g.rstrip("?") for g in draft_gaps(view.draft)]
    assert view.evidence == "partial" and to_json(view)["evidence"] == "partial"
    assert view.evidence_detail and view.evidence_detail.questions_covered == len(view.research_questions) - 1
    assert agrees(view)
