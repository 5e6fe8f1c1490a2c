"""The server lane: one `langgraph dev` for the module (offline brain, library sources, in
memory), driven through remote mode. Skips outside CI when langgraph-cli is not installed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.langgraph_server import langgraph_available, langgraph_dev, server_env


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/server/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.server)


@pytest.fixture(scope="session")
def server_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("langgraph-server")


@pytest.fixture(scope="session")
def server_url(server_dir: Path) -> Iterator[str]:
    if not langgraph_available():
        message = 'langgraph-cli not installed (pip install "langgraph-cli[inmem]", in requirements-dev.txt)'
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    # A short demo delay keeps runs on the server long enough to watch them live.
    env = server_env(server_dir / "data", RESEARCH_DEMO_DELAY="0.2")
    with langgraph_dev(env, server_dir) as url:
        yield url


@pytest.fixture
def client_env(tmp_path: Path, server_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This process as a dashboard replica in remote mode, with its own (local) run store."""
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "GITHUB_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("RESEARCH_SERVER_URL", server_url)
    monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path / "client"))
    monkeypatch.setenv("RESEARCH_LOG_DIR", str(tmp_path / "client" / "logs"))
    monkeypatch.setenv("RESEARCH_LLM", "offline")
    monkeypatch.delenv("RESEARCH_SOURCES", raising=False)
    return tmp_path / "client"
