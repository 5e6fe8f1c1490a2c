"""Researcher: type-specific queries -> one retrieve per query, in parallel -> sources merged one
record per work (`merge_sources`) -> short notes.

Plain code inside the parent graph's researcher task, not a LangGraph subgraph: a subgraph cost each
researcher an executor of its own, three more steps and their checkpoints, between its model calls
(README, Performance). A researcher stopped part-way runs again whole when its run resumes (its
task's writes are saved when it ends), as one on a server always did: a server's checkpointer
could not checkpoint a subgraph called from a sync node.
"""

from __future__ import annotations

import time
from concurrent.futures import wait

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from langgraph.runtime import Runtime

from research.brains.base import BudgetExceeded
from research.brains.llm.relevance_judge import RelevanceJudge
from research.events import emit
from research.events.payloads import QueriesGenerated, SourcesDroppedData, SourcesFound
from research.graph.context import RunContext, controls_of
from research.graph.nodes.common import agent_log, log_tool, report_usage, warn
from research.graph.nodes.researcher_report import announce_start, failed_branch, report_branch
from research.graph.services import RunEnv, services_of, spec_of
from research.graph.state import ResearcherState, RetrieveTask, merge_sources
from research.relevance.passages import carried_text
from research.schemas.state_shapes import ResearcherTask, RunWarning, Source
from research.secrets import mask
from research.sources.context_pool import ContextPool
from research.sources.provider_base import Retrieval

MAX_QUERIES = 3
# Every researcher's retrieves but its first, across the process's runs; threads start as needed
# and are kept, so a researcher starts none of its own.
_RETRIEVES = ContextPool(max_workers=64, thread_name_prefix="retrieve")


def plan_queries(state: ResearcherState, runtime: Runtime[RunEnv]) -> ResearcherState:
    ctx = services_of(runtime)
    task = state["task"]
    announce_start(task)
    try:
        queries = ctx.brain.queries(task, task.kind)
    except BudgetExceeded as exc:
        warn("budget", f"{exc}; {task.researcher_id} used template queries.", researcher_id=task.researcher_id)
        queries = ctx.offline.queries(task, task.kind)
    report_usage(ctx, "researcher", task.researcher_id)
    queries = [q for q in dict.fromkeys(q.strip() for q in queries) if q][:MAX_QUERIES] or [task.question]
    emit(QueriesGenerated(queries=queries), researcher_id=task.researcher_id, iteration=task.iteration)
    return {"queries": queries, "started_at": time.time()}


def retrieve(state: RetrieveTask, runtime: Runtime[RunEnv]) -> ResearcherState:
    """One query of one researcher: its sources, their texts stored, and its events."""
    ctx = services_of(runtime)
    task, query = state["task"], state["query"]
    limit = ctx.settings.results_per_query
    log_tool("researcher", f"search_{task.kind}", {"researcher": task.researcher_id, "query": query, "limit": limit})
    controls = controls_of(spec_of(runtime))
    # Passed only when set: a router is anything with `retrieve(kind, query, limit, topic)`.
    limits = {"controls": controls} if controls.active else {}
    result = ctx.sources.retrieve(task.kind, query, limit, topic=task.topic, **limits)
    if ctx.settings.relevance_judge == "model" and result.sources:
        judge_relevance(ctx, task, result)
    sources = [s.model_copy(update={"researcher_id": task.researcher_id, "query": query}) for s in result.sources]
    cap = ctx.settings.max_source_text_chars  # every provider's page text, not only the library's
    ctx.store.put_texts(ctx.run_id, {sid: carried_text(query, text, cap) for sid, text in result.texts.items()})
    for w in result.warnings:
        warn(w.source, w.message, researcher_id=task.researcher_id)
    if result.off_topic:  # a broad query's stray hits: never shown as sources of this run
        agent_log.info(
            "[RESEARCHER] %s dropped %d off-topic results for %r", task.researcher_id, result.off_topic, query
        )
    if result.dropped:  # what was dropped and why (off-topic, or outside the source controls), for the researcher card
        emit(
            SourcesDroppedData(query=query, dropped=list(result.dropped)),
            researcher_id=task.researcher_id,
            iteration=task.iteration,
        )
    emit(
        SourcesFound(query=query, providers=result.providers_used, sources=sources, off_topic=result.off_topic),
        researcher_id=task.researcher_id,
        iteration=task.iteration,
    )
    preview = "; ".join(s.title for s in sources[:3])
    log_tool("researcher", f"search_{task.kind}", {"query": query}, preview=f"{len(sources)} results: {preview}")
    return {
        "sources": sources,
        "warnings": [w.model_copy(update={"researcher_id": task.researcher_id}) for w in result.warnings],
    }


