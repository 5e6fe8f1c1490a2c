"""Fixtures for whole-run integration tests: every live service and the model on loopback fakes.

Each test gets (on top of tests/conftest.py's clean environment) no provider request spacing, and its own logging handlers, which are removed afterwards:
`configure_logging` adds one process-wide handler per log path, and a handler left behind would
keep receiving (and its secret filter never see) later tests' records.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from research import logging_setup
from research.brains.llm.structured import forget_methods
from research.sources import http as http_core
from tests.fakes import FakeServer, lift_rate_limits
from tests.fakes.http_fixtures import record_sleeps
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.services import LIVE_PROVIDERS, ServiceFakes


@pytest.fixture(autouse=True)
def _isolated() -> Iterator[None]:
    """On top of the clean environment (tests/conftest.py): no request spacing, fresh logging."""
    lift_rate_limits(*LIVE_PROVIDERS, "scraper")
    forget_methods()
    research_logger = logging.getLogger("research")
    handlers = list(research_logger.handlers)
    configured = set(logging_setup._configured)
    yield
    for handler in research_logger.handlers[:]:
        if handler not in handlers:
            research_logger.removeHandler(handler)
            handler.close()
    registry = logging_setup._configured  # private: a set of log paths, or a dict path -> filter
    for path in set(registry) - configured:
        registry.pop(path, None) if isinstance(registry, dict) else registry.discard(path)
    http_core.reset_limiters()
    http_core.set_request_spacing(True)
    forget_methods()


@pytest.fixture
def services() -> Iterator[ServiceFakes]:
    with FakeServer() as server:
        yield ServiceFakes(server)


@pytest.fixture
def model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    return record_sleeps(monkeypatch)
