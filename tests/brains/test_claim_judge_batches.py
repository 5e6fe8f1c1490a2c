"""The model claim judge on a llama-cpp-like server, whose grammar holds a reply to MAX_ITEMS
judgements: the claims go in batches of at most that bound, every claim gets the model's verdict,
the meter counts each call, and when the run's call cap stops the batches the claims not reached
keep their offline verdict and say so. Real ChatOpenAI against the loopback fake."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from research.brains.llm.claim_judge import judge_claims
from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.structured import forget_methods
from research.schemas.state_shapes import CheckedClaim
from tests.brains.test_local_model_calls import llama_like, settings_for
from tests.fakes.scripted_model import ScriptedModel, message_texts, requested_schema_name

MODEL_REASON = "the passage states only part of it"


@pytest.fixture(autouse=True)
def _fresh_structured_methods():
    forget_methods()
    yield
    forget_methods()


def twelve_claims() -> list[CheckedClaim]:
    """Twelve claims the offline check found supported, each citing its own passage."""
    return [
        CheckedClaim(
            n=k,
            sentence=f"Claim {k} says the lipid shell carries the mRNA into cell {k}.",
            source_id=f"s{k}",
            verdict="supported",
            score=0.9,
            passage=f"The lipid shell carries the mRNA into cell {k}.",
            section="Summary",
        )
        for k in range(1, 13)
    ]


def grammar_bound_judge(request: dict[str, Any]) -> Any:
    """A judge that answers "partial" for each claim it is shown, but no more judgements than the
    grammar's list bound lets through (as llama-cpp's grammar cuts the list)."""
    if requested_schema_name(request) != "ClaimJudgements":
        return ScriptedModel()(request)
    bound = request["response_format"]["schema"]["properties"]["judgements"]["maxItems"]
    return {
        "judgements": [
            {"index": i, "verdict": "partial", "addresses_question": True, "reason": MODEL_REASON}
            for i in range(1, min(shown(request), bound) + 1)
        ]
    }


def shown(request: dict[str, Any]) -> int:
    """How many claims (each with its passage) a judge request holds."""
    return len(re.findall(r'<source n="\d+"', "\n".join(message_texts(request, "user"))))


def judge_requests(server: Any) -> list[dict[str, Any]]:
    return [request for request, _usage in server.replied if requested_schema_name(request) == "ClaimJudgements"]


def test_twelve_claims_go_in_three_calls_and_every_claim_gets_the_model_verdict(tmp_path: Path) -> None:
    notes: list[str] = []
    with llama_like(grammar_bound_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        out = judge_claims(brain, twelve_claims(), "# How do mRNA vaccines work?\n", notes.append)
        answered = judge_requests(server)

    assert len(answered) == 3  # 5 + 5 + 2, each within the grammar's bound
    assert [shown(r) for r in answered] == [5, 5, 2]
    item = [r["response_format"]["schema"]["properties"]["judgements"]["items"] for r in answered]
    assert [i["properties"]["index"]["enum"] for i in item] == [[1, 2, 3, 4, 5]] * 2 + [[1, 2]]  # only those shown
    assert [c.verdict for c in out] == ["partial"] * 12
    assert all(c.reason == MODEL_REASON and c.judged_by == "model" for c in out)
    assert brain.take_usage().calls == 4  # the json_schema attempt llama-cpp refused, then three batches
    assert not notes


def test_a_call_cap_that_stops_the_batches_leaves_the_rest_offline_and_says_so(tmp_path: Path) -> None:
    notes: list[str] = []
    with llama_like(grammar_bound_judge) as server:
        # Three calls: llama-cpp's refusal of json_schema, then two batches; the third is over the cap.
        brain = LLMBrain(settings_for(server, tmp_path, max_llm_calls=3), max_retries=0)
        out = judge_claims(brain, twelve_claims(), "# How do mRNA vaccines work?\n", notes.append)
        answered = judge_requests(server)

    assert len(answered) == 2
    assert [c.judged_by for c in out] == ["model"] * 10 + ["offline"] * 2
    assert [c.verdict for c in out] == ["partial"] * 10 + ["supported"] * 2  # the offline verdict, kept
    [note] = notes
    assert "stopped after 2 of 3 calls" in note and "BudgetExceeded" in note and "2 claim(s)" in note
