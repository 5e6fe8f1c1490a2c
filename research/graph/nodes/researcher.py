"""Researcher: a subgraph per researcher. Type-specific queries -> one retrieve per query in
parallel (Send) -> sources merged by the `merge_sources` reducer -> short notes."""

from __future__ import annotations

import time
from collections.abc import Callable

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from research.brains.base import BudgetExceeded
from research.brains.llm.relevance_judge import RelevanceJudge
from research.events import emit
from research.events.payloads import QueriesGenerated, SourcesDroppedData, SourcesFound
from research.graph.context import RunContext, RunSpec, controls_of
from research.graph.nodes.common import agent_log, log_tool, report_usage, warn
from research.graph.nodes.researcher_report import announce_start, failed_branch, report_branch
from research.graph.services import RunEnv, services_of, spec_of
from research.graph.state import ResearcherState, RetrieveTask
from research.relevance.passages import carried_text
from research.schemas.state_shapes import ResearcherTask
from research.secrets import mask
from research.sources.provider_base import Retrieval

MAX_QUERIES = 3


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


def fan_out_queries(state: ResearcherState) -> list[Send]:
    return [Send("retrieve", RetrieveTask(task=state["task"], query=q)) for q in state["queries"]]


def retrieve(state: RetrieveTask, runtime: Runtime[RunEnv]) -> ResearcherState:
    """`state` is one Send() payload (add_node's node protocols name their first parameter `state`)."""
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


def build_researcher_graph(
    *, checkpointer: bool | None = None
) -> CompiledStateGraph[ResearcherState, RunSpec | RunEnv, ResearcherState, ResearcherState]:
    # The subgraph runs with its parent's RunEnv as context; RunSpec is the schema a server reads.
    builder: StateGraph[ResearcherState, RunSpec | RunEnv, ResearcherState, ResearcherState] = StateGraph(
        ResearcherState, context_schema=RunSpec
    )
    steps: dict[str, Callable[..., ResearcherState]] = {
        "plan_queries": plan_queries,
        "retrieve": retrieve,
        "write_notes": write_notes,
    }
    for name, step in steps.items():
        builder.add_node(name, step)
    builder.add_edge(START, "plan_queries")
    builder.add_conditional_edges("plan_queries", fan_out_queries, ["retrieve"])
    builder.add_edge("retrieve", "write_notes")
    builder.add_edge("write_notes", END)
    return builder.compile(checkpointer=checkpointer)


RESEARCHER_GRAPH = build_researcher_graph()
# langgraph-api 0.16's adapter around a custom checkpointer (the server's, research/runs/server.py)
# has no sync methods, so a subgraph invoked from this sync node cannot checkpoint there: on a
# server the researcher's steps go without checkpoints of their own (a resumed researcher restarts).
UNCHECKPOINTED_RESEARCHER_GRAPH = build_researcher_graph(checkpointer=False)


def researcher(state: ResearcherState, config: RunnableConfig, runtime: Runtime[RunEnv]) -> ResearcherState:
    """Run one researcher's subgraph and hand back only what the parent graph keeps."""
    task = state["task"]
    try:
        graph = RESEARCHER_GRAPH if services_of(runtime).subgraph_checkpoints else UNCHECKPOINTED_RESEARCHER_GRAPH
        result = graph.invoke(ResearcherState(task=task), config, context=runtime.context)
    except GraphBubbleUp:  # interrupts and other control flow belong to LangGraph
        raise
    except Exception as exc:  # noqa: BLE001 - one broken researcher must not end the run
        return failed_branch(task, exc, services_of(runtime).settings.secret_values())
    return ResearcherState(
        sources=result.get("sources", []),
        reports=result.get("reports", []),
        warnings=result.get("warnings", []),
        messages=result.get("messages", []),
    )
