"""The batched model relevance judgement (RESEARCH_RELEVANCE_JUDGE=model) through the real client
against the loopback model: one request per batch of a query's new sources, each source judged
once per run, every rejection a `sources_dropped` entry with the model's reason and never a source
of the run, every request metered, the number of requests capped, and a failing judge leaving the
offline score in charge with a warning."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.relevance_judge import BATCH, MAX_PER_CALL, MODEL_DROP
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest, Source
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name
from tests.settings_presets import fake_model_settings

TOPIC = "How do mRNA vaccines work?"
_SOURCE = re.compile(r'<source n="(\d+)" kind="\w+" title="([^"]*)"')
REASON = "about freezer logistics, not how the vaccine works"


def titles_judged(request: dict[str, Any]) -> list[str]:
    return [title for _n, title in _SOURCE.findall(request["messages"][1]["content"])]


def cold_chain_is_off_subject(request: dict[str, Any]) -> Any:
    if requested_schema_name(request) != "RelevanceJudgements":
        return ScriptedModel()(request)
    verdicts = [
        {
            "source": int(n),
            "reason": REASON if "Cold Chain" in title else "how mRNA vaccines work",
            "relevant": "Cold Chain" not in title,
        }
        for n, title in _SOURCE.findall(request["messages"][1]["content"])
    ]
    return {"verdicts": verdicts}


def runner_for(tmp_path: Path, server: FakeOpenAIServer) -> ResearchRunner:
    return ResearchRunner(fake_model_settings(server.base_url, tmp_path, relevance_judge="model"))


def relevance_requests(server: FakeOpenAIServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if requested_schema_name(r) == "RelevanceJudgements"]


def test_what_the_model_finds_off_subject_is_dropped_with_its_reason_and_each_source_is_judged_once(
    tmp_path: Path,
) -> None:
    with FakeOpenAIServer(cold_chain_is_off_subject) as server:
        runner = runner_for(tmp_path, server)
        run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="100", max_iterations=0))
        requests = relevance_requests(server)
        total_requests = len(server.requests)
    events = runner.store.events(run_id)
    view = fold(events)
    judged = [title for r in requests for title in titles_judged(r)]
    assert requests and all(len(titles_judged(r)) <= MAX_PER_CALL for r in requests)
    assert len(judged) == len(set(judged))  # a later query's hit is answered from memory
    assert any("Cold Chain" in t for t in judged)
    assert not any("Cold Chain" in s.title for s in view.sources.values())  # never a source of the run
    assert "Cold Chain" not in (view.draft or "")
    dropped = [d for e in events if e.type == "sources_dropped" for d in e.data.dropped]
    model_drops = [d for d in dropped if d.reason.startswith(MODEL_DROP)]
    assert model_drops and all("Cold Chain" in d.title and REASON in d.reason for d in model_drops)
    assert view.sources  # the rest stay
    assert view.usage.calls == total_requests  # every request metered, the judge's included


def test_a_failing_judge_leaves_the_offline_score_in_charge_with_a_warning(tmp_path: Path) -> None:
    def broken(request: dict[str, Any]) -> Any:
        return "no JSON here" if requested_schema_name(request) == "RelevanceJudgements" else ScriptedModel()(request)

    with FakeOpenAIServer(broken) as server:
        runner = runner_for(tmp_path, server)
        view = fold(runner.store.events(runner.run(ResearchRequest(topic=TOPIC, allocation="100", max_iterations=0))))
    assert any(w.source == "relevance" and "the offline score decided" in w.message for w in view.warnings)
    assert any("Cold Chain" in s.title for s in view.sources.values())  # kept: offline finds it on topic


def test_the_judge_is_capped_and_what_it_did_not_judge_keeps_the_offline_score(tmp_path: Path) -> None:
    # Nothing is remembered of this server: the first call keeps the grammar's bound (BATCH), and once
    # it has taken json_schema the next holds MAX_PER_CALL; the third is over the cap.
    reached = BATCH + MAX_PER_CALL
    sources = [
        Source(id=f"s{i}", title=f"Cold Chain part {i}", url=f"https://e.org/{i}", kind="web", provider="fake")
        for i in range(reached + BATCH)
    ]
    with FakeOpenAIServer(cold_chain_is_off_subject) as server:
        brain = LLMBrain(fake_model_settings(server.base_url, tmp_path))
        brain.relevance.max_calls = 2
        judged = brain.relevance.judge(TOPIC, "How do they work?", sources)
        assert [len(titles_judged(r)) for r in relevance_requests(server)] == [BATCH, MAX_PER_CALL]
        assert judged.calls == 2
    assert len(judged.dropped) == reached and [s.id for s in judged.kept] == [s.id for s in sources[reached:]]
    assert brain.take_usage().calls == 2
