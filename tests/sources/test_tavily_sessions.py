"""Tavily searches share one pooled requests.Session per API key and URL: later searches reuse the
connection (no new TCP/TLS handshake each), a second key never sends the first key's header, no
cookie is carried between searches. (A 500 or 429 still reaches the retry loop through the
session's response hook: tests/sources/test_providers_web.py.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from research.settings import Settings
from research.sources import http as http_core
from research.sources.providers.tavily_provider import TavilyProvider
from tests.fakes import lift_rate_limits
from tests.fakes.http_server import FakeServer, Reply

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "web" / "tavily_search.json"
KEY, OTHER_KEY = "tvly-test-SESSION-0123456789", "tvly-test-OTHER-9876543210"


class PortServer(FakeServer):
    """A FakeServer that notes each request's client port: one port, one connection."""

    def __init__(self) -> None:
        super().__init__()
        self.ports: list[int] = []

    def _handle(self, http: BaseHTTPRequestHandler) -> None:
        self.ports.append(http.client_address[1])
        super()._handle(http)


@pytest.fixture(autouse=True)
def _unthrottled() -> Iterator[None]:
    lift_rate_limits("tavily")
    yield
    http_core.reset_limiters()


def _provider(server: FakeServer, key: str) -> TavilyProvider:
    return TavilyProvider(Settings(_env_file=None, tavily_url=server.url(), tavily_api_key=key, http_timeout=5))


def _ok() -> Reply:
    return Reply(200, json.loads(FIXTURE.read_text(encoding="utf-8")), {"Set-Cookie": "tracker=abc; Path=/"})


def test_searches_with_one_key_reuse_one_connection_and_carry_no_cookie() -> None:
    with PortServer() as server:
        server.route("/search", lambda _request: _ok(), method="POST")
        results = [_provider(server, KEY).search(f"printing press {i}", limit=3) for i in range(3)]
        requests = server.requests("/search")
    assert all(r.sources for r in results)
    assert len(set(server.ports)) == 1
    assert all("cookie" not in {h.lower() for h in r.headers} for r in requests)


def test_another_key_gets_its_own_session_and_header() -> None:
    with PortServer() as server:
        server.route("/search", lambda _request: _ok(), method="POST")
        _provider(server, KEY).search("printing press", limit=3)
        _provider(server, OTHER_KEY).search("printing press", limit=3)
        auth = [r.headers.get("Authorization") for r in server.requests("/search")]
    assert auth == [f"Bearer {KEY}", f"Bearer {OTHER_KEY}"]
    assert len(set(server.ports)) == 2
