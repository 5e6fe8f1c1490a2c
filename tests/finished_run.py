"""A finished offline run (library sources) per module, for read-only tests: exports, bundles,
replay, CLI tools. Tests that add draft versions or pause runs make their own (`runner` fixture)."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings

TOPIC = "How do mRNA vaccines work?"


def make_settings(data_dir: Path, log_dir: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, log_dir=log_dir, sources="library", llm="offline")


@pytest.fixture(scope="session")
def log_dir(session_log_dir: Path) -> Path:
    return session_log_dir


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory, log_dir: Path) -> tuple[ResearchRunner, str]:
    """A finished offline run (allocation 120) shared by a module's read-only tests."""
    runner = ResearchRunner(make_settings(tmp_path_factory.mktemp("finished") / "data", log_dir))
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="120"))
    assert runner.store.get_run(run_id).status == "finished"
    return runner, run_id
