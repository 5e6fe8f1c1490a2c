"""The LLM writer held to a report shape's layout, through the real ChatOpenAI against the loopback
server: the sentence count it asks for per section follows the shape, within the reply cap."""

from __future__ import annotations

from research.report_shape import ReportShape
from tests.brains.test_grounded_writer import (
    QUESTIONS,
    brain_for,
    passages_in,
    request,
    section_requests,
    sections,
    server,
)
from tests.fakes.openai_server import FakeOpenAIServer

__all__ = ["server"]  # the loopback server fixture, shared with the grounded writer's tests


def _asked(server: FakeOpenAIServer, shape: ReportShape, reply_tokens: int | None = None) -> list[tuple[str, int]]:
    server.responder = sections(lambda user: {"sentences": [{"passage": 1, "text": passages_in(user)[1]}]})
    layout = shape.layout(len(QUESTIONS), reply_tokens)
    brain_for(server).write(request(layout=layout))
    calls = section_requests(server)
    assert len(calls) == len(QUESTIONS) + 1
    return [(c["messages"][0]["content"], len(passages_in(c["messages"][1]["content"]))) for c in calls]


def test_a_brief_asks_one_sentence_per_question(server: FakeOpenAIServer) -> None:
    asked = _asked(server, ReportShape(shape="brief"))
    assert all("Return 1 sentences" in system for system, _ in asked[:-1])
    assert "Return 2-3 sentences" in asked[-1][0]  # the summary paragraph


def test_a_long_target_asks_for_longer_sections_within_the_reply_cap(server: FakeOpenAIServer) -> None:
    asked = _asked(server, ReportShape(shape="detailed", target_words=900))
    layout = ReportShape(shape="detailed", target_words=900).layout(len(QUESTIONS))
    assert all(f"Return {layout.section_count} sentences" in system for system, _ in asked[:-1])
    assert layout.section_sentences > 8
    server.reset()
    capped = _asked(server, ReportShape(shape="detailed", target_words=900), reply_tokens=300)
    assert all("Return 2-4 sentences" in system for system, _ in capped[:-1])  # 300 tokens hold 4
