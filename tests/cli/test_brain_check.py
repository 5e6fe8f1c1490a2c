"""A model brain asked for and not configured is an input error, said before anything runs: the
CLI exits 2 with one clear line and stores no run; the runner refuses to create it; the
dashboard's run options say so."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from research.api import BrainUnavailable, ResearchRequest, ResearchRunner, Settings
from tests.cli.test_cli import TOPIC, assert_one_clear_line
from tests.helpers import run_cli

NEEDS = "needs OPENAI_API_KEY or OPENAI_BASE_URL, and neither is set"


def _no_runs(data_dir: Path) -> bool:
    runs = data_dir / "runs.sqlite"
    if not runs.exists():
        return True
    with sqlite3.connect(runs) as db:
        return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_llm_openai_without_a_key_or_base_url_exits_2_and_runs_nothing(tmp_path: Path) -> None:
    result = run_cli([TOPIC, "--llm", "openai", "--allocation", "100"], tmp_path)
    assert_one_clear_line(result.returncode, result.stdout, result.stderr, "--llm openai " + NEEDS)
    assert "Traceback" not in result.stderr and _no_runs(tmp_path / "data")


def test_research_llm_openai_in_the_environment_is_named_as_the_cause(tmp_path: Path) -> None:
    result = run_cli([TOPIC, "--allocation", "100"], tmp_path, RESEARCH_LLM="openai")
    assert_one_clear_line(result.returncode, result.stdout, result.stderr, "RESEARCH_LLM=openai " + NEEDS)
    assert _no_runs(tmp_path / "data")


def test_resume_with_llm_openai_and_no_model_is_bad_input(tmp_path: Path) -> None:
    result = run_cli(["resume", "abc123", "--llm", "openai"], tmp_path)
    assert_one_clear_line(result.returncode, result.stdout, result.stderr, NEEDS)


def test_auto_and_offline_still_run_offline(tmp_path: Path) -> None:
    result = run_cli([TOPIC, "--allocation", "100", "--json"], tmp_path, RESEARCH_LLM="auto")
    assert result.returncode == 0, result.stderr


def test_the_runner_refuses_to_create_a_run_with_an_unconfigured_model(tmp_path: Path) -> None:
    runner = ResearchRunner(Settings(_env_file=None, data_dir=tmp_path, log_dir=tmp_path / "logs", sources="library"))
    with pytest.raises(BrainUnavailable, match=NEEDS):
        runner.create(ResearchRequest(topic=TOPIC, allocation="100", llm="openai"))
    assert runner.store.list_runs() == []
