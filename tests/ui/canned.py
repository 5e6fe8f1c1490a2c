"""A canned run written straight into a RunStore: the events a real run logs, in order.

Lets the panel tests render every panel without running the graph, and lets them plant hostile
text (HTML in titles and snippets) exactly where outside text arrives.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from research.api import Event, RunStore
from tests.run_events import RunEvents, store_finished_run

HOSTILE_TITLE = "<script>alert('title')</script><b>Bold claim</b>"
HOSTILE_SNIPPET = "<img src=x onerror=alert('snippet')> plain words"

DRAFT = """# Canned topic

## Summary

Lipid nanoparticles carry the mRNA into cells [1]. Trials reported high efficacy [2].

## Sources

[1] Lipid Nanoparticles Explained. web, library. <https://example.org/lnp>
[2] Phase 3 Trials Review. academic, library. <https://example.org/trials>
"""


def source(sid: str, title: str, kind: str, url: str, score: float, snippet: str = "A snippet.") -> dict[str, Any]:
    return {
        "id": sid,
        "title": title,
        "url": url,
        "kind": kind,
        "provider": "library",
        "snippet": snippet,
        "authors": ["A. Author"],
        "year": 2022,
        "score": score,
        "researcher_id": None,
        "query": "q",
    }


SOURCES = [
    source("s1", "Lipid Nanoparticles Explained", "web", "https://example.org/lnp", 9.0),
    source("s2", "Phase 3 Trials Review", "academic", "https://example.org/trials", 7.5),
    source("s3", HOSTILE_TITLE, "web", "https://evil.example/x", 3.0, HOSTILE_SNIPPET),
    source("s4", "Cold Chain Logistics", "book", "library://sample/cold-chain", 4.0),
]


def canned_events(run_id: str, topic: str, *, fail: bool = False) -> list[Event]:
    ev = RunEvents(run_id, spacing=0.01)
    events = [
        ev(
            "run_started",
            topic=topic,
            allocation_request="210",
            brain="offline",
            model="offline",
            source_mode="library",
            max_iterations=2,
        ),
        ev("phase", iteration=0, phase="supervisor"),
        ev(
            "allocation_decided",
            allocation={"web": 2, "academic": 1, "book": 0},
            origin="user",
            reasoning="Set by the user (210).",
            research_questions=["How is mRNA delivered?", "Does it work?"],
        ),
        ev("warning", source="supervisor", message="The model's allocation 500 was invalid; used the default 111."),
        ev("message", name="Supervisor", role="ai", content="Supervisor Directive: web-1 to research delivery."),
        ev("researcher_started", "web-1", 0, kind="web", question="How is mRNA delivered?", angle="news"),
        ev("queries_generated", "web-1", 0, queries=["mrna delivery lipid", "lnp news"]),
        ev("researcher_started", "academic-1", 0, kind="academic", question="Does it work?", angle="reviews"),
        ev(
            "sources_found",
            "web-1",
            0,
            query="mrna delivery lipid",
            provider="library",
            sources=[SOURCES[0], SOURCES[2]],
        ),
        ev("sources_found", "academic-1", 0, query="trials", provider="library", sources=[SOURCES[1]]),
        ev("warning", "academic-1", source="openalex", message="HTTP 503; used the local library instead."),
    ]
    if fail:
        return events + [ev("run_failed", error="RuntimeError: the brain crashed mid-run")]
    return events + [
        ev("researcher_finished", "web-1", 0, kind="web", status="done", source_ids=["s1", "s3"], seconds=1.2),
        ev("message", name="web-1", role="ai", content=f"2 sources.\n- {HOSTILE_SNIPPET} ({HOSTILE_TITLE})"),
        ev("researcher_finished", "academic-1", 0, kind="academic", status="done", source_ids=["s2"], seconds=1.4),
        ev("phase", iteration=0, phase="analyst"),
        ev.critique(0, "NEEDS_IMPROVEMENT", ["Thin on storage."], ["Cold chain storage"], ["mrna cold chain"]),
        ev("phase", iteration=1, phase="researchers"),
        ev("researcher_started", "book-1-r1", 1, kind="book", question="Cold chain storage", angle="follow-up"),
        ev("sources_found", "book-1-r1", 1, query="mrna cold chain", provider="library", sources=[SOURCES[3]]),
        ev("researcher_finished", "book-1-r1", 1, kind="book", status="done", source_ids=["s4"], seconds=0.4),
        ev("phase", iteration=1, phase="analyst"),
        ev.critique(1, "APPROVED", ["Covered now."], [], []),
        ev("phase", iteration=1, phase="writer"),
        ev("draft_ready", markdown=DRAFT, citations={"1": "s1", "2": "s2"}, known_gaps=[]),
        ev("warning", source="writer", message="Removed citations that matched no source: [9]."),
        ev("message", name="writer", role="ai", content="Draft ready: 2 sources cited."),
        ev("run_finished", status="finished", seconds=3.2, counts={"sources": 4}),
    ]


def store_canned_run(data_dir: Path, topic: str = "Canned topic", *, fail: bool = False) -> str:
    """Write a complete run (record, events, first draft version) as the runner would."""
    store = RunStore(Path(data_dir) / "runs.sqlite")
    run_id = "canned" + str(int(time.time() * 1000) % 1_000_000)
    store.create_run(run_id, topic, "210", "offline")
    events = canned_events(run_id, topic, fail=fail)
    if not fail:
        store_finished_run(store, run_id, events, DRAFT, allocation="210", source_count=len(SOURCES))
        return run_id
    for event in events:
        store.append_event(event)
    store.update_run(run_id, status="failed", error="RuntimeError: the brain crashed mid-run", finished_at=time.time())
    return run_id


def append_event(data_dir: Path, run_id: str, type_: str, data: dict[str, Any]) -> None:
    """One more event at the end of a stored run's log, as a later step of the run would write it."""
    store = RunStore(Path(data_dir) / "runs.sqlite")
    store.append_event(Event(type=type_, run_id=run_id, seq=store.last_seq(run_id) + 1, data=data))
