"""The grounded writer reads the run's coverage (research/relevance/coverage.py), the one computation
the evidence status and Known gaps read: a section rests only on the sources the coverage found
answering its question, a question they leave without sources costs no call and says so, and a
section written from too few sources to count as covered says that it is also a Known gap. Through
the real ChatOpenAI against the loopback OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bench.eval.local_model_figures import factual_sentences
from research.brains.llm.grounded_writer import NO_ANSWER, THIN
from research.relevance.coverage import QuestionEvidence
from research.text import split_sentences
from tests.brains.test_grounded_writer import (
    QUESTIONS,
    TEXTS,
    brain_for,
    passages_in,
    request,
    section_requests,
    sections,
)
from tests.fakes.openai_server import FakeOpenAIServer

LNP, SAFETY = QUESTIONS


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def copy_first(user: str) -> dict[str, Any]:
    return {"sentences": [{"passage": 1, "text": passages_in(user)[1].split(". ")[0]}]}


def section_of(draft: str, heading: str) -> str:
    return draft.split(f"## {heading}")[1].split("##")[0].strip()


def test_a_section_rests_only_on_the_sources_its_coverage_found_and_a_thin_one_says_it_is_a_gap(
    server: FakeOpenAIServer,
) -> None:
    coverage = (
        # The lipid text fits the question, but the run's coverage found no source answering it.
        QuestionEvidence(LNP, covered=False, source_ids=(), origins=0),
        # One source answers it: thin, so a Known gap, and the section says so beside its answer.
        QuestionEvidence(SAFETY, covered=False, source_ids=("s-safety",), origins=1),
    )
    server.responder = sections(copy_first)
    draft = brain_for(server).write(request(coverage=coverage, known_gaps=[LNP, SAFETY]))

    assert section_of(draft, LNP) == NO_ANSWER
    assert not any(LNP in r["messages"][1]["content"] for r in section_requests(server))
    safety = section_of(draft, SAFETY)
    assert safety.endswith(f"[2]. {THIN}") and TEXTS["s-safety"].split(". ")[0] in safety
    [asked] = [r for r in section_requests(server) if SAFETY in r["messages"][1]["content"]]
    shown = passages_in(asked["messages"][1]["content"]).values()
    assert shown and all(s in TEXTS["s-safety"] for text in shown for s in split_sentences(text))
    # The desk's own remark is not a finding the eval counts as an uncited sentence.
    assert THIN not in factual_sentences(draft)


def test_a_covered_section_carries_no_gap_remark(server: FakeOpenAIServer) -> None:
    coverage = (QuestionEvidence(SAFETY, covered=True, source_ids=("s-safety", "s-lnp"), origins=2),)
    server.responder = sections(copy_first)
    draft = brain_for(server).write(request(questions=[SAFETY], coverage=coverage, known_gaps=[]))

    assert THIN not in draft and "[2]" in section_of(draft, SAFETY)
