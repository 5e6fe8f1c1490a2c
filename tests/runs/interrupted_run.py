"""Starts a run in this process and kills the process mid-run (os._exit, as a crash or `kill -9`
would: no cleanup, no exception handler, no final event). Used by test_resume in a subprocess.

    python -m tests.runs.interrupted_run DATA_DIR analyst|academic-retrieve|created|started|<step>-<event>

(created: killed before any event; started: killed right after `run_started`, before the graph
wrote its first checkpoint. The AFTER_EVENT points kill a node right after one of its events is
logged, before the node returns: its step is run again on resume, and makes that event again.)

Prints the run id first, so the test can resume it.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from research.brains.offline.offline_brain import OfflineBrain
from research.events import Event
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.library.library_store import LibraryProvider
from research.sources.router import SourceRouter

KILLED = 17
SETTLE = 0.3  # time for LangGraph's background checkpoint writes to land before the kill
TOPIC = "How do mRNA vaccines work?"
ALLOCATION = "110"
UNSUPPORTED = "Glaciers on Mars first stored the vaccine in copper jars for a century [1]."

# Kill point -> (the node's module, the event type it logs just before the kill).
AFTER_EVENT = {
    "analyst-critique": ("research.graph.nodes.analyst", "critique_issued"),
    "writer-draft": ("research.graph.nodes.writer", "draft_ready"),
    "claim-check": ("research.graph.nodes.claim_check", "claims_checked"),
    "reviewer-revision": ("research.graph.nodes.reviewer", "draft_revised"),
}
KILL_POINTS = ("created", "started", "analyst", "academic-retrieve", *AFTER_EVENT)


def with_an_unsupported_claim(self, request):
    """The offline writer's draft with a claim its source does not hold: the reviewer revises it (v2)."""
    draft = ORIGINAL_WRITE(self, request)
    return draft.replace("## Summary\n\n", f"## Summary\n\n{UNSUPPORTED} ", 1)


ORIGINAL_WRITE = OfflineBrain.write


def main() -> None:
    data_dir, where = Path(sys.argv[1]), sys.argv[2]
    settings = Settings(_env_file=None, data_dir=data_dir, log_dir=data_dir / "logs", sources="library", llm="offline")
    runner = ResearchRunner(settings)
    request = ResearchRequest(topic=TOPIC, allocation=ALLOCATION)
    run_id = runner.create(request)
    print(run_id, flush=True)

    def die_once(logged: Callable[[list[Event]], bool]) -> None:
        """Wait until the event log holds what `logged` looks for, let pending checkpoint writes
        land, then die."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not logged(runner.store.events(run_id)):
            time.sleep(0.05)
        time.sleep(SETTLE)
        os._exit(KILLED)

    def die_once_logged(*names: str) -> None:
        """Die once the named researchers' closing messages are logged (their work is done and recorded)."""
        die_once(lambda events: set(names) <= {e.data.name for e in events if e.type == "message"})

    if where == "created":
        os._exit(KILLED)
    if where == "started":

        def die_after_started(event) -> None:
            if event.type == "run_started":  # logged; the graph has not been streamed yet
                os._exit(KILLED)

        runner.run(request, run_id=run_id, on_event=die_after_started)
        raise SystemExit("the run was meant to be killed but finished")
    if where in AFTER_EVENT:
        module_name, event_type = AFTER_EVENT[where]
        module = importlib.import_module(module_name)
        emit = module.emit
        OfflineBrain.write = with_an_unsupported_claim  # type: ignore[method-assign]

        def emit_then_die(data, **kwargs) -> None:
            emit(data, **kwargs)
            if type(data).event_type == event_type:
                die_once(lambda events: any(e.type == event_type for e in events))

        module.emit = emit_then_die
    elif where == "analyst":
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
