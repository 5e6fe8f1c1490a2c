"""Whole runs (in-process, LLM brain on the fake model) that survive every fault mode.

Providers: every live service broken the same way at once (500, 429 + Retry-After, a hang, a
malformed body, an empty result), then one broken beside a working one. The model: a server that
fails every call, a call budget that runs out, and reasoning blocks that must not reach the draft.
Each run must end with a draft, and its events must say what failed and what replaced it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from research.sources.http import HttpPolicy
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel
from tests.integration.runs import Outcome, run_once, run_settings
from tests.integration.services import FAULT_MODES, LIVE_PROVIDERS, PROVIDER_KINDS, RETRY_AFTER_SECONDS, ServiceFakes

KINDS = {"web", "academic", "book"}
# What each provider's own warning says, per fault mode.
EXPECTED_WARNING = {
    "500": "HTTP 500",
    "429": "HTTP 429",
    "timeout": "timed out",
    "malformed": "malformed",
    "empty": "no results",
}
SCRIPTED_DRAFT_LINE = "addresses this question ["  # only the fake model's draft has it
THINK_MARKER = "PRIVATE-CHAIN-OF-THOUGHT"


def assert_finished_with_draft(outcome: Outcome) -> None:
    assert outcome.result["status"] == "finished", outcome.result["error"]
    draft = outcome.result["draft"]
    assert draft and draft.startswith("# ")
    assert outcome.runner.store.latest_draft(outcome.run_id).markdown == draft  # saved as version 1
    assert set(outcome.result["citations"].values()) <= {s["id"] for s in outcome.result["sources"]}


# --- providers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", FAULT_MODES)
def test_a_run_survives_every_provider_failing(
    mode: str, tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer, waits: list[float]
) -> None:
    services.break_all(mode)
    timeout = 0.3 if mode == "timeout" else 3.0  # generous where nothing hangs: no spurious timeouts
    outcome = run_once(run_settings(tmp_path, services, model, http_timeout=timeout))

    assert_finished_with_draft(outcome)
    for name in LIVE_PROVIDERS:
        assert services.requests_of(name), f"{name} was never asked"
        own = outcome.warnings_from(name)
        assert any(EXPECTED_WARNING[mode] in m for m in own), f"{name}: {own}"
        assert any(name in m for m in outcome.warnings_from("library")), f"no fallback warning names {name}"
    # Auto mode: every kind fell back to the library, and only the library supplied sources.
    assert outcome.providers == {"library"}
    assert {s["kind"] for s in outcome.result["sources"]} == KINDS
    assert all("used the local library instead" in m for m in outcome.warnings_from("library"))

    attempts = HttpPolicy().retries
    if mode in ("500", "429", "timeout"):  # retried, and boundedly: at most `attempts` requests per query
        for name in LIVE_PROVIDERS:
            queries = sum(len(r["queries"]) for r in outcome.result["researchers"] if r["kind"] == PROVIDER_KINDS[name])
            assert attempts <= len(services.requests_of(name)) <= attempts * queries
    if mode == "429":
        assert waits.count(RETRY_AFTER_SECONDS) >= attempts - 1  # the server's number, not a back-off
    if mode in ("malformed", "empty"):
        assert waits == []  # not retried: the reply will not change


def test_a_failed_provider_beside_a_working_one_needs_no_fallback(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer, waits: list[float]
) -> None:
    services.break_provider("arxiv", "500")
    outcome = run_once(run_settings(tmp_path, services, model))
    assert_finished_with_draft(outcome)
    assert any("HTTP 500" in m for m in outcome.warnings_from("arxiv"))
    academic = {s["provider"] for s in outcome.result["sources"] if s["kind"] == "academic"}
    assert academic == {"openalex"}  # the kind still had live results: no library fallback
    assert not outcome.warnings_from("library")
    assert outcome.providers == {"tavily", "openalex", "openlibrary", "wikipedia"}


def test_live_mode_reports_failures_and_never_uses_the_library(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer, waits: list[float]
) -> None:
    services.break_all("500")
    outcome = run_once(run_settings(tmp_path, services, model, sources="live", max_iterations=0))
    assert_finished_with_draft(outcome)
    assert outcome.result["sources"] == [] and not outcome.warnings_from("library")
    for name in LIVE_PROVIDERS:
        assert any("HTTP 500" in m for m in outcome.warnings_from(name))


# --- the model --------------------------------------------------------------------------------------


def test_a_model_server_failing_every_call_degrades_to_the_offline_brain(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer
) -> None:
    model.fail_next("500", times=10_000)
    outcome = run_once(run_settings(tmp_path, services, model))

    assert_finished_with_draft(outcome)
    degraded = outcome.warnings_from("openai")
    steps = {m.split(" failed")[0].split()[-1] for m in degraded}
    assert {"plan", "queries", "notes", "judge", "write"} <= steps
    assert all("HTTP 500" in m and "used the offline brain for this step" in m for m in degraded)
    assert SCRIPTED_DRAFT_LINE not in outcome.result["draft"]  # the offline writer wrote it
    # Every failed attempt is a call (it used a budget unit), labelled failed, with no tokens.
    usage = outcome.result["usage"]
    assert usage["calls"] == usage["failed_calls"] > 0 and model.stats.calls >= usage["calls"]
    assert usage["prompt_tokens"] == usage["completion_tokens"] == 0 and model.stats.replies == 0
    assert outcome.result["sources"]  # research itself was unaffected


def test_a_spent_call_budget_stops_research_and_the_writer_says_so(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer
) -> None:
    budget = 4  # the plan and a few query calls; notes, the verdict and the draft find it spent
    outcome = run_once(run_settings(tmp_path, services, model, max_llm_calls=budget))

    assert_finished_with_draft(outcome)
    assert model.stats.calls == budget and outcome.result["usage"]["calls"] == budget  # never exceeded
    budget_warnings = outcome.warnings_from("budget")
    assert any("RESEARCH_MAX_LLM_CALLS" in m for m in budget_warnings)
    assert any("writer uses what was gathered" in m for m in budget_warnings)
    assert any("wrote the draft from what was gathered" in m for m in budget_warnings)
    assert all(r["iteration"] == 0 for r in outcome.result["researchers"])  # no revision round after it
    assert any("budget was reached" in gap for gap in outcome.result["known_gaps"])
    assert "budget was reached" in outcome.result["draft"]
    assert outcome.result["sources"]  # written from what was gathered


class ThinkingModel(ScriptedModel):
    """The scripted model, as a reasoning model answers: a <think> block before every reply; the
    writer's reply in the chat-template form where only the closing tag arrives."""

    def __call__(self, request: dict[str, Any]) -> Any:
        answer = super().__call__(request)
        body = answer if isinstance(answer, str) else json.dumps(answer)
        if body.startswith("# "):  # the draft
            return f"{THINK_MARKER}: the user wants a report, cite [1].\n</think>\n\n{body}"
        return f"<think>{THINK_MARKER}: let me plan this carefully.</think>\n{body}"


def test_think_blocks_never_reach_the_draft_or_the_events(tmp_path: Path, services: ServiceFakes) -> None:
    with FakeOpenAIServer(ThinkingModel()) as model:
        outcome = run_once(run_settings(tmp_path, services, model))
        assert model.stats.replies > 0

    assert_finished_with_draft(outcome)
    assert not outcome.warnings_from("openai")  # the model's output was usable at every step
    assert SCRIPTED_DRAFT_LINE in outcome.result["draft"]  # the model's draft, not the offline one
    assert THINK_MARKER not in outcome.result["draft"] and "think>" not in outcome.result["draft"]
    for event in outcome.events:
        assert THINK_MARKER not in event.data.model_dump_json(), event.type
