"""The model claim judge's batches follow the server's structured-output method. On a llama-cpp-like
server, whose grammar holds a reply to MAX_ITEMS judgements, the claims go in batches of at most
that bound; on a server that takes json_schema, in one call up to the judge's cap. On llama-cpp every claim gets the model's verdict,
the meter counts each call, and when the run's call cap stops the batches the claims not reached
keep their offline verdict and say so. Real ChatOpenAI against the loopback fake."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from research.brains.llm.claim_judge import MAX_PER_CALL, REPLY_TOKENS_PER_JUDGEMENT, judge_claims
from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.structured import forget_methods, server_key
from research.schemas.state_shapes import CheckedClaim
from tests.brains.test_local_model_calls import llama_like, settings_for
from tests.fakes.openai_server import FakeOpenAIServer
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


# --- the batch follows the server's method ---------------------------------------------------------


def every_shown_judge(request: dict[str, Any]) -> Any:
    """A judge with no list bound (a server that takes json_schema): "partial" for every claim shown."""
    if requested_schema_name(request) != "ClaimJudgements":
        return ScriptedModel()(request)
    return {
        "judgements": [
            {"index": i, "verdict": "partial", "addresses_question": True, "reason": MODEL_REASON}
            for i in range(1, shown(request) + 1)
        ]
    }


def test_on_a_json_schema_server_twelve_claims_are_one_call(tmp_path: Path) -> None:
    notes: list[str] = []
    with FakeOpenAIServer(every_shown_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.caller.memory.put(server_key(brain._main), "json_schema")  # what an earlier call of the run learned
        out = judge_claims(brain, twelve_claims(), "# How do mRNA vaccines work?\n", notes.append)
        answered = judge_requests(server)

    assert [shown(r) for r in answered] == [12]
    assert answered[0]["response_format"]["type"] == "json_schema"
    assert [c.verdict for c in out] == ["partial"] * 12 and all(c.judged_by == "model" for c in out)
    assert brain.take_usage().calls == 1
    assert not notes


def test_on_a_json_schema_server_a_batch_stays_within_its_cap(tmp_path: Path) -> None:
    claims = [c.model_copy(update={"n": k}) for k, c in enumerate(twelve_claims() + twelve_claims(), 1)]
    with FakeOpenAIServer(every_shown_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.caller.memory.put(server_key(brain._main), "json_schema")
        out = judge_claims(brain, claims, "# How do mRNA vaccines work?\n")
        answered = judge_requests(server)

    assert [shown(r) for r in answered] == [MAX_PER_CALL, len(claims) - MAX_PER_CALL]
    assert all(c.judged_by == "model" for c in out)


def test_a_small_judge_reply_cap_makes_smaller_batches(tmp_path: Path) -> None:
    with FakeOpenAIServer(every_shown_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path, reply_tokens_judge=400), max_retries=0)
        brain.caller.memory.put(server_key(brain._main), "json_schema")
        judge_claims(brain, twelve_claims(), "# How do mRNA vaccines work?\n")
        answered = judge_requests(server)

    per_call = 400 // REPLY_TOKENS_PER_JUDGEMENT  # what the reply cap holds
    assert [shown(r) for r in answered] == [per_call, 12 - per_call]


def test_on_llama_cpp_remembered_the_batches_keep_the_grammar_bound(tmp_path: Path) -> None:
    with llama_like(grammar_bound_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.caller.memory.put(server_key(brain._main), "json_mode")
        out = judge_claims(brain, twelve_claims(), "# How do mRNA vaccines work?\n")
        answered = judge_requests(server)

    assert [shown(r) for r in answered] == [5, 5, 2]
    assert all(r["response_format"]["type"] == "json_object" for r in answered)  # no refused attempt
    assert all(c.judged_by == "model" for c in out)
    assert brain.take_usage().calls == 3


def test_with_nothing_remembered_the_first_batch_keeps_the_bound_and_the_rest_follow_the_method(
    tmp_path: Path,
) -> None:
    # The first call may end in llama-cpp's grammar; once it has shown json_schema works, one call.
    with FakeOpenAIServer(every_shown_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        judge_claims(brain, twelve_claims(), "# How do mRNA vaccines work?\n")
        answered = judge_requests(server)

    assert [shown(r) for r in answered] == [5, 7]
