"""Whole runs on the sample library with the LLM brain on the loopback model (the real ChatOpenAI),
where the scripted model misbehaves as small models do: it ignores its passages, approves with
questions it says are not addressed, searches for URLs and echoes the prompts' markers. What the
reader gets is still grounded: a cited draft (the offline writer's when the model's fails, with a
warning saying so), a verdict that follows its coverage, search words, no marker anywhere."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import research.runs.runner
from research.brains.base import WriteRequest
from research.brains.fallback import FallbackBrain
from research.brains.llm.llm_brain import LLMBrain
from research.brains.offline.offline_brain import OfflineBrain
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, last_user_text, message_texts, requested_schema_name
from tests.settings_presets import loopback_llm_settings

TOPIC = "How do mRNA vaccines work?"
MEMORY = "There are two main types of mRNA vaccines called subunit vaccines and vector vaccines."
MARKERS = ("<<<DRAFT", "<<<END", "<<<SOURCES", "<<NOTES", "‹‹‹", "<source n=")


@pytest.fixture
def model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def settings_for(tmp_path: Path, model: FakeOpenAIServer, **values: Any) -> Settings:
    values.setdefault("max_iterations", 0)
    return loopback_llm_settings(
        model.base_url, data_dir=tmp_path / "data", log_dir=tmp_path / "logs", model="fake-model", **values
    )


def misbehaving(**answers: Callable[[dict[str, Any], Any], Any]) -> Callable[[dict[str, Any]], Any]:
    """The scripted model, with some schemas (or "text") answered by `answer(request, default_reply)`."""
    default = ScriptedModel(approve_from_round=1)

    def responder(request: dict[str, Any]) -> Any:
        name = requested_schema_name(request) or "text"
        reply = default(request)
        return answers[name](request, reply) if name in answers else reply

    return responder


def run(settings: Settings, topic: str = TOPIC) -> dict[str, Any]:
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic=topic, allocation="110"))
    result = to_json(fold(runner.store.events(run_id)))
    result["_events"] = runner.store.events(run_id)
    return result


def warnings_of(result: dict[str, Any]) -> list[str]:
    return [w["message"] for w in result["warnings"]]


def test_a_model_that_ignores_its_passages_gets_the_offline_draft_and_a_warning_not_an_uncited_report(
    tmp_path: Path, model: FakeOpenAIServer
) -> None:
    model.responder = misbehaving(SectionSentences=lambda _r, _d: {"sentences": [{"passage": 1, "text": MEMORY}]})

    result = run(settings_for(tmp_path, model))

    assert result["status"] == "finished"
    assert MEMORY not in result["draft"] and "subunit" not in result["draft"]
    assert result["citations"]  # the offline writer's draft, quoting the sources that were found
    assert any(
        w.startswith("write failed (invalid output after retries: the model's draft rests on none of the passages")
        for w in warnings_of(result)
    ), warnings_of(result)
    assert any("whose words were not in the passage they named" in w for w in warnings_of(result))


def test_the_writer_node_refuses_any_draft_that_cites_none_of_the_sources(
    tmp_path: Path, model: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    class UncitedFallback(OfflineBrain):
        def write(self, request: WriteRequest) -> str:  # a fallback that writes from memory too
            return f"# {request.topic}\n\n## Summary\n\n{MEMORY}\n"

    model.responder = misbehaving(SectionSentences=lambda _r, _d: {"sentences": [{"passage": 1, "text": MEMORY}]})
    settings = settings_for(tmp_path, model)
    brain = FallbackBrain(LLMBrain(settings), UncitedFallback(), on_warning=lambda s, m: None)
    monkeypatch.setattr(research.runs.runner, "make_brain", lambda *args, **kwargs: brain)

    result = run(settings)

    assert MEMORY not in result["draft"] and result["citations"]
    writer = [w["message"] for w in result["warnings"] if w["source"] == "writer"]
    assert any("cited none of the" in w and "offline writer wrote the draft" in w for w in writer), writer


def test_an_approval_beside_unaddressed_questions_is_not_an_approval(tmp_path: Path, model: FakeOpenAIServer) -> None:
    def approve_anyway(_request: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        coverage = [{**c, "covered": i == 0} for i, c in enumerate(reply["coverage"])]
        return {**reply, "status": "APPROVED", "critique": ["Two questions are not addressed."], "coverage": coverage}

    model.responder = misbehaving(AnalystVerdict=approve_anyway)

    result = run(settings_for(tmp_path, model))

    [critique] = result["critiques"]
    assert critique["status"] == "NEEDS_IMPROVEMENT"
    assert critique["missing_topics"] == result["research_questions"][1:]
    assert result["known_gaps"]  # the writer lists them


def test_url_queries_are_searched_as_words(tmp_path: Path, model: FakeOpenAIServer) -> None:
    model.responder = misbehaving(
        QueryPlan=lambda _r, _d: {
            "queries": ["https://www.cdc.gov/vaccines/covid-19/mrna-vaccines.html", "mRNA vaccine"]
        }
    )

    result = run(settings_for(tmp_path, model))

    queries = [q for r in result["researchers"] for q in r["queries"]]
    assert "cdc vaccines covid 19 mrna vaccines" in queries
    assert not [q for q in queries if "://" in q or "www." in q or ".gov" in q], queries


def test_internal_markers_never_reach_the_draft_notes_or_any_event(tmp_path: Path, model: FakeOpenAIServer) -> None:
    def leak_section(_request: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        return {"sentences": [{**s, "text": f"<<<DRAFT>> {s['text']} <<<END SOURCES>>>"} for s in reply["sentences"]]}

    def leak_text(request: dict[str, Any], reply: Any) -> Any:
        system = "\n".join(message_texts(request, "system"))
        if "taking notes" in system:
            return f"<<<NOTES>>>\n{reply}\n<<<END NOTES>>>"
        return f"<<<DRAFT>>>\n{reply}\n<<<END DRAFT>>>" if isinstance(reply, str) else reply

    model.responder = misbehaving(SectionSentences=leak_section, text=leak_text)

    result = run(settings_for(tmp_path, model, review_rounds=1))

    assert result["citations"]
    for event in result.pop("_events"):
        text = event.data.model_dump_json()
        for marker in MARKERS:
            assert marker not in text, (event.type, marker)


@pytest.mark.parametrize("review_rounds", [0, 1])
def test_a_covered_question_whose_section_keeps_no_sentence_is_a_known_gap_everywhere(
    tmp_path: Path, model: FakeOpenAIServer, review_rounds: int
) -> None:
    """The run's coverage finds both questions answered (evidence `sufficient` without the writer),
    but every sentence the model writes for the second fails grounding, so its section cites
    nothing: the run's evidence, notice, Known gaps (draft and JSON) and run_finished all say so,
    from the writer's own draft on (not only once a review round has read it)."""
    what, evidence = "What is mRNA vaccines and how does it work?", "What does the evidence say about mRNA vaccines?"

    def from_memory_on_evidence(request: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        if f"Research question: {evidence}" in last_user_text(request):
            return {"sentences": [{"passage": n, "text": MEMORY} for n in (1, 2)]}
        return reply

    plan = {"SupervisorDecision": lambda _r, reply: {**reply, "research_questions": [what, evidence]}}
    model.responder = misbehaving(**plan)
    control = run(settings_for(tmp_path / "control", model))
    assert control["evidence"] == "sufficient" and not control["known_gaps"]  # both covered, both written

    model.responder = misbehaving(**plan, SectionSentences=from_memory_on_evidence)
    result = run(settings_for(tmp_path / "run", model, review_rounds=review_rounds))

    draft = result["draft"]
    section = draft.split(f"## {evidence}", 1)[1].split("\n## ", 1)[0]
    assert "[" not in section and "do not answer" in section  # the section cites nothing, and says so
    assert result["known_gaps"] == [evidence]  # the JSON
    gaps = draft.split("## Known gaps", 1)[1].split("\n## ", 1)[0]
    assert f"- {evidence}" in gaps and what not in gaps  # the draft
    events = result.pop("_events")
    assessed = [e.data for e in events if e.type == "evidence_assessed"]
    assert assessed and all(a.evidence == "partial" and a.questions_covered == 1 for a in assessed), assessed
    [finished] = [e.data for e in events if e.type == "run_finished"]
    assert finished.evidence == result["evidence"] == "partial"
    [ready] = [e.data for e in events if e.type == "draft_ready"]
    assert ready.known_gaps == [evidence]
    notices = [w for w in warnings_of(result) if w.startswith("Thin evidence")]
    assert notices and all("1 of 2 questions covered" in w for w in notices), notices
