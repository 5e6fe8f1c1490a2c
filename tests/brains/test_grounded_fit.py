"""The grounded writer and reviser show a section only passages that address its question, and keep
only sentences that do: a passage that shares just the topic's words is not evidence for the question,
and a small model files whatever it is shown under the question it is asked. Through the real
ChatOpenAI against the loopback OpenAI-compatible server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from research.brains.base import ReviseRequest, number_sources
from research.brains.llm.grounded_writer import NO_ANSWER
from research.schemas.state_shapes import Source
from tests.brains.test_grounded_writer import (
    QUESTIONS,
    SOURCES,
    TEXTS,
    brain_for,
    passages_in,
    request,
    section_requests,
    sections,
    text_of,
)
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def copy_first(user: str) -> dict[str, Any]:
    return {"sentences": [{"passage": 1, "text": passages_in(user)[1]}]}


def test_a_question_the_sources_share_only_the_topic_with_costs_no_call_and_says_so(server: FakeOpenAIServer) -> None:
    # Every source is about mRNA vaccines; none says anything about what they cost.
    question = "What do mRNA vaccines cost?"
    server.responder = sections(copy_first)
    draft = brain_for(server).write(request(questions=[QUESTIONS[0], question]))

    assert draft.split(f"## {question}")[1].split("##")[0].strip() == NO_ANSWER
    assert not any(question in r["messages"][1]["content"] for r in section_requests(server))


MYOCARDITIS = "How often does myocarditis follow the second mRNA dose?"


def test_each_passage_shown_for_a_question_addresses_it(server: FakeOpenAIServer) -> None:
    server.responder = sections(copy_first)
    brain_for(server).write(request(questions=[MYOCARDITIS]))

    asked = next(r for r in section_requests(server) if MYOCARDITIS in r["messages"][1]["content"])
    shown = passages_in(asked["messages"][1]["content"])
    # Only the safety review speaks to myocarditis; the lipid and overview texts are not filler.
    assert shown and all(text in TEXTS["s-safety"] for text in shown.values())


def test_a_sentence_true_to_its_passage_but_not_to_its_question_is_dropped_and_said(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    def answer(user: str) -> dict[str, Any]:
        if QUESTIONS[0] in user:  # the lipid question: "fragile mRNA" is in its passage, delivery is not
            return {
                "sentences": [
                    {"passage": 1, "text": "The mRNA molecule is fragile."},
                    {"passage": 1, "text": "Ionizable lipids in a nanoparticle shell wrap the mRNA."},
                ]
            }
        return copy_first(user)

    server.responder = sections(answer)
    with caplog.at_level(logging.INFO, logger="research.agents"):
        draft = brain_for(server).write(request())

    lipid = draft.split(f"## {QUESTIONS[0]}")[1].split("##")[0]
    assert "Ionizable lipids in a nanoparticle shell wrap the mRNA [1]." in lipid
    assert "fragile" not in lipid
    assert "did not address their section's question" in caplog.text


def test_the_reviser_offers_a_section_no_passage_off_its_question(server: FakeOpenAIServer) -> None:
    draft = (
        "# How do mRNA vaccines work?\n\n"
        f"## {MYOCARDITIS}\n\nMyocarditis was reported mostly in young men, usually within a week of the second dose [2].\n"
    )
    server.responder = sections(copy_first)
    revise = ReviseRequest(draft=draft, instruction="Make it clearer.", sources=SOURCES, text_of=text_of)
    brain_for(server).revise(revise)

    [call] = section_requests(server)
    shown = passages_in(call["messages"][1]["content"])
    assert shown and all(text in TEXTS["s-safety"] for text in shown.values())


def test_a_passage_holds_no_sentence_a_presenter_could_not_read_aloud(server: FakeOpenAIServer) -> None:
    texts = {
        "s-review": (
            "This review summarises 40 studies of myocarditis after the second mRNA dose. "
            "We searched three databases for reports of myocarditis. "
            "Myocarditis after the second mRNA dose was rare and mostly mild."
        )
    }
    only = number_sources(
        [Source(id="s-review", title="Review", url="https://j.example/r", kind="academic", provider="fake")]
    )
    server.responder = sections(copy_first)
    brain_for(server).write(request(questions=[MYOCARDITIS], sources=only, text_of=lambda sid: texts.get(sid, "")))

    asked = next(r for r in section_requests(server) if MYOCARDITIS in r["messages"][1]["content"])
    assert passages_in(asked["messages"][1]["content"]) == {
        1: "Myocarditis after the second mRNA dose was rare and mostly mild."
    }
