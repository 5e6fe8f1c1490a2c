"""Agent mode with the offline brain's tool policy: the tool-call contract, events, log and bounds."""

from __future__ import annotations

from research.graph.nodes.agent_researcher import directive_text
from research.runs.view import fold
from research.schemas.state_shapes import ResearcherTask, ResearchRequest
from tests.graph.agent_runs import TOPIC, run_agent
from tests.helpers import events_of, final_state

CORAL_REEFS = "climate change effects on coral reefs"  # the analyst asks for a follow-up round


def test_every_tool_call_is_answered_and_reported(runner, settings):
    run_id = run_agent(runner, "111")
    view = fold(runner.store.events(run_id))
    assert view.researcher_mode == "agent" and view.status == "finished"
    assert set(view.researchers) == {"web-1", "academic-1", "book-1"}
    for r in view.researchers.values():
        roles = [m.role for m in r.transcript]
        # The contract: directive first, then call/result pairs, then the closing message.
        assert roles[0] == "directive" and roles[-1] == "closing"
        first = r.transcript[0]
        assert first.name == "Supervisor"
        assert first.content.startswith(f"Supervisor Directive: {r.id} (") and first.content.endswith(
            "Please address this."
        )
        asked = [c.id for m in r.transcript if m.role == "assistant" for c in m.tool_calls]
        answered = [m.tool_call_id for m in r.transcript if m.role == "tool"]
        assert asked and asked == answered == [c.call_id for c in r.tool_calls]
        assert all(m.name == r.id for m in r.transcript if m.role in ("assistant", "closing"))
        assert r.status == "done" and r.source_ids
        assert sum(c.result_count for c in r.tool_calls) >= len(r.source_ids)
    # Library mode: the only tool is the local library, called with the planned queries.
    assert {c.tool for r in view.researchers.values() for c in r.tool_calls} == {"search_library"}
    # Sources reach the graph through the reducer, stamped with their researcher and query.
    sources = final_state(runner, run_id)["sources"]
    assert sources and len({s.dedupe_key for s in sources}) == len(sources)
    assert {s.researcher_id for s in sources} == {"web-1", "academic-1", "book-1"}
    assert all(s.query for s in sources)


def test_the_log_names_the_worker_and_the_run(runner, settings):
    run_id = run_agent(runner, "111")
    lines = (settings.log_dir / "multiagent.log").read_text(encoding="utf-8").splitlines()
    mine = [line for line in lines if f"run={run_id}:" in line]
    chosen = [line for line in mine if '[RESEARCHER web-1] Tool chosen: search_library | Args: {"query":' in line]
    assert len(chosen) >= 2  # the choice, then the same line with its result preview
    assert any("| Result: " in line and "results:" in line for line in chosen)
    assert not [line for line in lines if "Tool chosen" in line and "run=-:" in line]


def test_pipeline_stays_the_default(runner):
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="111", max_iterations=0))
    assert not events_of(runner, run_id, "tool_called") and not events_of(runner, run_id, "worker_message")
    assert fold(runner.store.events(run_id)).researcher_mode == "pipeline"


def test_researcher_bound_closes_with_what_it_has(runner, settings):
    runner.settings = settings.model_copy(update={"max_tool_calls_per_researcher": 1})
    run_id = run_agent(runner, "111")
    view = fold(runner.store.events(run_id))
    for r in view.researchers.values():
        statuses = [c.status for c in r.tool_calls]
        assert statuses[0] == "ok" and set(statuses[1:]) <= {"refused"} and len(statuses) == 2
        closing = r.transcript[-1].content
        assert closing.startswith(
            "Stopped early: this researcher's tool-call limit (1, RESEARCH_MAX_TOOL_CALLS_PER_RESEARCHER)"
        )
        assert r.source_ids  # what the one call found is kept
    warnings = [w.message for w in view.warnings]
    assert sum("stopped early" in w for w in warnings) == 3


