"""A runner shortens the interpreter's switch interval (research/runs/switching.py), and never
lengthens a shorter one its host chose."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.loopback import LoopbackWorld
from research.runs.runner import ResearchRunner
from research.runs.switching import SWITCH_INTERVAL_S
from tests.settings_presets import library_settings
from tests.test_text_memo import _log  # a run's events without clocks, in a stable order


@pytest.fixture
def restored_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def test_a_runner_hands_the_gil_over_sooner_than_pythons_default(tmp_path: Path, restored_interval: None) -> None:
    sys.setswitchinterval(0.005)  # Python's default
    runner = ResearchRunner(library_settings(tmp_path / "data", tmp_path / "logs", llm="offline"))
    try:
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S)
    finally:
        runner.library.close()


def test_a_shorter_interval_set_by_the_host_is_kept(tmp_path: Path, restored_interval: None) -> None:
    sys.setswitchinterval(SWITCH_INTERVAL_S / 4)
    runner = ResearchRunner(library_settings(tmp_path / "data", tmp_path / "logs", llm="offline"))
    try:
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S / 4)
    finally:
        runner.library.close()


def test_a_run_writes_the_same_log_at_pythons_interval_and_the_runners(tmp_path: Path, restored_interval: None) -> None:
    """The interval changes when threads run, not what they compute: a 111 run (the LLM brain,
    scripted, against the providers' fakes) logs the same events at 5 ms and at 1 ms."""
    with LoopbackWorld(tmp_path / "data", tmp_path / "logs", model_latency=0.0, search_latency=0.0) as world:
        world.runner(3)  # made first: a runner sets its interval when it is built
        logs = []
        for interval in (0.005, SWITCH_INTERVAL_S):
            sys.setswitchinterval(interval)
            run = world.run("111", max_iterations=1, max_researchers=3)
            assert run.status == "finished"
            logs.append(_log(run.events))
    assert logs[0] == logs[1]