def judge_relevance(ctx: RunContext, task: ResearcherTask, result: Retrieval) -> None:
    """The model's say on the sources the offline score kept (brains/relevance_judge.py): what it
    rejects is dropped like an offline drop, with its reason; a failed call keeps the offline verdicts."""
    judge = getattr(getattr(ctx.brain, "primary", ctx.brain), "relevance", None)
    if not isinstance(judge, RelevanceJudge):
        return  # the offline brain: the offline score alone
    try:
        judged = judge.judge(task.topic or task.question, task.question, result.sources)
    except Exception as exc:  # noqa: BLE001 - budget or model failure: the offline score decides
        message = mask(f"{type(exc).__name__}: {exc}", ctx.settings.secret_values())
        warn("relevance", f"The model relevance judge failed ({message[:300]}); the offline score decided.")
        judged = None
    report_usage(ctx, "researcher", task.researcher_id)
    if judged is None:
        return
    result.sources = judged.kept
    for dropped in judged.dropped:
        result.off_topic += 1
        result.dropped.append(dropped)
    kept = {s.id for s in judged.kept}
    result.texts = {sid: text for sid, text in result.texts.items() if sid in kept}


def write_notes(state: ResearcherState, runtime: Runtime[RunEnv]) -> ResearcherState:
    ctx = services_of(runtime)
    task = state["task"]
    sources = state.get("sources", [])
    try:
        notes = ctx.brain.notes(task, sources, ctx.text_of)
    except BudgetExceeded:
        notes = ctx.offline.notes(task, sources, ctx.text_of)
    report_usage(ctx, "researcher", task.researcher_id)
    seconds = round(time.time() - state.get("started_at", time.time()), 3)
    report = report_branch(task, queries=state.get("queries", []), sources=sources, notes=notes, seconds=seconds)
    return {"reports": [report], "messages": [AIMessage(content=notes, name=task.researcher_id)]}


def researcher(state: ResearcherState, config: RunnableConfig, runtime: Runtime[RunEnv]) -> ResearcherState:
    """One researcher, start to end, and only what the parent graph keeps."""
    task = state["task"]
    try:
        planned = plan_queries(ResearcherState(task=task), runtime)
        queries = planned["queries"]
        sources: list[Source] = []
        warnings: list[RunWarning] = []
        for found in retrieve_all(task, queries, runtime):  # in query order: the merge is deterministic
            sources = merge_sources(sources, found.get("sources", []))
            warnings += found.get("warnings", [])
        noted = write_notes(
            ResearcherState(task=task, queries=queries, sources=sources, started_at=planned["started_at"]), runtime
        )
    except GraphBubbleUp:  # interrupts and other control flow belong to LangGraph
        raise
    except Exception as exc:  # noqa: BLE001 - one broken researcher must not end the run
        return failed_branch(task, exc, services_of(runtime).settings.secret_values())
    return ResearcherState(
        sources=sources, reports=noted.get("reports", []), warnings=warnings, messages=noted.get("messages", [])
    )


def retrieve_all(task: ResearcherTask, queries: list[str], runtime: Runtime[RunEnv]) -> list[ResearcherState]:
    """One retrieve per query, all at once: the first on this thread, the others on the shared pool
    (each in this task's context, so its events name this researcher's step)."""
    others = [_RETRIEVES.submit(retrieve, RetrieveTask(task=task, query=q), runtime) for q in queries[1:]]
    try:
        first = retrieve(RetrieveTask(task=task, query=queries[0]), runtime)
    finally:
        wait(others)  # a failed retrieve ends the researcher once its siblings are done, their events in
    return [first, *(f.result() for f in others)]
