"""The Settings page's connection check against the fakes of every live service: each provider's
state (ok, or why not), in parallel, within about one timeout, and never showing a key."""

from __future__ import annotations

import time
from pathlib import Path

from research.settings import Settings
from research.sources.health import check_providers
from tests.fakes.http_server import json_reply
from tests.integration.runs import TAVILY_KEY
from tests.integration.services import LIVE_PROVIDERS, PROVIDER_KINDS, PROVIDER_ROUTES, ServiceFakes


def check_settings(tmp_path: Path, services: ServiceFakes) -> Settings:
    return Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        tavily_api_key=TAVILY_KEY,
        http_timeout=2.0,
        allow_private_urls=True,
        **services.settings_fields(),
    )


def test_every_provider_reports_ok_against_working_services(
    tmp_path: Path, services: ServiceFakes, waits: list[float]
) -> None:
    statuses = check_providers(check_settings(tmp_path, services), timeout=2.0)
    assert [s.name for s in statuses] == list(LIVE_PROVIDERS)
    for status in statuses:
        assert status.ok, status
        assert status.kind == PROVIDER_KINDS[status.name]
        assert status.message == "ok (1 result)"  # the check asks for one result
        assert 0 <= status.seconds < 2.0
    for name in LIVE_PROVIDERS:
        assert services.requests_of(name), f"{name} was not contacted"


def test_each_failure_is_reported_with_its_reason_and_no_key(
    tmp_path: Path, services: ServiceFakes, waits: list[float]
) -> None:
    path, method = PROVIDER_ROUTES["tavily"]
    refusal = {"detail": {"error": f"Unauthorized: invalid API key {TAVILY_KEY}."}}
    services.server.route(path, json_reply(refusal, status=401), method=method)
    services.break_provider("arxiv", "500")
    services.break_provider("openalex", "timeout")
    services.break_provider("openlibrary", "empty")
    services.break_provider("wikipedia", "malformed")

    timeout = 0.5
    started = time.monotonic()
    statuses = {s.name: s for s in check_providers(check_settings(tmp_path, services), timeout=timeout)}
    elapsed = time.monotonic() - started

    assert set(statuses) == set(LIVE_PROVIDERS)
    assert {name: s.ok for name, s in statuses.items()} == {
        "tavily": False,
        "arxiv": False,
        "openalex": False,
        "openlibrary": True,
        "wikipedia": False,
    }
    assert "API key was refused" in statuses["tavily"].message
    assert "HTTP 500" in statuses["arxiv"].message
    assert "timed out" in statuses["openalex"].message or "no answer within" in statuses["openalex"].message
    assert statuses["openlibrary"].message == "ok (0 results)"  # reachable, just nothing found
    assert "malformed" in statuses["wikipedia"].message
    assert all(TAVILY_KEY not in s.message for s in statuses.values())
    # Bounded: a hung service is reported after about one timeout, not after its retries.
    assert elapsed < timeout * 3 + 1.0
