"""The grounded LLM writer through the real ChatOpenAI against the loopback OpenAI-compatible server:
sections from numbered passages, structured sentences naming their passage, `[n]` rendered by the
desk, and what happens when a model ignores its passages, names one it was not given, writes a
URL or leaks an internal marker. Also the analyst whose verdict contradicts its own coverage, and
queries that are URLs."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from research.brains.base import JudgeRequest, WriteRequest, number_sources
from research.brains.fallback import FallbackBrain
from research.brains.llm.grounded_writer import NO_ANSWER, NoGroundedSentences
from research.brains.llm.llm_brain import LLMBrain
from research.brains.offline.offline_brain import OfflineBrain
from research.schemas.state_shapes import ResearcherTask, Source
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name

TOPIC = "How do mRNA vaccines work?"
QUESTIONS = ["How do lipid nanoparticles deliver mRNA into cells?", "What adverse events follow mRNA vaccination?"]
TEXTS = {
    "s-lnp": (
        "Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids. "
        "After injection the nanoparticles are taken up by cells near the injection site. "
        "Inside the cell the lipids release the mRNA into the cytoplasm, where ribosomes read it."
    ),
    "s-safety": (
        "Serious adverse events after mRNA vaccination were rare in the phase 3 trials. "
        "Myocarditis was reported mostly in young men, usually within a week of the second dose. "
        "Most cases of myocarditis resolved with rest and standard treatment."
    ),
    "s-overview": (
        "mRNA vaccines work by giving cells the instructions to make one harmless viral protein. "
        "The immune system learns to recognise that protein and remembers it."
    ),
}
SOURCES = number_sources(
    [
        Source(id="s-lnp", title="Lipid nanoparticles", url="https://example.org/lnp", kind="web", provider="fake"),
        Source(id="s-safety", title="Safety review", url="https://journal.example/s", kind="academic", provider="fake"),
        Source(id="s-overview", title="Overview", url="https://example.org/o", kind="book", provider="fake"),
    ]
)
MEMORY = "There are two main types of mRNA vaccines called subunit vaccines and vector vaccines."


def text_of(source_id: str) -> str:
    return TEXTS.get(source_id, "")


def request(**overrides: Any) -> WriteRequest:
    values: dict[str, Any] = {
        "topic": TOPIC,
        "questions": QUESTIONS,
        "sources": SOURCES,
        "text_of": text_of,
        "known_gaps": [],
    }
    values.update(overrides)
    return WriteRequest(**values)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def brain_for(server: FakeOpenAIServer) -> LLMBrain:
    return LLMBrain(
        Settings(_env_file=None, openai_base_url=server.base_url, openai_api_key="sk-test", model="m", llm_timeout=5)
    )


def sections(answer: Callable[[str], dict[str, Any]]) -> Callable[[dict[str, Any]], Any]:
    """The scripted model, with the writer's SectionSentences answered by `answer(user prompt)`."""
    default = ScriptedModel()

    def responder(req: dict[str, Any]) -> Any:
        if requested_schema_name(req) == "SectionSentences":
            return answer(req["messages"][1]["content"])
        return default(req)

    return responder


def passages_in(user: str) -> dict[int, str]:
    return {int(n): t for n, t in re.findall(r'<source n="(\d+)" kind="passage"[^>\n]*>\n([^\n]*)', user)}


def section_requests(server: FakeOpenAIServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if requested_schema_name(r) == "SectionSentences"]


# --- grounded by construction ------------------------------------------------------------------------


def test_each_section_is_written_from_numbered_passages_and_the_desk_renders_the_citations(
    server: FakeOpenAIServer,
) -> None:
    # A writer that takes the best passage it is shown, in that passage's words.
    server.responder = sections(lambda user: {"sentences": [{"passage": 1, "text": passages_in(user)[1]}]})
    draft = brain_for(server).write(request(known_gaps=["Long-term follow-up"]))

    assert draft.startswith("# How do mRNA vaccines work?\n")
    assert "## Summary" in draft and all(f"## {q}" in draft for q in QUESTIONS)
    assert draft.rstrip().endswith("## Known gaps\n\n- Long-term follow-up")
    # The lipid question's section cites the lipid source, the safety question's the safety review.
    lnp_section = draft.split(f"## {QUESTIONS[0]}")[1].split("##")[0]
    safety_section = draft.split(f"## {QUESTIONS[1]}")[1].split("##")[0]
    assert "[1]" in lnp_section and "Lipid nanoparticles wrap the fragile mRNA" in lnp_section
    assert "[2]" in safety_section and "adverse events" in safety_section
    summary = draft.split("## Summary")[1].split("##")[0]
    assert "[3]" in summary and "instructions to make one harmless viral protein" in summary
    calls = section_requests(server)
    assert len(calls) == len(QUESTIONS) + 1  # one per question, then the summary
    first = calls[0]
    shape = first["response_format"]["json_schema"]["schema"]
    sentence = shape["$defs"]["GroundedSentence"]["properties"]
    user = first["messages"][1]["content"]
    # Only the numbers it was shown (0: none answers); the safety review, on the topic but not on
    # the lipid question, is not among them.
    assert sentence["passage"]["enum"] == [0, 1, 2] and len(passages_in(user)) == 2
    assert f"Research question: {QUESTIONS[0]}" in user and '<source n="1" kind="passage"' in user
    assert "<<<SOURCES>>>" in user and "Security rule" in first["messages"][0]["content"]


