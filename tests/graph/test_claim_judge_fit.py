"""The model claim judge checks fit as well as support: each claim goes with its section's question,
a claim the judge says misses it is unsupported with the judge's reason, and a claim the offline
check found to change an identifier stays unsupported whatever the model says. Real ChatOpenAI
against the loopback OpenAI fake."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from research.brains.factory import make_brain
from research.brains.llm.claim_judge import judge_claims
from research.brains.llm.structured import forget_methods
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import CheckedClaim, ResearchRequest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name
from tests.settings_presets import loopback_llm_settings


@pytest.fixture(autouse=True)
def _fresh_structured_methods():
    forget_methods()
    yield
    forget_methods()


def _user(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "user")


def _first_claim_off_question() -> Callable[[dict[str, Any]], Any]:
    """A judge that finds the draft's first claim (claim 1 of its first batch) off its question."""
    batches = 0

    def responder(request: dict[str, Any]) -> Any:
        nonlocal batches
        if requested_schema_name(request) == "ClaimJudgements":
            batches += 1
            count = len(re.findall(r'<source n="\d+"', _user(request)))
            judgements = [
                {
                    "index": i,
                    "verdict": "supported",
                    "addresses_question": (batches, i) != (1, 1),
                    "reason": "about logistics",
                }
                for i in range(1, count + 1)
            ]
            return {"judgements": judgements}
        return ScriptedModel()(request)

    return responder


def test_a_claim_the_judge_finds_off_question_is_unsupported_with_its_reason(tmp_path: Path) -> None:
    with FakeOpenAIServer(_first_claim_off_question()) as server:
        runner = ResearchRunner(
            loopback_llm_settings(
                server.base_url,
                data_dir=tmp_path / "data",
                log_dir=tmp_path / "logs",
                model="main-model",
                llm_timeout=5,
                review_rounds=0,
            )
        )
        view = fold(
            runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111")))
        )
        judges = [r for r in server.requests if "Role: claim checker" in json.dumps(r)]
    assert judges and all("(question: " in _user(judge) for judge in judges)  # each claim with its question
    assert view.claims is not None
    judged = [c for c in view.claims.claims if c.verdict != "unverifiable"]
    assert view.claims.method == "model" and len(judged) >= 2
    first = judged[0]
    assert first.verdict == "unsupported" and first.failure == "off_question" and first.reason == "about logistics"
    rest = [c for c in judged[1:] if c.failure != "changed"]  # a changed token stays unsupported (below)
    assert rest and all(c.verdict == "supported" and c.failure == "" for c in rest)


def test_a_changed_identifier_stays_unsupported_whatever_the_model_says(tmp_path: Path) -> None:
    changed = CheckedClaim(
        n=1,
        sentence="Use Tokio's spawnblocking for blocking work.",
        source_id="s1",
        verdict="unsupported",
        score=1.0,
        passage="Use Tokio's spawn_blocking for blocking work.",
        section="Summary",
        failure="changed",
        reason='not faithful: it quotes "spawn_blocking" as "spawnblocking"',
    )
    fine = changed.model_copy(
        update={"sentence": "Use Tokio's spawn_blocking for blocking work.", "failure": "", "reason": ""}
    )
    with FakeOpenAIServer(ScriptedModel()) as server:  # the cooperative judge: "supported" for every claim
        settings = loopback_llm_settings(
            server.base_url, data_dir=tmp_path / "data", log_dir=tmp_path / "logs", model="main-model", llm_timeout=5
        )
        out = judge_claims(make_brain(settings), [changed, fine], "# Rust vs Go\n")
    assert out[0] == changed.model_copy(update={"judged_by": "offline"})  # the check's fact, not the model's call
    assert out[1].verdict == "supported" and out[1].failure == ""


def _doubting_judge(addresses: bool = True) -> Callable[[dict[str, Any]], Any]:
    """A small model's judge: every claim "partial", whatever its passage says."""

    def responder(request: dict[str, Any]) -> Any:
        if requested_schema_name(request) == "ClaimJudgements":
            count = len(re.findall(r'<source n="\d+"', _user(request)))
            judgements = [
                {"index": i, "verdict": "partial", "addresses_question": addresses, "reason": "not sure"}
                for i in range(1, count + 1)
            ]
            return {"judgements": judgements}
        return ScriptedModel()(request)

    return responder


PASSAGE = (
    "Critics claim that the vaccines alter human DNA. Messenger RNA never enters the cell nucleus, "
    "so it cannot alter human DNA."
)


def _claim(sentence: str) -> CheckedClaim:
    return CheckedClaim(
        n=1, sentence=sentence, source_id="s1", verdict="supported", score=1.0, passage=PASSAGE, section="Summary"
    )


@pytest.mark.parametrize("addresses", [True, False])
def test_a_whole_sentence_of_the_passage_word_for_word_is_supported_whatever_the_judge_doubts(
    tmp_path: Path, addresses: bool
) -> None:
    quote = _claim("Messenger RNA never enters the cell nucleus, so it cannot alter human DNA.")
    lifted = _claim("The vaccines alter human DNA.")  # a clause lifted out of "Critics claim that ..."
    reworded = _claim("Messenger RNA does not enter the nucleus, so it cannot alter DNA.")
    with FakeOpenAIServer(_doubting_judge(addresses)) as server:
        settings = loopback_llm_settings(
            server.base_url, data_dir=tmp_path / "data", log_dir=tmp_path / "logs", model="main-model", llm_timeout=5
        )
        out = judge_claims(make_brain(settings), [quote, lifted, reworded], "# Do mRNA vaccines alter DNA?\n")

    if addresses:
        assert out[0].verdict == "supported" and out[0].failure == ""
        assert (
            out[0].reason == "a whole sentence of its passage, word for word (the model judge said partial: not sure)"
        )
    else:  # off its question: fit is the model's call, a quote or not
        assert out[0].verdict == "unsupported" and out[0].failure == "off_question"
    assert all(c.verdict != "supported" for c in out[1:])  # a lifted clause or a paraphrase: the judge decides
