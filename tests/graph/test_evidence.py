"""Empty and thin evidence are outcomes: a field on the result and the JSON, a warning, an honest draft."""

from __future__ import annotations

from research.drafts.evidence import assess_evidence
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas import Critique, QuestionCoverage, ResearchRequest


def _critique(*covered: bool) -> Critique:
    return Critique(
        iteration=0,
        status="APPROVED" if all(covered) else "NEEDS_IMPROVEMENT",
        coverage=[QuestionCoverage(question=f"q{i}", covered=c) for i, c in enumerate(covered)],
    )


def test_the_three_outcomes() -> None:
    questions = ["q0", "q1", "q2"]
    assert assess_evidence(questions, 0, [_critique(True, True, True)], ["a"]).evidence == "none"
    partial = assess_evidence(questions, 3, [_critique(True, False, False)], ["a", "a", "b"])
    assert partial.evidence == "partial" and partial.questions_covered == 1 and partial.searched == ["a", "b"]
    assert "1 of 3 questions" in partial.warning
    assert assess_evidence(questions, 5, [_critique(True, True, True)], []).evidence == "sufficient"
    assert assess_evidence(questions, 5, [_critique(True, True, True)], []).warning is None


def test_bagpipes_says_nothing_was_found_and_what_was_searched(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How are bagpipes made?", allocation="111"))
    events = runner.store.events(run_id)
    view = fold(events)
    assert view.status == "finished" and view.evidence == "none"
    assert events[-1].type == "run_finished" and events[-1].data.evidence == "none"
    assert any(w.source == "evidence" and "No relevant evidence" in w.message for w in view.warnings)
    draft = view.draft or ""
    assert "No relevant sources were found" in draft and "## What was searched" in draft
    searched = view.evidence_detail.searched
    assert searched and all(f"- {q}" in draft for q in searched[:12])
    assert "did not contain usable text" not in draft and not view.citations
    data = to_json(view)
    assert data["evidence"] == "none" and data["evidence_detail"]["sources"] == 0


def test_a_covered_topic_is_sufficient_without_an_evidence_warning(runner: ResearchRunner) -> None:
    view = fold(runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))))
    assert view.evidence == "sufficient" and to_json(view)["evidence"] == "sufficient"
    assert not any(w.source == "evidence" for w in view.warnings)


def test_the_cli_json_carries_evidence_and_claims(tmp_path) -> None:
    import json

    from tests.helpers import run_cli

    empty = run_cli(["How are bagpipes made?", "--allocation", "111", "--json", "--quiet"], tmp_path)
    assert empty.returncode == 0, empty.stderr
    data = json.loads(empty.stdout)
    assert data["evidence"] == "none" and data["claims"] == [] and data["citation_precision"] is None
    (tmp_path / "b").mkdir()
    covered = run_cli(["How do mRNA vaccines work?", "--allocation", "111", "--json", "--quiet"], tmp_path / "b")
    data = json.loads(covered.stdout)
    assert data["evidence"] == "sufficient" and data["citation_precision"] == 1.0
    assert data["claims"] and {"n", "sentence", "verdict", "passage"} <= set(data["claims"][0])