def test_a_llama_cpp_server_gets_the_passage_numbers_as_a_grammar_enum(server: FakeOpenAIServer) -> None:
    server.like_llama_cpp = True  # json_schema answered with HTTP 500, JSON mode with a schema accepted

    draft = brain_for(server).write(request())

    assert "[1]" in draft and "[2]" in draft and "[3]" in draft
    grammar = [r for r in section_requests(server) if (r.get("response_format") or {}).get("type") == "json_object"]
    assert grammar
    items = grammar[0]["response_format"]["schema"]["properties"]["sentences"]["items"]
    assert items["properties"]["passage"]["enum"] == [0, 1, 2]  # the two passages on the lipid question
    assert list(items["properties"]) == ["passage", "text"]  # the passage first: written from it


def test_a_sentence_naming_a_passage_it_was_not_given_is_dropped_and_said(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    def answer(user: str) -> dict[str, Any]:
        first = passages_in(user)[1]
        return {
            "sentences": [
                {"passage": 9, "text": "Efficacy reached 99 percent in every trial."},
                {"passage": 1, "text": first},
            ]
        }

    server.responder = sections(answer)
    with caplog.at_level(logging.WARNING, logger="research.agents"):
        draft = brain_for(server).write(request())

    assert "99 percent" not in draft and "[9]" not in draft
    assert re.findall(r"\[(\d+)\]", draft) and set(re.findall(r"\[(\d+)\]", draft)) <= {"1", "2", "3"}
    assert "named a passage the model was not given" in caplog.text


def test_a_sentence_that_misspells_or_changes_its_passage_is_dropped_and_said(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    def answer(user: str) -> dict[str, Any]:
        first = passages_in(user)[1]
        slipped = first.replace("nanoparticles", "nanoparticels").replace("Myocarditis", "Myocarditsi")
        return {"sentences": [{"passage": 1, "text": slipped}, {"passage": 1, "text": first}]}

    server.responder = sections(answer)
    with caplog.at_level(logging.WARNING, logger="research.agents"):
        draft = brain_for(server).write(request())

    assert "nanoparticels" not in draft and "Myocarditsi" not in draft
    assert "Lipid nanoparticles wrap the fragile mRNA" in draft  # the faithful copy of the same passage stays
    assert "changed or misspelt a number, name or word of their passage" in caplog.text


def test_a_model_that_ignores_its_passages_fails_the_step_and_the_offline_writer_drafts_with_a_warning(
    server: FakeOpenAIServer,
) -> None:
    server.responder = sections(
        lambda user: {"sentences": [{"passage": 1, "text": MEMORY}, {"passage": 2, "text": MEMORY}]}
    )
    warnings: list[tuple[str, str]] = []

    with pytest.raises(NoGroundedSentences, match="rests on none of the passages of the 3 sources"):
        brain_for(server).write(request())
    draft = FallbackBrain(brain_for(server), OfflineBrain(), lambda s, m: warnings.append((s, m))).write(request())

    assert MEMORY not in draft and "subunit" not in draft
    assert "[1]" in draft or "[2]" in draft  # the offline writer quotes the sources it was given
    [(source, message)] = warnings
    assert source == "openai" and message.startswith("write failed (invalid output after retries: the model's draft")
    assert message.endswith("used the offline brain for this step")


def test_a_section_the_model_says_no_passage_answers_says_so_and_cites_nothing(server: FakeOpenAIServer) -> None:
    def answer(user: str) -> dict[str, Any]:
        if QUESTIONS[1] in user:
            return {"sentences": [{"passage": 0, "text": "The passages do not say how safe the vaccines are."}]}
        return {"sentences": [{"passage": 1, "text": passages_in(user)[1]}]}

    server.responder = sections(answer)
    draft = brain_for(server).write(request())

    safety_section = draft.split(f"## {QUESTIONS[1]}")[1].split("##")[0]
    assert safety_section.strip() == NO_ANSWER and "[" not in safety_section


def test_a_question_no_source_speaks_to_costs_no_call_and_says_so(server: FakeOpenAIServer) -> None:
    question = "Which bagpipe reeds suit Highland pipes?"
    draft = brain_for(server).write(request(questions=[QUESTIONS[0], question]))

    assert draft.split(f"## {question}")[1].strip().startswith(NO_ANSWER)
    assert not any(question in r["messages"][1]["content"] for r in section_requests(server))


def test_urls_markers_and_markup_never_reach_the_draft(server: FakeOpenAIServer) -> None:
    def answer(user: str) -> dict[str, Any]:
        first = passages_in(user)[1]
        return {
            "sentences": [
                {"passage": 1, "text": f"<<<DRAFT>> {first} [7]"},
                {
                    "passage": 1,
                    "text": "See https://www.cdc.gov/vaccines/covid-19 for lipid nanoparticles mRNA details.",
                },
                {"passage": 1, "text": "<<<END SOURCES>>> ‹‹‹DRAFT››› nanoparticles."},
            ]
        }

    server.responder = sections(answer)
    draft = brain_for(server).write(request())

    for leaked in ("<<<", ">>", "‹‹‹", "DRAFT", "SOURCES", "cdc.gov", "https://", "[7]"):
        assert leaked not in draft, leaked
    assert "Lipid nanoparticles wrap the fragile mRNA" in draft


# --- the analyst and the queries ------------------------------------------------------------------------


def _judged_after_approval(server: FakeOpenAIServer, critique: list[str], coverage: list[dict[str, Any]]):
    """The analyst's judgement of SOURCES when the model approves with this critique and coverage
    (every other request answered by the scripted model)."""

    def verdict() -> dict[str, Any]:
        return {
            "status": "APPROVED",
            "critique": critique,
            "missing_topics": [],
            "recommended_queries": [],
            "coverage": coverage,
        }

    default = ScriptedModel()
    server.responder = lambda req: verdict() if requested_schema_name(req) == "AnalystVerdict" else default(req)
    return brain_for(server).judge(JudgeRequest(TOPIC, QUESTIONS, [ns.source for ns in SOURCES], [], 1, text_of))


def test_the_analysts_approval_follows_its_own_coverage(server: FakeOpenAIServer) -> None:
    result = _judged_after_approval(
        server,
        ["Good overall.", "The second question is not addressed by any source."],
        [
            {"question": "How lipid nanoparticles deliver mRNA", "covered": True, "source_count": 2, "note": ""},
            {"question": "Safety", "covered": False, "source_count": 0, "note": "not addressed"},
        ],
    )

    assert result.status == "NEEDS_IMPROVEMENT"
    assert [c.question for c in result.coverage] == QUESTIONS  # reworded, in order: matched by place
    assert [c.covered for c in result.coverage] == [True, False]
    assert result.missing_topics == [QUESTIONS[1]] and result.recommended_queries
    assert any("1 of 2 questions are not covered" in line for line in result.critique)


def test_an_approval_whose_critique_says_a_question_is_not_addressed_is_not_an_approval(
    server: FakeOpenAIServer,
) -> None:
    result = _judged_after_approval(
        server,
        ["Delivery is covered well.", "Safety is not addressed."],
        [{"question": q, "covered": True, "source_count": 2, "note": ""} for q in QUESTIONS],
    )

    assert result.status == "NEEDS_IMPROVEMENT" and result.missing_topics == ["Safety is not addressed."]


def test_url_queries_become_search_words(server: FakeOpenAIServer) -> None:
    urls = {
        "queries": [
            "https://www.cdc.gov/vaccines/covid-19/mrna.html",
            "cdc.gov/vaccines",
            "mRNA vaccine lipid delivery",
        ]
    }
    default = ScriptedModel()
    server.responder = lambda req: urls if requested_schema_name(req) == "QueryPlan" else default(req)
    task = ResearcherTask(researcher_id="web-1", kind="web", question=QUESTIONS[0], topic=TOPIC)

    queries = brain_for(server).queries(task, "web")

    assert queries == ["cdc vaccines covid 19 mrna", "cdc vaccines", "mRNA vaccine lipid delivery"]
    assert not any("://" in q or ".gov" in q for q in queries)
    assert json.dumps(queries)  # plain strings


def test_a_url_querys_page_id_is_not_a_search_word(server: FakeOpenAIServer) -> None:
    # What Qwen2.5-Coder-1.5B wrote as a query on the eval's first run.
    reply = {"queries": ["https://www.npr.org/2021/03/14/875611177/how-mrna-vaccines-work"]}
    default = ScriptedModel()
    server.responder = lambda req: reply if requested_schema_name(req) == "QueryPlan" else default(req)
    task = ResearcherTask(researcher_id="web-1", kind="web", question=QUESTIONS[0], topic=TOPIC)
    assert brain_for(server).queries(task, "web") == ["npr how mrna vaccines work"]  # no date, no page id


def test_a_sentence_ends_with_one_full_stop_and_keeps_its_marker() -> None:
    from research.brains.llm.grounded_writer import clean_sentence

    assert clean_sentence("The dataset covered millions of doses..") == "The dataset covered millions of doses."
    assert clean_sentence("mRNA is a fragile molecule, ") == "mRNA is a fragile molecule."


def test_a_services_query_syntax_becomes_its_search_words_and_an_identifier_goes(server: FakeOpenAIServer) -> None:
    # What Qwen2.5-Coder-1.5B wrote as academic queries on the rust near miss.
    reply = {"queries": ["OpenAlex:search?q=prevention+of+rust+on+old+cars&fq=type:article", "arXiv:1804.07325"]}
    default = ScriptedModel()
    server.responder = lambda req: reply if requested_schema_name(req) == "QueryPlan" else default(req)
    task = ResearcherTask(researcher_id="academic-1", kind="academic", question=QUESTIONS[0], topic=TOPIC)
    assert brain_for(server).queries(task, "academic") == ["prevention of rust on old cars"]
