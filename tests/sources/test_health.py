"""The Settings page's connection check: one tiny search per live provider, ok or why not."""

from __future__ import annotations

import time

from research.settings import Settings
from research.sources.health import check_providers
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.router import live_providers
from tests.fakes import FakeServer, Reply, lift_rate_limits
from tests.fakes.service_fakes import OPENALEX_PATH, install_academic_book_fakes


def test_real_providers_against_loopback_services(tmp_path):
    lift_rate_limits()
    with FakeServer() as server:
        overrides = install_academic_book_fakes(server)
        server.route(OPENALEX_PATH, Reply(404, {"error": "not found"}))
        settings = Settings(data_dir=tmp_path, http_timeout=2.0, **overrides)
        no_web = lambda kind, s: [] if kind == "web" else live_providers(kind, s)  # noqa: E731
        statuses = {s.name: s for s in check_providers(settings, timeout=3.0, providers=no_web)}
        assert {name: s.ok for name, s in statuses.items()} == {
            "arxiv": True,
            "openalex": False,
            "openlibrary": True,
            "wikipedia": True,
        }
        assert statuses["arxiv"].message.startswith("ok (") and statuses["arxiv"].kind == "academic"
        assert "404" in statuses["openalex"].message
        assert {r.path for r in server.requests()} >= {"/api/query", OPENALEX_PATH}


class _Hangs:
    name, kind = "slowpoke", "web"

    def search(self, query: str, *, limit: int) -> Retrieval:
        time.sleep(8)
        return Retrieval()


class _Leaks:
    name, kind = "leaky", "book"

    def __init__(self, secret: str) -> None:
        self.secret = secret

    def search(self, query: str, *, limit: int) -> Retrieval:
        raise ProviderError(self.name, f"401 for key {self.secret}")


def test_hung_broken_and_unbuildable_providers_are_reported_quickly(tmp_path):
    secret = "tvly-secret-0123456789"
    settings = Settings(data_dir=tmp_path, tavily_api_key=secret)

    def providers(kind, s):
        if kind == "academic":
            raise RuntimeError("arxiv package missing")
        return [_Hangs()] if kind == "web" else [_Leaks(secret)]

    started = time.monotonic()
    statuses = check_providers(settings, timeout=0.3, providers=providers)
    assert time.monotonic() - started < 5.0  # never waits for the hung provider (8 s); generous for a busy machine
    by_kind = {s.kind: s for s in statuses}
    assert not any(s.ok for s in statuses)
    assert by_kind["web"].message == "no answer within 0.3 s"
    assert by_kind["academic"].message == "could not be set up"
    assert by_kind["book"].message == "401 for key ***"
    assert all(secret not in s.message and secret not in s.name for s in statuses)