def test_run_bound_is_shared_by_parallel_workers(runner, settings):
    runner.settings = settings.model_copy(update={"max_tool_calls_per_run": 2})
    run_id = run_agent(runner, "111")
    calls = [e.data for e in events_of(runner, run_id, "tool_called")]
    assert sum(c.status != "refused" for c in calls) == 2
    refused = [c for c in calls if c.status == "refused"]
    assert refused and all("RESEARCH_MAX_TOOL_CALLS_PER_RUN" in c.error for c in refused)
    assert fold(runner.store.events(run_id)).status == "finished"  # the writer still writes


def test_follow_up_directives_carry_the_analysts_queries(runner):
    run_id = run_agent(runner, "111", topic=CORAL_REEFS, max_iterations=1)
    critique = events_of(runner, run_id, "critique_issued")[0].data
    assert critique.status == "NEEDS_IMPROVEMENT" and critique.recommended_queries
    view = fold(runner.store.events(run_id))
    follow_ups = [r for r in view.researchers.values() if r.is_follow_up]
    assert follow_ups
    directives = " ".join(r.transcript[0].content for r in follow_ups)
    assert "The analyst recommends these searches" in directives
    assert all(f'"{q}"' in directives for q in critique.recommended_queries)


def test_directive_text():
    task = ResearcherTask(researcher_id="web-1", kind="web", question="What is it?", topic="Tea", angle="angle 1")
    text = directive_text(task)
    assert (
        text
        == 'Supervisor Directive: web-1 (web, angle 1) to research "What is it?" for the topic "Tea". Please address this.'
    )


class _DownProvider:
    name, kind = "duckduckgo", "web"

    def search(self, query: str, *, limit: int):
        from research.sources.provider_base import ProviderError

        raise ProviderError(self.name, "HTTP 503 after 3 attempts")


def test_a_provider_fault_is_a_tool_result_and_a_warning(runner, settings):
    from research.runs.runner import ResearchRunner
    from research.sources.library.library_store import LibraryProvider
    from research.sources.router import CircuitBreaker, SourceRouter

    live = settings.model_copy(update={"sources": "live"})
    router = SourceRouter(
        live,
        lambda kind: LibraryProvider(runner.library, kind),
        providers=lambda kind, s: [_DownProvider()],
        breaker=CircuitBreaker(),
    )
    agent_runner = ResearchRunner(live, store=runner.store, library=runner.library, sources=router)
    run_id = run_agent(agent_runner, "100")
    worker = fold(runner.store.events(run_id)).researchers["web-1"]
    first = worker.tool_calls[0]
    assert first.tool == "search_web" and first.status == "fault" and "HTTP 503" in first.error
    result = next(m for m in worker.transcript if m.role == "tool")
    assert result.content.startswith("Tool search_web failed: HTTP 503 after 3 attempts")
    warnings = [e for e in events_of(runner, run_id, "warning") if e.researcher_id == "web-1"]
    assert any(w.data.source == "duckduckgo" and "HTTP 503" in w.data.message for w in warnings)
    # The policy then tries the local library, so the worker still has sources.
    assert "search_library" in [c.tool for c in worker.tool_calls] and worker.source_ids


def test_round_bound_applies_to_each_round(runner, settings):
    runner.settings = settings.model_copy(update={"max_tool_calls_per_round": 2})
    run_id = run_agent(runner, "111", topic=CORAL_REEFS, max_iterations=1)
    calls = [e for e in events_of(runner, run_id, "tool_called")]
    for round_ in (0, 1):
        made = [e for e in calls if e.iteration == round_ and e.data.status != "refused"]
        assert len(made) == 2, round_  # each round has its own allowance
        refused = [e for e in calls if e.iteration == round_ and e.data.status == "refused"]
        assert refused and all("RESEARCH_MAX_TOOL_CALLS_PER_ROUND" in e.data.error for e in refused)
    assert runner.stored_request(runner.store.get_run(run_id)).researcher_mode == "agent"  # what a resume would use
