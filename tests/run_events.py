"""Runs written straight into a RunStore, as the runner writes them, for the panel tests and the
dashboard benchmark: events numbered 1, 2, 3, ... and a finished run's draft and record."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from typing import Any

from research.api import Event, RunStore


class RunEvents:
    """Makes one run's events in order; `spacing` seconds apart (0: all at the same instant)."""

    def __init__(self, run_id: str, *, spacing: float = 0.0) -> None:
        self.run_id = run_id
        self.spacing = spacing
        self._seq = itertools.count(1)
        self._start = time.time()

    def __call__(
        self, type_: str, researcher_id: str | None = None, iteration: int | None = None, **data: Any
    ) -> Event:
        seq = next(self._seq)
        return Event(
            type=type_,
            run_id=self.run_id,
            seq=seq,
            ts=self._start + seq * self.spacing,
            researcher_id=researcher_id,
            iteration=iteration,
            data=data,
        )

    def critique(
        self, iteration: int, status: str, critique: list[str], missing_topics: list[str], queries: list[str]
    ) -> Event:
        """The analyst's verdict (no per-question coverage)."""
        return self(
            "critique_issued",
            iteration=iteration,
            status=status,
            critique=critique,
            missing_topics=missing_topics,
            recommended_queries=queries,
            coverage=[],
        )


def store_finished_run(
    store: RunStore, run_id: str, events: Iterable[Event], draft: str, *, allocation: str, source_count: int
) -> None:
    """Logs the events, then the writer's draft and the finished record (the run was created)."""
    for event in events:
        store.append_event(event)
    store.save_draft_version(run_id, draft, note="Writer's draft")
    store.update_run(
        run_id,
        status="finished",
        allocation=allocation,
        allocation_origin="user",
        finished_at=time.time(),
        source_count=source_count,
    )
