"""Remote mode holds a user's daily model-call cap before each request, as in-process does: the
server worker's meter asks the cap, over the dashboards' run store when it shares it (so a run
sees the calls another run of the same user made after it started), else against the calls left
when the run was sent. The worker is served in this process as a LangGraph Server serves it (the
server entry point's registry and graph, run from the JSON spec), the model is the loopback fake."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from research.events.payloads import UsageReported
from research.graph.builder import make_graph
from research.graph.services import ServiceRegistry
from research.logging_setup import run_id_scope
from research.runs import server
from research.runs.daily_cap import worker_allowance
from research.runs.remote import RemoteRunManager
from research.runs.view import fold
from research.runs.worker_log import worker_event_log
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel
from tests.settings_presets import fake_model_settings

TOPIC, OTHER_TOPIC = "How do mRNA vaccines work?", "How does CRISPR gene editing work?"
ADA, BOB = "ada@example.org", "bob@example.org"
LEFT = 3  # calls Ada has left for her last run
HOLD_SECONDS = 300  # a ceiling on a busy machine; the hold ends as soon as the other run has finished


class _WorkerClient:
    """langgraph-sdk's client as far as a run goes, answered by a worker in this process."""

    def __init__(self, registry: ServiceRegistry) -> None:
        self.graph = make_graph(registry)
        self.threads = SimpleNamespace(create=lambda **_kw: None, get=lambda _thread: {"status": "idle"})
        self.runs = SimpleNamespace(stream=self._stream)

    def _stream(
        self, thread_id: str, _assistant: str, *, context: dict[str, Any], input: Any = None, **_kw: Any
    ) -> Any:
        config = {"configurable": {"thread_id": thread_id}}
        modes = ["custom", "updates"]
        # The session's one log wants each line to name its run (tests/graph/test_agent_offline.py).
        with run_id_scope(context["run_id"]):
            yield from self.graph.stream(
                input, config, context=context, stream_mode=modes, subgraphs=True, version="v2"
            )


def _desk(tmp_path: Path, model: FakeOpenAIServer, cap: int, **shared: Any) -> RemoteRunManager:
    """A dashboard in remote mode and the server worker it talks to (the worker's own settings: the model)."""
    worker = fake_model_settings(model.base_url, tmp_path / "worker", llm_timeout=HOLD_SECONDS + 60, **shared)
    registry = ServiceRegistry(worker, event_log=worker_event_log, allowance=worker_allowance)
    desk = Settings(
        _env_file=None,
        data_dir=tmp_path / "desk",
        log_dir=tmp_path / "desk" / "logs",
        server_url="http://127.0.0.1:9",
        user_daily_llm_calls=cap,
        **shared,
    )
    manager = RemoteRunManager(desk, client=_WorkerClient(registry))
    manager.check = lambda: None  # the in-process worker needs no health check
    return manager


def _run(manager: RemoteRunManager, topic: str, user: str) -> str:
    return manager.run(ResearchRequest(topic=topic, allocation="111", max_iterations=0, started_by=user))


def _logged_calls(manager: RemoteRunManager, run_id: str) -> int:
    return sum(e.data.calls for e in manager.store.events(run_id) if isinstance(e.data, UsageReported))


def test_the_server_entry_point_gives_each_run_the_daily_cap() -> None:
    assert server.services().allowance is worker_allowance


def test_a_worker_without_the_desks_store_holds_a_run_to_the_calls_left_when_it_was_sent(tmp_path: Path) -> None:
    with FakeOpenAIServer() as model:
        first = _run(_desk(tmp_path, model, cap=1000), TOPIC, ADA)
        spent = model.stats.calls
        assert spent > LEFT + 2
        model.reset()
        manager = _desk(tmp_path, model, cap=spent + LEFT)
        second = _run(manager, TOPIC, ADA)
        assert model.stats.calls == LEFT  # before: the worker never asked, and made all `spent` again
    assert _logged_calls(manager, first) == spent and _logged_calls(manager, second) == LEFT
    view = fold(manager.store.events(second))
    assert view.status == "finished" and any("Daily model-call cap reached" in w.message for w in view.warnings)


def test_two_runs_of_one_user_at_once_stop_at_her_cap_on_a_shared_store(tmp_path: Path, pg_url: str) -> None:
    """Ada's second run starts first and waits in its first request while her other run spends;
    then it may make only what is left of her cap, which a check at its start would have passed."""
    scripted, held, other_done = ScriptedModel(), threading.Event(), threading.Event()

    def responder(request: dict[str, Any]) -> Any:
        if OTHER_TOPIC in str(request["messages"]) and not held.is_set():
            held.set()
            assert other_done.wait(HOLD_SECONDS), "the other run did not finish"
        return scripted(request)

    with FakeOpenAIServer(responder=scripted) as model:
        _run(_desk(tmp_path, model, cap=1000, database_url=pg_url), TOPIC, BOB)  # what one run spends
        spent = model.stats.calls
        model.reset()
        model.responder = responder
        manager = _desk(tmp_path, model, cap=spent + LEFT, database_url=pg_url)
        waiting: list[str] = []
        later = threading.Thread(target=lambda: waiting.append(_run(manager, OTHER_TOPIC, ADA)))
        later.start()
        try:
            assert held.wait(HOLD_SECONDS), "the waiting run made no request"
            first = _run(manager, TOPIC, ADA)
        finally:
            other_done.set()
            later.join(HOLD_SECONDS)
        made = model.stats.calls
    assert _logged_calls(manager, first) == spent
    assert made == spent + LEFT  # not one request past Ada's cap
    assert _logged_calls(manager, waiting[0]) == LEFT
    assert manager.store.model_calls_by(ADA, 0) == spent + LEFT
    view = fold(manager.store.events(waiting[0]))
    assert view.status == "finished" and any("Daily model-call cap reached" in w.message for w in view.warnings)
