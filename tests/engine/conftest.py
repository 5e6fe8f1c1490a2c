"""Fixtures for the engine tests: a fresh data dir per test, offline brain, local library only.

In-process runs share one session log dir: `configure_logging` adds a process-wide handler per log
path, so a log dir per test would pile up handlers. Tests that need their own logs, environment or
a killed process run the engine in a subprocess (see `helpers.run_cli`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from research.runs.runner import ResearchRunner
from research.settings import Settings
from tests.engine.helpers import clean_environ


@pytest.fixture(scope="session")
def session_log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("engine-logs")


@pytest.fixture(autouse=True)
def _no_ambient_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A developer's RESEARCH_* / OPENAI_* variables or .env must not change what tests see."""
    keep = clean_environ()
    for name in list(os.environ):
        if name not in keep:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # Settings reads .env from the working directory
    yield


@pytest.fixture
def settings(tmp_path: Path, session_log_dir: Path) -> Settings:
    return Settings(
        _env_file=None, data_dir=tmp_path / "data", log_dir=session_log_dir,
        sources="library", llm="offline",
    )


@pytest.fixture
def runner(settings: Settings) -> ResearchRunner:
    return ResearchRunner(settings)
