"""The LLM writer held to a report shape's layout, through the real ChatOpenAI against the loopback
server: the sentence count it asks for per section follows the shape, within the reply cap, and a
run held short by that cap says so in its draft."""

from __future__ import annotations

from pathlib import Path

from research.events.payloads import DraftReady
from research.report_shape import ReportShape
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
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
from tests.settings_presets import loopback_llm_settings

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


def test_a_model_run_held_short_by_its_reply_cap_says_so(tmp_path: Path) -> None:
    with FakeOpenAIServer() as fake:
        settings = loopback_llm_settings(
            fake.base_url, data_dir=tmp_path / "data", log_dir=tmp_path / "logs", model="m", reply_tokens_writer=150
        )
        runner = ResearchRunner(settings)
        run_id = runner.run(
            ResearchRequest(
                topic="How do mRNA vaccines work?", allocation="100", report_shape=ReportShape(target_words=2000)
            )
        )
        asked = [r["messages"][0]["content"] for r in section_requests(fake)]
    ready = next(e.data for e in runner.store.events(run_id) if isinstance(e.data, DraftReady))
    assert asked and all("Return 1-2 sentences" in s or "Return 2-3 sentences" in s for s in asked)
    assert ready.length_note.endswith(
        "the writer's reply cap holds each section to a few sentences, so the report stops here rather than pad."
    )
