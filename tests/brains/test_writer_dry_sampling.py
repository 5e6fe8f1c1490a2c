"""The writer's anti-copy sampler (RESEARCH_WRITER_DRY_MULTIPLIER): the section and restating calls
carry llama.cpp's DRY fields in their request body, the condensing call (which copies by design) and
every other role do not, and with the setting at 0 no request carries them. Through the real
ChatOpenAI against the loopback OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.brains.test_grounded_condense import editor, lipid_request
from tests.brains.test_grounded_restate import brain
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import requested_schema_name

DRY_FIELDS = {"dry_multiplier", "dry_allowed_length"}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def dry_fields_by_schema(server: FakeOpenAIServer) -> dict[str, list[dict[str, Any]]]:
    seen: dict[str, list[dict[str, Any]]] = {}
    for req in server.requests:
        seen.setdefault(requested_schema_name(req), []).append({k: req[k] for k in DRY_FIELDS if k in req})
    return seen


def test_the_section_and_restating_calls_ask_for_dry_and_condensing_does_not(server: FakeOpenAIServer) -> None:
    server.responder = editor(lambda _sentence: " An ionizable lipid binds the mRNA and carries it into cells")
    brain(server, writer_dry_multiplier=0.8, writer_dry_allowed_length=5).write(lipid_request())

    seen = dry_fields_by_schema(server)
    asked = {"dry_multiplier": 0.8, "dry_allowed_length": 5}
    assert seen["SectionSentences"] and all(body == asked for body in seen["SectionSentences"])
    assert seen["Restatement"] and all(body == asked for body in seen["Restatement"])
    assert seen["Condensation"] and all(body == {} for body in seen["Condensation"])


def test_other_roles_never_ask_for_dry(server: FakeOpenAIServer) -> None:
    llm = brain(server, writer_dry_multiplier=0.8)
    llm.plan("How do mRNA vaccines work?", max_researchers=3, wants_allocation=True)

    assert server.requests and all(not DRY_FIELDS & set(req) for req in server.requests)


def test_off_by_default_no_request_carries_dry_fields(server: FakeOpenAIServer) -> None:
    server.responder = editor(lambda _sentence: " An ionizable lipid binds the mRNA and carries it into cells")
    brain(server).write(lipid_request())

    assert server.requests and all(not DRY_FIELDS & set(req) for req in server.requests)
