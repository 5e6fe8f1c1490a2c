"""A runner shortens the interpreter's switch interval (research/runs/switching.py), and never
lengthens a shorter one its host chose."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from research.runs.runner import ResearchRunner
from research.runs.switching import SWITCH_INTERVAL_S
from tests.settings_presets import library_settings


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
