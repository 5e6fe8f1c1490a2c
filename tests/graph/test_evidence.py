"""Empty and thin evidence are outcomes: a field on the result and the JSON, a warning, an honest draft."""

from __future__ import annotations

from research.drafts.evidence import assess_evidence
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.llm_shapes import QuestionCoverage
from research.schemas.state_shapes import Critique, ResearchRequest


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


def test_evidence_notice_analyst_and_known_gaps_read_one_coverage(runner: ResearchRunner) -> None:
    # The printing press once read "sufficient, every question covered" while its draft said the
    # sources "say little" and listed a Known gap, and the JSON known_gaps was empty.
    from bench.eval.near_miss import draft_gaps
    from research.relevance.coverage import NOTHING_FOUND

    view = fold(runner.store.events(runner.run(ResearchRequest(topic="What was the impact of the printing press?"))))
    data = to_json(view)
    analyst = {c.question: c.covered for c in view.critiques[-1].coverage}
    uncovered = [q for q in view.research_questions if not analyst[q]]
    assert data["known_gaps"] == uncovered
    assert [g.rstrip("?") for g in draft_gaps(view.draft or "")] == [q.rstrip("?") for q in uncovered]
    detail = view.evidence_detail
    assert detail and detail.questions_covered == len(view.research_questions) - len(uncovered)
    assert view.evidence == ("sufficient" if not uncovered else "partial")
    assert any(w.source == "evidence" for w in view.warnings) == bool(uncovered)
    body = (view.draft or "").split("## Known gaps", 1)[0]
    for question in view.research_questions:
        section = body.split(f"## {question.rstrip('?')}\n", 1)[1].split("\n## ", 1)[0]
        if question in uncovered:  # says so, cites nothing
            assert NOTHING_FOUND in section and "[" not in section, question
        else:
            assert "[" in section and NOTHING_FOUND not in section, question


def test_a_question_no_source_answers_is_not_covered_and_its_section_cites_nothing() -> None:
    from research.brains.base import NumberedSource
    from research.brains.offline.offline_writer import write_draft
    from research.relevance.coverage import NOTHING_FOUND, known_gaps, question_coverage
    from research.schemas.state_shapes import Source

    texts = {
        "s0": "The printing press is a machine that presses inked type onto paper, invented in Mainz. "
        "The printing press spread across Europe within fifty years of Gutenberg's first Bible.",
        "s1": "The printing press was the instrument of a commercial trade in Venice and Lyon. "
        "Printers carried the printing press along trade routes, and it spread to two hundred towns.",
    }
    text_of = texts.__getitem__
    sources = [
        Source(id=f"s{i}", kind="book", title=f"The printing press {i}", url=f"library://x/{i}", provider="library")
        for i in range(2)
    ]
    questions = ["How did the printing press spread?", "What did the printing press cost in wages?"]
    coverage = question_coverage("The printing press", questions, sources, text_of)
    assert [c.covered for c in coverage] == [True, False]
    assert coverage[1].source_ids == () and known_gaps(coverage) == [questions[1]]
    numbered = [NumberedSource(n=i + 1, source=s) for i, s in enumerate(sources)]
    draft = write_draft("The printing press", questions, numbered, text_of, known_gaps(coverage), tuple(coverage))
    spread = draft.split("## How did the printing press spread\n", 1)[1].split("\n## ", 1)[0]
    wages = draft.split("## What did the printing press cost in wages\n", 1)[1].split("\n## ", 1)[0]
    assert "[1]" in spread or "[2]" in spread
    assert NOTHING_FOUND in wages and "[" not in wages
    assert "- What did the printing press cost in wages?" in draft.split("## Known gaps", 1)[1]


def test_sufficient_needs_every_question_covered_by_the_coverage() -> None:
    from research.drafts.evidence import assess_coverage

    covered = [QuestionCoverage(question="a", covered=True), QuestionCoverage(question="b", covered=True)]
    assert assess_coverage(covered, 4, []).evidence == "sufficient"
    half = [covered[0], QuestionCoverage(question="b", covered=False)]
    status = assess_coverage(half, 4, ["q"])
    assert status.evidence == "partial" and status.questions_covered == 1 and status.warning
    assert assess_coverage(covered, 0, ["q"]).evidence == "none"


def test_the_drafts_known_gaps_are_the_coverages_whatever_the_writer_listed() -> None:
    from research.drafts.evidence import with_known_gaps

    written = (
        "# T\n\n## Summary\n\nText [1].\n\n## Known gaps\n\n- something the model made up\n\n## Sources\n\n[1] S\n"
    )
    fixed = with_known_gaps(written, ["Is it safe?"])
    assert "made up" not in fixed and fixed.count("## Known gaps") == 1
    assert "## Known gaps\n\n- Is it safe?\n\n## Sources\n\n[1] S" in fixed
    assert "## Known gaps" not in with_known_gaps(written, [])
    assert with_known_gaps("# T\n\n## Summary\n\nText.\n", ["Q?"]).endswith("## Known gaps\n\n- Q?\n")
