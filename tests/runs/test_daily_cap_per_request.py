"""A signed-in user's daily model-call cap holds request by request: a run started under it makes
exactly the calls left in the user's 24 hours, even with researchers asking at once, and then
finishes from what it gathered with a warning that names the cap (the loopback model counts)."""

from __future__ import annotations

from pathlib import Path

from research.events import EventAdapter
from research.events.payloads import RunStarted, UsageReported
from research.events.status import RunStatus
from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.settings_presets import fake_model_settings

TOPIC = "How do mRNA vaccines work?"
ADA, BOB = "ada@example.org", "bob@example.org"
LEFT = 3  # calls ada has left when her second run starts


def run_as(tmp_path: Path, server: FakeOpenAIServer, user: str, cap: int) -> tuple[ResearchRunner, str]:
    runner = ResearchRunner(fake_model_settings(server.base_url, tmp_path, user_daily_llm_calls=cap))
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="111", max_iterations=0, started_by=user))
    return runner, run_id


def logged_calls(runner: ResearchRunner, run_id: str) -> int:
    return sum(e.data.calls for e in runner.store.events(run_id) if isinstance(e.data, UsageReported))


def test_a_run_stops_at_the_users_daily_cap_exactly(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        runner, first = run_as(tmp_path, server, ADA, cap=1000)
        before = server.stats.calls
        assert before > LEFT + 2 and logged_calls(runner, first) == before
        server.reset()
        runner, second = run_as(tmp_path, server, ADA, cap=before + LEFT)
        made = server.stats.calls
    assert made == LEFT  # not one request past the cap, three researchers racing for the last ones
    assert logged_calls(runner, second) == LEFT
    assert runner.store.model_calls_by(ADA, 0) == before + LEFT
    view = fold(runner.store.events(second))
    assert view.status == RunStatus.FINISHED and view.draft  # written from what was gathered
    assert any("Daily model-call cap reached" in w.message for w in view.warnings)


def test_the_cap_counts_only_the_users_own_runs(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        run_as(tmp_path, server, BOB, cap=1000)
        bobs = server.stats.calls
        server.reset()
        run_as(tmp_path, server, ADA, cap=bobs)  # counted as ada's, bob's calls would leave her none
        assert server.stats.calls > 0


def test_a_users_calls_are_found_whatever_letters_their_address_holds(tmp_path: Path) -> None:
    jose = "josé.müller@example.org"  # stored as written, not as \u escapes
    store = RunStore(tmp_path / "runs.sqlite")
    for run_id, started_by in (("r1", jose), ("r2", BOB)):
        store.create_run(run_id, TOPIC, None, "main-model")
        adapter = EventAdapter(run_id)
        store.append_event(adapter.make(RunStarted(topic=TOPIC, started_by=started_by)))
        store.append_event(adapter.make(UsageReported(node="writer", calls=3)))
    store.append_event(EventAdapter("r2", start_seq=2).make(UsageReported(node="revision", calls=2, spent_by=jose)))
    assert store.model_calls_by(jose, 0) == 3 + 2  # her run's, and her revision of Bob's
    assert store.model_calls_by(BOB, 0) == 3
