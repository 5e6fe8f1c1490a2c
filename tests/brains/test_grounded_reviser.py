"""The LLM reviser through the real ChatOpenAI against the loopback server: structured, grounded
sentences per section like the writer (never free text), the reviewer's focus on the sections
holding its issues, a declined section said plainly, a section the model could not ground kept as
it was, and the title and Known gaps untouched."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from research.brains.base import ReviseRequest
from research.brains.llm.grounded_writer import NO_ANSWER, NoGroundedSentences
from research.events.agent_log import agent_log
from tests.brains.test_grounded_writer import MEMORY, SOURCES, TOPIC, brain_for, passages_in, server, text_of
from tests.fakes.scripted_model import requested_schema_name

__all__ = ["server"]  # the fixture, shared with the writer's tests

DRAFT = f"""# {TOPIC}

## Summary

mRNA vaccines work by giving cells the instructions to make one harmless viral protein [3].

## How do lipid nanoparticles deliver mRNA into cells?

Lipid nanoparticles wrap the fragile mRNA in a shell of ionizable lipids [1]. The moon is made of cheese [2].

## Known gaps

- Long-term follow-up
"""


def revise(server: Any, answer: Any, **overrides: Any) -> str:
    def responder(request: dict[str, Any]) -> Any:
        return answer(request["messages"][1]["content"]) if requested_schema_name(request) == "SectionSentences" else {}

    server.responder = responder
    values: dict[str, Any] = {"draft": DRAFT, "instruction": "Fix the claim", "sources": SOURCES, "text_of": text_of}
    return brain_for(server).revise(ReviseRequest(**(values | overrides)))


def first_passage(user: str) -> dict[str, Any]:
    return {"sentences": [{"passage": 1, "text": passages_in(user)[1]}, {"passage": 7, "text": MEMORY}]}


def test_every_section_is_rewritten_from_its_passages_and_the_title_and_gaps_stay(server: Any) -> None:
    revised = revise(server, first_passage)
    requests = [r for r in server.requests if requested_schema_name(r) == "SectionSentences"]
    assert len(requests) == 2  # the summary and the question, not Known gaps
    assert revised.startswith(f"# {TOPIC}\n\n## Summary\n\n") and revised.rstrip().endswith(
        "## Known gaps\n\n- Long-term follow-up"
    )
    question_prompt = requests[1]["messages"][1]["content"]
    # The section's current sentences name the passage each rests on; an uncited one names none.
    assert "- (passage 1) Lipid nanoparticles wrap the fragile mRNA" in question_prompt
    assert "- (passage 2) The moon is made of cheese." in question_prompt
    assert "Section: How do lipid nanoparticles deliver mRNA into cells?" in question_prompt
    assert MEMORY not in revised and "[7]" not in revised  # a passage it was not shown: dropped
    assert "ionizable lipids [1]." in revised and "instructions to make one harmless viral protein [3]." in revised


def test_the_reviewer_revises_only_the_sections_holding_its_issues(server: Any) -> None:
    question = "How do lipid nanoparticles deliver mRNA into cells?"
    revised = revise(server, first_passage, sections=(question.rstrip("?"),))
    assert len([r for r in server.requests if requested_schema_name(r) == "SectionSentences"]) == 1
    assert "mRNA vaccines work by giving cells the instructions to make one harmless viral protein [3]." in revised
    assert "The moon is made of cheese" not in revised


def test_a_declined_section_says_so_and_an_ungrounded_one_keeps_its_text(
    server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def answer(user: str) -> dict[str, Any]:
        if "Section: Summary" in user:
            return {"sentences": [{"passage": 0, "text": "The passages do not answer this"}]}
        return {"sentences": [{"passage": 1, "text": MEMORY}]}

    with pytest.raises(NoGroundedSentences):  # no section kept a sentence of the model's: a failed step
        revise(server, answer)
    caplog.set_level(logging.WARNING, logger=agent_log.name)
    revised = revise(server, answer, sections=("Summary", "How do lipid nanoparticles deliver mRNA into cells"))
    assert f"## Summary\n\n{NO_ANSWER}" in revised
    assert "The moon is made of cheese [2]." in revised  # its old text, not the model's memory
    assert MEMORY not in revised
    assert "kept 1 section(s) as they were" in caplog.text
