"""Shared pytest fixtures: the network guard keeps every test offline, and every test starts from a
clean environment (no developer RESEARCH_* / OPENAI_* / key variables, no .env) in its own directory."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from research.runs.runner import ResearchRunner
from research.settings import Settings
from tests.environment import clean_environ
from tests.finished_run import finished, log_dir  # noqa: F401 - fixtures shared by runs/, export/, cli/

# A test that starts a child server (Streamlit, Chromium, `langgraph dev`) pays its start-up inside its
# own time limit; with every core busy that alone can pass pyproject's 120 s. The limit is a hang
# guard, not a speed goal, so these get a wider one (a test's own `timeout` mark still wins).
CHILD_PROCESS_MARKS = ("browser", "server")
CHILD_PROCESS_TIMEOUT_S = 900


@pytest.hookimpl(trylast=True)  # after tests/server/conftest.py has marked its items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        starts_children = any(item.get_closest_marker(mark) for mark in CHILD_PROCESS_MARKS)
        if starts_children and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(CHILD_PROCESS_TIMEOUT_S))


class NetworkBlockedError(RuntimeError):
    """A test tried to reach a non-loopback address.

    Deliberately not an OSError: HTTP clients would wrap an OSError as a retryable connection
    error and the test could pass quietly; this one propagates and fails the test loudly.
    """


def _is_loopback(host: Any) -> bool:
    if host in (None, "", "localhost", b"localhost"):
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    try:
        address = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False  # a DNS name other than localhost
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def _check(address: Any) -> None:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return
    host = address[0] if isinstance(address, tuple) and address else address
    if not _is_loopback(host):
        raise NetworkBlockedError(f"tests are offline: refused connection to {host!r}")


@pytest.fixture(scope="session", autouse=True)
def _refuse_non_loopback_network() -> Iterator[None]:
    """Every test: connections and DNS lookups outside 127.0.0.0/8 and ::1 raise NetworkBlockedError."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_create_connection = socket.create_connection
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family != getattr(socket, "AF_UNIX", object()):
            _check(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        if self.family != getattr(socket, "AF_UNIX", object()):
            _check(address)
        return real_connect_ex(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        _check(address)
        return real_create_connection(address, *args, **kwargs)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_loopback(host):
            raise NetworkBlockedError(f"tests are offline: refused DNS lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "connect_ex", connect_ex)
        patch.setattr(socket, "create_connection", create_connection)
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        yield


@pytest.fixture(autouse=True)
def _no_ambient_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A developer's RESEARCH_* / OPENAI_* variables or .env must not change what tests see."""
    keep = clean_environ()
    for name in list(os.environ):
        if name not in keep:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # Settings reads .env from the working directory
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # the model capability memory
    yield


@pytest.fixture(scope="session")
def session_log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One log dir for in-process runs: `configure_logging` adds a process-wide handler per log path,
    so a log dir per test would pile up handlers."""
    return tmp_path_factory.mktemp("logs")


@pytest.fixture
def settings(tmp_path: Path, session_log_dir: Path) -> Settings:
    """Offline brain, local library only, a fresh data dir."""
    return Settings(
        _env_file=None, data_dir=tmp_path / "data", log_dir=session_log_dir, sources="library", llm="offline"
    )


@pytest.fixture
def runner(settings: Settings) -> ResearchRunner:
    return ResearchRunner(settings)


# The shared-runs lane's throwaway Postgres cluster (session) and a fresh database per test.
from tests.fakes.postgres import pg_cluster, pg_url  # noqa: E402,F401
