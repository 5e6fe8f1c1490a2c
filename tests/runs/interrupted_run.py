"""Starts a run in this process and kills the process mid-run (os._exit, as a crash or `kill -9`
would: no cleanup, no exception handler, no final event). Used by test_resume in a subprocess.

    python -m tests.runs.interrupted_run DATA_DIR analyst|academic-retrieve|created|started

(created: killed before any event; started: killed right after `run_started`, before the graph
wrote its first checkpoint.)

Prints the run id first, so the test can resume it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from research.brains.offline.offline_brain import OfflineBrain
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.library.library_store import LibraryProvider
from research.sources.router import SourceRouter

KILLED = 17
SETTLE = 0.3  # time for LangGraph's background checkpoint writes to land before the kill


def main() -> None:
    data_dir, where = Path(sys.argv[1]), sys.argv[2]
    settings = Settings(_env_file=None, data_dir=data_dir, log_dir=data_dir / "logs", sources="library", llm="offline")
    runner = ResearchRunner(settings)
    request = ResearchRequest(topic="How do mRNA vaccines work?", allocation="110")
    run_id = runner.create(request)
    print(run_id, flush=True)

    def die_once_logged(*names: str) -> None:
        """Wait until the named researchers' closing messages are in the event log (their work is
        done and recorded), let pending checkpoint writes land, then die."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            logged = {e.data.name for e in runner.store.events(run_id) if e.type == "message"}
            if set(names) <= logged:
                break
            time.sleep(0.05)
        time.sleep(SETTLE)
        os._exit(KILLED)

    if where == "created":
        os._exit(KILLED)
    if where == "started":

        def die_after_started(event) -> None:
            if event.type == "run_started":  # logged; the graph has not been streamed yet
                os._exit(KILLED)

        runner.run(request, run_id=run_id, on_event=die_after_started)
        raise SystemExit("the run was meant to be killed but finished")
    if where == "analyst":
        # The researchers' superstep completes, then the process dies inside the analyst.
        OfflineBrain.judge = lambda *args, **kwargs: die_once_logged("web-1", "academic-1")  # type: ignore[method-assign]
    elif where == "academic-retrieve":
        # The web researcher finishes; the academic one is still retrieving when the process dies.
        library = SourceRouter(settings, lambda kind: LibraryProvider(runner.library, kind))

        class DyingRouter:
            def describe(self, kind):
                return library.describe(kind)

            def expected_seconds(self, kind):
                return None  # the plan's order: web-1 starts first

            def retrieve(self, kind, query, limit, topic=None):
                if kind == "academic":
                    die_once_logged("web-1")
                return library.retrieve(kind, query, limit, topic)

        runner.sources = DyingRouter()  # type: ignore[assignment]
    else:
        raise SystemExit(f"unknown interruption point {where!r}")
    runner.run(request, run_id=run_id)
    raise SystemExit("the run was meant to be killed but finished")


if __name__ == "__main__":
    main()
