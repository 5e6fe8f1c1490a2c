"""A topic the offline brain cannot read gets a clear warning; with a model, the prompts ask for
questions and queries in the topic's language."""

from __future__ import annotations

from typing import Any

import pytest

from research.brains.llm.llm_brain import LLMBrain
from research.schemas.state_shapes import ResearcherTask, ResearchRequest
from research.settings import Settings
from research.topic.language import ENGLISH, topic_language
from tests.fakes.openai_server import FakeOpenAIServer
from tests.helpers import events_of

GERMAN = "Wie funktionieren Wärmepumpen und warum sind sie im Winter effizient?"
INSTRUCTION = "Write the research questions and the search queries in German"


@pytest.mark.parametrize(
    ("topic", "language"),
    [
        (GERMAN, "German"),
        ("Die Geschichte der Druckerpresse", "German"),
        ("Comment fonctionnent les vaccins à ARN messager ?", "French"),
        ("¿Cómo funcionan las bombas de calor?", "Spanish"),
        ("Как работают тепловые насосы?", "a language other than English"),
        ("How do heat pumps work in winter?", ENGLISH),
        ("Gödel's incompleteness theorems", ENGLISH),
        ("CRISPR gene editing", ENGLISH),
        ("", ENGLISH),
    ],
)
def test_the_topic_language(topic: str, language: str) -> None:
    assert topic_language(topic) == language


def test_an_offline_run_on_a_german_topic_warns_that_it_reads_english_only(runner) -> None:
    run_id = runner.run(ResearchRequest(topic=GERMAN, allocation="100"))
    messages = [e.data.message for e in events_of(runner, run_id, "warning")]
    assert any("the offline brain reads English only" in m and "German" in m for m in messages), messages


def test_an_english_offline_run_gets_no_language_warning(runner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100"))
    assert not [e for e in events_of(runner, run_id, "warning") if "English only" in e.data.message]


def _settings(server: FakeOpenAIServer, tmp_path, **overrides: Any) -> Settings:
    return Settings(
        _env_file=None,
        openai_base_url=server.base_url,
        openai_api_key="sk-test",
        model="m",
        data_dir=tmp_path,
        **overrides,
    )


def _prompt_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in request["messages"])


def test_with_a_model_the_topic_language_is_asked_for_in_plan_and_queries(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        brain = LLMBrain(_settings(server, tmp_path))
        brain.plan(GERMAN, max_researchers=3, wants_allocation=True)
        task = ResearcherTask(researcher_id="web-1", kind="web", question="Wie effizient sind sie?", topic=GERMAN)
        brain.queries(task, "web")
        assert len(server.requests) >= 2
        assert all(INSTRUCTION in _prompt_text(r) for r in server.requests)

        server.reset()
        brain.plan("How do heat pumps work?", max_researchers=3, wants_allocation=True)
        assert server.requests and not any("The topic is written in" in _prompt_text(r) for r in server.requests)
