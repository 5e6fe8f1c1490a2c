"""The claim-check node: after the writer, offline, and with a model judge over the real ChatOpenAI
against the loopback OpenAI fake (a failing judge degrades to the offline check with a warning)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from research.brains.llm.claim_judge import BATCH, MAX_PER_CALL
from research.brains.llm.structured import forget_methods
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.state_shapes import ResearchRequest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name
from tests.settings_presets import loopback_llm_settings


@pytest.fixture(autouse=True)
def _fresh_structured_methods():
    forget_methods()
    yield
    forget_methods()


def test_every_cited_sentence_is_checked_after_the_writer(runner: ResearchRunner) -> None:
    events = runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111")))
    types = [e.type for e in events]
    assert types.index("claims_checked") > types.index("draft_ready")
    check = next(e for e in events if e.type == "claims_checked").data.model_dump(mode="json")
    view = fold(events)
    cited = len(re.findall(r"\[\d+\](?!\()", view.draft.split("## Sources")[0]))
    assert check["version"] == 1 and check["method"] == "offline" and len(check["claims"]) == cited
    assert check["precision"] == 1.0 and all(c["passage"] for c in check["claims"])
    data = to_json(view)
    assert data["citation_precision"] == 1.0 and len(data["claims"]) == cited


def _llm_runner(tmp_path: Path, server: FakeOpenAIServer, review_rounds: int = 0, **values: Any) -> ResearchRunner:
    return ResearchRunner(
        loopback_llm_settings(
            server.base_url,
            data_dir=tmp_path / "data",
            log_dir=tmp_path / "logs",
            model="main-model",
            review_rounds=review_rounds,
            openai_api_key="sk-test-claims-0123456789",
            llm_timeout=5,
            **values,
        )
    )


def _judge_everything_unsupported(request: dict[str, Any]) -> Any:
    if requested_schema_name(request) == "ClaimJudgements":
        user = "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "user")
        count = len(re.findall(r'<source n="\d+"', user))
        return {
            "judgements": [{"index": i, "verdict": "unsupported", "reason": "not stated"} for i in range(1, count + 1)]
        }
    return ScriptedModel()(request)


def _claims_shown(request: dict[str, Any]) -> int:
    user = "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "user")
    return len(re.findall(r'<source n="\d+"', user))


def _llama_like(responder: Any) -> FakeOpenAIServer:
    server = FakeOpenAIServer(responder)
    server.like_llama_cpp = True  # refuses json_schema; takes JSON mode with the schema (a grammar)
    return server


@pytest.mark.parametrize(
    ("server_for", "per_call"),
    [(FakeOpenAIServer, MAX_PER_CALL), (_llama_like, BATCH)],
    ids=["json_schema-server-one-call", "llama-cpp-grammar-bound"],
)
def test_a_model_judges_all_claims_in_batches_the_servers_method_holds(
    tmp_path: Path, server_for: Any, per_call: int
) -> None:
    with server_for(_judge_everything_unsupported) as server:
        runner = _llm_runner(tmp_path, server)
        view = fold(
            runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111")))
        )
        judge_calls = [r for r in server.requests if "Role: claim checker" in json.dumps(r)]
    verifiable = [c for c in view.claims.claims if c.verdict != "unverifiable"]
    assert BATCH < len(verifiable) <= MAX_PER_CALL  # one call on json_schema, more in the grammar's bound
    assert [_claims_shown(r) for r in judge_calls] == [
        min(per_call, len(verifiable) - k) for k in range(0, len(verifiable), per_call)
    ]
    assert view.claims.method == "model" and view.claims.claims
    assert all(c.verdict in ("unsupported", "unverifiable") for c in view.claims.claims)
    assert all(c.judged_by == "model" for c in verifiable)
    assert view.citation_precision == 0.0


def test_a_call_cap_that_stops_the_judge_leaves_the_rest_offline_visibly(tmp_path: Path) -> None:
    """The run's call cap reached after the judge's first batch (llama-cpp's grammar bound): that batch
    has the model's verdict, every later claim keeps the offline one, marked so in the claims_checked
    event, with a warning."""
    topic = ResearchRequest(topic="How do mRNA vaccines work?", allocation="111")
    with _llama_like(_judge_everything_unsupported) as server:
        _llm_runner(tmp_path / "uncapped", server).run(topic)
        before_judge = next(i for i, r in enumerate(server.requests) if "Role: claim checker" in json.dumps(r))
    with _llama_like(_judge_everything_unsupported) as server:
        runner = _llm_runner(tmp_path / "capped", server, max_llm_calls=before_judge + 1)
        view = fold(runner.store.events(runner.run(topic)))
        judge_calls = [r for r in server.requests if "Role: claim checker" in json.dumps(r)]
    assert len(judge_calls) == 1 and view.claims is not None and view.claims.method == "model"
    verifiable = [c for c in view.claims.claims if c.verdict != "unverifiable"]
    assert len(verifiable) > BATCH
    assert [c.judged_by for c in verifiable] == ["model"] * BATCH + ["offline"] * (len(verifiable) - BATCH)
    assert all(c.verdict == "unsupported" for c in verifiable[:BATCH])  # the model's verdict
    # the offline verdict, kept (the offline check found each sentence in its passage, the judge says "not stated")
    assert all(c.verdict in ("supported", "partial") and c.reason != "not stated" for c in verifiable[BATCH:])
    warned = [w.message for w in view.warnings if w.source == "claim_check"]
    assert any(
        "stopped after 1 of" in w and f"{len(verifiable) - BATCH} claim(s) keep their offline" in w for w in warned
    ), warned


def test_a_failing_judge_degrades_to_the_offline_check(tmp_path: Path) -> None:
    def invalid_judge(request: dict[str, Any]) -> Any:  # {} does not validate as ClaimJudgements
        return {} if requested_schema_name(request) == "ClaimJudgements" else ScriptedModel()(request)

    with FakeOpenAIServer(invalid_judge) as server:
        runner = _llm_runner(tmp_path, server)
        view = fold(
            runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111")))
        )
    assert view.status == "finished" and view.claims.method == "offline"
    assert any(w.source == "claim_check" and "checked offline" in w.message for w in view.warnings)
    assert "sk-test-claims" not in json.dumps([w.model_dump() for w in view.warnings])


REVISED = "A revised, careful summary"


def _judge_first_unsupported_then_revise(request: dict[str, Any]) -> Any:
    """The judge finds claim 1 unsupported; the reviser (the structured, grounded revise prompt)
    rewrites its section from passage 1, in that passage's words."""
    text = json.dumps(request)
    if requested_schema_name(request) == "ClaimJudgements":
        user = "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "user")
        count = len(re.findall(r'<source n="\d+"', user))
        return {
            "judgements": [
                {"index": i, "verdict": "unsupported" if i == 1 and "A revised" not in user else "supported"}
                for i in range(1, count + 1)
            ]
        }
    if "revising a draft" in text:
        passage = re.search(r'<source n="1" kind="passage"[^>\n]*>\n([^\n]*)', request["messages"][1]["content"])
        words = " ".join(passage.group(1).split()[:12]).rstrip(".,;:") if passage else ""
        return {"sentences": [{"passage": 1, "text": f"{REVISED}: {words}."}]}
    return ScriptedModel()(request)


def test_a_model_reviser_rewrites_into_version_2(tmp_path: Path) -> None:
    with FakeOpenAIServer(_judge_first_unsupported_then_revise) as server:
        runner = _llm_runner(tmp_path, server, review_rounds=1)
        run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))
    events = runner.store.events(run_id)
    revised = next(e.data for e in events if e.type == "draft_revised")
    assert revised.version == 2 and f"{REVISED}: " in revised.markdown
    assert revised.reasons and revised.reasons[0].startswith("Asked the model to fix an unsupported claim")
    assert [e.data.version for e in events if e.type == "claims_checked"] == [1, 2]
    assert [v.version for v in runner.store.draft_versions(run_id)] == [1, 2]


def test_a_failing_model_reviser_falls_back_to_the_offline_reviser(tmp_path: Path) -> None:
    def broken_reviser(request: dict[str, Any]) -> Any:
        if "revising a draft" in json.dumps(request):
            return ""  # an empty reply is an invalid revision
        return _judge_first_unsupported_then_revise(request)

    with FakeOpenAIServer(broken_reviser) as server:
        runner = _llm_runner(tmp_path, server, review_rounds=1)
        view = fold(
            runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111")))
        )
    assert any(w.source == "reviewer" and "offline reviser" in w.message for w in view.warnings)
    assert view.revisions and any(r.startswith("Removed an unsupported claim") for r in view.revisions[0].reasons)
