"""The process's long-lived heap is frozen once its first run has ended (research/runs/heap.py), so
later full collections walk only what came after, not the ~190,000 objects the process keeps.

In a fresh interpreter: the suite's own process may have frozen its heap in an earlier test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import gc, json, sys
from pathlib import Path
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings

data = Path(sys.argv[1])
settings = Settings(_env_file=None, data_dir=data, log_dir=data / "logs", sources="library", llm="offline")
runner = ResearchRunner(settings)
out = {"before": gc.get_freeze_count()}
request = ResearchRequest(topic="How do heat pumps work?", allocation="100", max_iterations=0)
first = runner.run(request)
out["after_first"] = gc.get_freeze_count()
out["tracked_after_first"] = len(gc.get_objects())
runner.run(request)
out["after_second"] = gc.get_freeze_count()
out["statuses"] = [runner.store.get_run(first).status]
print(json.dumps(out))
"""


def test_the_first_run_freezes_the_heap_once(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["statuses"] == ["finished"]
    assert out["before"] == 0  # building the runner freezes nothing: its first run is still to load
    # The modules, the library and the first run's lazily built state: all frozen, nothing left
    # for a full collection to walk but the few objects made since.
    assert out["after_first"] > 50_000
    assert out["tracked_after_first"] < out["after_first"] // 10
    # Once per process: the second run's objects stay collectable (frozen ones freed since only
    # lower the count; a second freeze would add the thousands made since).
    assert out["after_second"] <= out["after_first"]
