"""Starts a plan-review run (`--review-plan`) in this process and kills the process right after its
`run_started` is logged, before the graph wrote its first checkpoint. Used by
test_plan_review_restart in a subprocess:

    python -m tests.runs.interrupted_review_run DATA_DIR

Prints the run id first, so the test can resume it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from research.events import Event
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.runs.interrupted_run import KILLED


def main() -> None:
    data_dir = Path(sys.argv[1])
    settings = Settings(_env_file=None, data_dir=data_dir, log_dir=data_dir / "logs", sources="library", llm="offline")
    runner = ResearchRunner(settings)
    request = ResearchRequest(topic="How do mRNA vaccines work?", allocation="110", review_plan=True)
    run_id = runner.create(request)
    print(run_id, flush=True)

    def die_after_started(event: Event) -> None:
        if event.type == "run_started":  # logged; the graph has not been streamed further
            os._exit(KILLED)

    runner.run(request, run_id=run_id, on_event=die_after_started)
    raise SystemExit("the run was meant to be killed but finished")


if __name__ == "__main__":
    main()
