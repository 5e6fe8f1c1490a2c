"""Events published where the nodes make them (research/runs/publisher.py): on the node's own
thread, in store order, nothing after the run's end, and one masked record of a failure."""

from __future__ import annotations

import threading
from collections import Counter

from pydantic import SecretStr

from research.events import Event, EventAdapter, event_payload
from research.events.payloads import Phase, RunFailed, Warning
from research.events.stream import error_part, stream_part
from research.runs.publisher import RunPublisher
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings


def _custom(message: str) -> dict:
    return stream_part("custom", event_payload(Warning(source="test", message=message)))


def test_parts_become_numbered_events_and_nothing_follows_the_end() -> None:
    published: list[Event] = []
    publisher = RunPublisher(EventAdapter("run-x", start_seq=3), published.append)
    publisher(_custom("one"))
    publisher.publish(Phase(phase="writer"))
    publisher(error_part(RuntimeError("boom")))  # the runner records a failure itself
    publisher.finish(RunFailed(error="RuntimeError: boom"))
    publisher(_custom("late"))  # a pool thread still running after the run's end
    publisher.publish(Warning(source="test", message="late too"))
    assert [(e.seq, e.type) for e in published] == [(4, "warning"), (5, "phase"), (6, "run_failed")]


def test_parallel_publishers_keep_the_numbering_in_store_order() -> None:
    published: list[int] = []
    publisher = RunPublisher(EventAdapter("run-x"), lambda event: published.append(event.seq))
    start = threading.Barrier(4)

    def node(k: int) -> None:
        start.wait()
        for i in range(200):
            publisher(_custom(f"{k}-{i}"))

    threads = [threading.Thread(target=node, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert published == list(range(1, 801))


def test_events_are_published_on_the_threads_that_make_them(settings: Settings) -> None:
    """A step with one task runs inline on the caller's thread (no stream to drain, no waiter on the
    pool); parallel researchers publish from their own threads, each event stored before it is seen."""
    runner = ResearchRunner(settings)
    caller = threading.get_ident()
    seen: list[tuple[str, bool, bool]] = []

    def on_event(event: Event) -> None:
        stored = runner.store.last_seq(event.run_id) >= event.seq
        seen.append((event.type, threading.get_ident() == caller, stored))

    runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="210", max_iterations=0), on_event=on_event)
    assert all(stored for _, _, stored in seen)
    on_caller = {t for t, here, _ in seen if here}
    assert {"run_started", "allocation_decided", "draft_ready", "run_finished"} <= on_caller
    starts = Counter(here for t, here, _ in seen if t == "researcher_started")
    assert starts[False] >= 2, starts  # three researchers in parallel: at least two on pool threads


class _CrashingBrain:
    """The offline brain's face, whose plan step crashes with the key in its message."""

    kind, name = "offline", "crashing"

    def __init__(self, key: str) -> None:
        self.key = key

    def plan(self, *_args: object, **_kwargs: object) -> None:
        raise RuntimeError(f"client misconfigured with {self.key}")


def test_a_failed_node_is_recorded_once_with_its_secret_masked(settings: Settings, monkeypatch) -> None:
    key = "sk-test-publisher-0123456789abcdef"
    runner = ResearchRunner(settings.model_copy(update={"openai_api_key": SecretStr(key)}))
    monkeypatch.setattr("research.runs.runner.make_brain", lambda *args, **kwargs: _CrashingBrain(key))
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100", max_iterations=0))
    events = runner.store.events(run_id)
    assert [e.type for e in events].count("run_failed") == 1 and events[-1].type == "run_failed"
    assert "client misconfigured" in events[-1].data.error and key not in events[-1].data.error
    assert runner.store.get_run(run_id).status == "failed"
