"""Fixtures for the issue-6 tests: offline runs on the local library in temporary data dirs.

One finished run per module serves the read-only tests (exports, bundles, replay); tests that add
draft versions or pause runs make their own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from research.runs.runner import ResearchRunner
from research.schemas import ResearchRequest
from research.settings import Settings
from tests.engine.helpers import clean_environ

TOPIC = "How do mRNA vaccines work?"


def make_settings(data_dir: Path, log_dir: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, log_dir=log_dir, sources="library", llm="offline")


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("issue6-logs")


@pytest.fixture(autouse=True)
def _no_ambient_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A developer's RESEARCH_* / OPENAI_* variables or .env must not change what tests see."""
    keep = clean_environ()
    for name in list(os.environ):
        if name not in keep:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    yield


@pytest.fixture
def settings(tmp_path: Path, log_dir: Path) -> Settings:
    return make_settings(tmp_path / "data", log_dir)


@pytest.fixture
def runner(settings: Settings) -> ResearchRunner:
    return ResearchRunner(settings)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory, log_dir: Path) -> tuple[ResearchRunner, str]:
    """A finished offline run (allocation 120) shared by a module's read-only tests."""
    runner = ResearchRunner(make_settings(tmp_path_factory.mktemp("finished") / "data", log_dir))
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="120"))
    assert runner.store.get_run(run_id).status == "finished"
    return runner, run_id
