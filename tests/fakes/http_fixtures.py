"""Fixtures for tests that talk to a loopback fake service through the HTTP core (imported by the
conftests that share them): the fake, and the waits the core asked for."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from research.sources import http as http_core
from tests.fakes.http_server import FakeServer


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


def record_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Back-off and Retry-After waits are recorded, not slept (tests assert them instead)."""
    recorded: list[float] = []
    monkeypatch.setattr(http_core, "_sleep", recorded.append)
    return recorded


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    return record_sleeps(monkeypatch)
