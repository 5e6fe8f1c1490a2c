"""A page that followed a run before it was resumed elsewhere shows the resumed run once: the
killed attempt's critique gives way to the one its step made again, not a second round."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.brains.offline.offline_brain import OfflineBrain
from research.runs.runner import ResearchRunner
from research.settings import Settings
from tests.runs.interrupted_run import with_an_unsupported_claim
from tests.runs.test_resume import interrupt
from tests.ui.conftest import has_block


def test_a_followed_run_resumed_elsewhere_shows_each_critique_once(
    make_app, data_dir: Path, tmp_path: Path, session_log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = interrupt(tmp_path, "analyst-critique")  # killed right after its critique was logged
    at = make_app(run_id).run()
    assert not at.exception
    assert has_block(at, "critique-round-1") and not has_block(at, "critique-round-2")

    monkeypatch.setattr(OfflineBrain, "write", with_an_unsupported_claim)  # the child's writer
    settings = Settings(_env_file=None, data_dir=data_dir, log_dir=session_log_dir, sources="library", llm="offline")
    ResearchRunner(settings).resume(run_id)  # another process, as far as the page knows
    at.run()

    assert not at.exception
    assert has_block(at, "critique-round-1") and not has_block(at, "critique-round-2")
