"""Keys never leave the process: not into logs, events, checkpoints, the run store or the draft,
even when the services echo them back in their error messages (servers do) and when a client
library fails with the key in its exception text.
"""

from __future__ import annotations

import json
from pathlib import Path

from research.settings import Settings
from research.sources.provider_base import Retrieval, SourceProvider
from research.sources.router import live_providers
from tests.fakes.http_server import json_reply
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.runs import OPENAI_KEY, TAVILY_KEY, Outcome, files_containing, run_once, run_settings
from tests.integration.services import PROVIDER_ROUTES, ServiceFakes


class LeakyClientProvider:
    """A provider whose client library crashes with the key in its exception text."""

    name, kind = "leaky-client", "academic"

    def search(self, query: str, *, limit: int) -> Retrieval:
        raise RuntimeError(f"GET https://books.example/search?q={query}&api_key={TAVILY_KEY} failed")


def with_leaky_client(kind: str, settings: Settings) -> list[SourceProvider]:
    providers = live_providers(kind, settings)  # type: ignore[arg-type]
    return providers + [LeakyClientProvider()] if kind == "academic" else providers


def test_keys_echoed_by_services_never_reach_the_run_record(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer
) -> None:
    # The model server refuses the plan call (and the client's two retries), quoting the bearer token.
    model.fail_next("500", times=3, message="upstream rejected request authorised by {api_key}")
    # Tavily refuses the key, quoting it.
    path, method = PROVIDER_ROUTES["tavily"]
    refusal = {"detail": {"error": f"Unauthorized: missing or invalid API key {TAVILY_KEY}."}}
    services.server.route(path, json_reply(refusal, status=401), method=method)
    settings = run_settings(tmp_path, services, model)
    outcome = run_once(settings, providers=with_leaky_client)

    assert outcome.result["status"] == "finished" and outcome.result["draft"]
    # The leaks really happened upstream, and what reached the run says so without the values.
    [plan_warning] = [m for m in outcome.warnings_from("openai") if m.startswith("plan failed")]
    assert "HTTP 500" in plan_warning and "***" in plan_warning
    assert any("API key was refused" in m for m in outcome.warnings_from("tavily"))
    assert "unexpected error: RuntimeError" in outcome.warnings_from("leaky-client")

    everything = json.dumps(to_json_and_events(outcome))
    for secret in (OPENAI_KEY, TAVILY_KEY):
        assert secret not in everything
        assert files_containing(secret, settings.data_dir, settings.log_dir) == []
    assert (settings.log_dir / "multiagent.log").read_text(encoding="utf-8").count("RuntimeError") >= 1


def to_json_and_events(outcome: Outcome) -> dict:
    return {
        "result": outcome.result,
        "events": [e.model_dump(mode="json") for e in outcome.events],
        "drafts": [v.markdown for v in outcome.runner.store.draft_versions(outcome.run_id)],
    }


class CrashingBrain:
    """A brain whose plan step crashes with a key in the exception text (no fallback catches it)."""

    kind, name = "openai", "crashing"

    def plan(self, topic: str, **_kwargs: object):
        raise RuntimeError(f"client misconfigured: Authorization: Bearer {OPENAI_KEY}")

    def take_usage(self):
        from research.schemas.state_shapes import Usage

        return Usage()


def test_a_crashed_run_records_the_failure_without_the_key(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer, monkeypatch
) -> None:
    monkeypatch.setattr("research.runs.runner.make_brain", lambda *args, **kwargs: CrashingBrain())
    settings = run_settings(tmp_path, services, model)
    outcome = run_once(settings)

    assert outcome.result["status"] == "failed"
    assert "RuntimeError: client misconfigured" in outcome.result["error"]
    assert outcome.runner.store.get_run(outcome.run_id).status == "failed"
    log = (settings.log_dir / "multiagent.log").read_text(encoding="utf-8")
    assert "client misconfigured" in log and "Traceback" in log  # the failure is logged, in full
    assert OPENAI_KEY not in json.dumps(to_json_and_events(outcome))
    assert files_containing(OPENAI_KEY, settings.data_dir, settings.log_dir) == []
