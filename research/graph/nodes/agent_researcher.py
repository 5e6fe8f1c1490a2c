"""Agent-mode researcher: one branch of the Send() fan-out as a bounded tool loop.

The supervisor's directive is the worker's first message (a HumanMessage named "Supervisor"); each
tool call is an AIMessage with `tool_calls` (named after the worker) answered by a ToolMessage with
the same id; the worker loops until it replies without tool calls. Bounds: tool calls per worker,
per round and per run, the model budget, and a guard against repeated identical calls or arguments
that stay invalid. A worker that hits one closes with what it found and says so. A model that
cannot call tools runs this researcher as the pipeline does, with a warning.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from langgraph.runtime import Runtime

from research import prompts
from research.brains.base import BudgetExceeded
from research.brains.fallback import describe_model_error
from research.brains.llm.model_output import strip_think
from research.brains.llm.tool_agent import ToolsUnsupported, tool_agent_for
from research.brains.offline.offline_tools import OfflineToolPolicy
from research.graph.context import RunContext, controls_of
from research.graph.nodes.agent_worker import WorkerLog, run_tool_call
from research.graph.nodes.common import agent_log, report_usage, warn
from research.graph.nodes.researcher import researcher
from research.graph.nodes.researcher_report import announce_start, failed_branch, report_branch
from research.graph.services import RunEnv, services_of, spec_of
from research.graph.state import ResearcherState
from research.schemas.source_quality import SourceControls
from research.schemas.state_shapes import ResearcherTask, RunWarning
from research.sources.tools import build_tools

MAX_INVALID_STREAK = 2  # an invalid call may be retried once; a second in a row ends the loop
MAX_REPEATS = 2


def directive_text(task: ResearcherTask) -> str:
    reason = prompts.AGENT_DIRECTIVE_REASON.format(
        researcher_id=task.researcher_id,
        kind=task.kind,
        angle=task.angle or "the question as a whole",
        question=task.question,
        topic=task.topic or task.question,
    )
    if task.focus_queries:  # a follow-up worker: the analyst's recommended queries are its brief
        reason += prompts.AGENT_FOCUS_NOTE.format(focus="; ".join(f'"{q}"' for q in task.focus_queries))
    return prompts.AGENT_DIRECTIVE.format(reason=reason)


def agent_researcher(state: ResearcherState, config: RunnableConfig, runtime: Runtime[RunEnv]) -> ResearcherState:
    task, ctx = state["task"], services_of(runtime)
    try:
        return _agent_loop(task, ctx, controls_of(spec_of(runtime)))
    except ToolsUnsupported as exc:
        warn(
            task.researcher_id,
            f"{exc}; {task.researcher_id} ran as a pipeline researcher instead.",
            researcher_id=task.researcher_id,
        )
        result = researcher(state, config, runtime)
        return {
            **result,
            "warnings": result.get("warnings", [])
            + [
                RunWarning(
                    source=task.researcher_id,
                    researcher_id=task.researcher_id,
                    message=f"{exc}; ran as a pipeline researcher",
                )
            ],
        }
    except GraphBubbleUp:
        raise
    except Exception as exc:  # noqa: BLE001 - one broken researcher must not end the run
        return failed_branch(task, exc, ctx.settings.secret_values())


def _agent_loop(task: ResearcherTask, ctx: RunContext, controls: SourceControls) -> ResearcherState:
    started = time.time()
    rid, settings = task.researcher_id, ctx.settings
    announce_start(task)
    tools = build_tools(task.kind, ctx.sources, settings, topic=task.topic or task.question, controls=controls)
    log = WorkerLog(task, ctx)
    model = tool_agent_for(ctx.brain)
    agent = model or OfflineToolPolicy(
        task.focus_queries + ctx.offline.queries(task, task.kind),
        lambda: ctx.offline.notes(task, log.sources, ctx.text_of),
    )
    directive = directive_text(task)
    messages = [
        SystemMessage(
            prompts.AGENT_SYSTEM.format(
                kind=task.kind,
                max_calls=settings.max_tool_calls_per_researcher,
                untrusted_rule=prompts.UNTRUSTED_DATA_RULE,
            )
        ),
        HumanMessage(directive, name="Supervisor"),
    ]
    log.message("directive", "Supervisor", directive)
    agent_log.info("[RESEARCHER %s] Directive: %s | Tools: %s", rid, directive, [t.name for t in tools])
    by_name = {t.name: t for t in tools}
    calls = invalid_streak = repeats = 0
    seen: set[str] = set()
    stop: str | None = None
    closing = ""
    while stop is None:
        try:
            reply = agent.step(messages, tools)
        except BudgetExceeded as exc:
            stop = str(exc)
            break
        except ToolsUnsupported:
            if calls or log.sources:
                stop = "the model stopped accepting tool calls"
                break
            raise
        except Exception as exc:  # noqa: BLE001 - a model failure costs this worker its loop, not the run
            reason = describe_model_error(exc, settings.secret_values())
            if not calls:
                raise ToolsUnsupported(f"the model failed before its first tool call ({reason})") from exc
            stop = f"the model failed ({reason})"
            break
        finally:
            report_usage(ctx, "researcher", rid)
        reply.name = rid
        requested: list[Mapping[str, Any]] = [
            *reply.tool_calls,
            *(
                {
                    "name": c.get("name") or "?",
                    "args": {"raw": c.get("args")},
                    "id": c.get("id") or "",
                    "invalid": c.get("error") or "arguments are not valid JSON",
                }
                for c in reply.invalid_tool_calls
            ),
        ]
        if not requested:
            if model is not None and not calls and not log.sources:
                raise ToolsUnsupported("the model answered without calling any tool")
            messages.append(reply)
            closing = strip_think(str(reply.text))
            break
        messages.append(reply)
        log.message("assistant", rid, str(reply.text), tool_calls=requested)
        for call in requested:
            refusal = None
            if calls >= settings.max_tool_calls_per_researcher:
                refusal = (
                    f"this researcher's tool-call limit ({settings.max_tool_calls_per_researcher}, "
                    "RESEARCH_MAX_TOOL_CALLS_PER_RESEARCHER) is reached"
                )
            else:
                refusal = ctx.tool_budget.acquire(
                    task.iteration,
                    per_round=settings.max_tool_calls_per_round,
                    per_run=settings.max_tool_calls_per_run,
                )
            if refusal:
                stop = refusal
                messages.append(log.refused(call, prompts.TOOL_REFUSED.format(reason=refusal)))
                continue
            calls += 1
            outcome = run_tool_call(call, by_name, seen, log)
            messages.append(outcome.message)
            invalid_streak = invalid_streak + 1 if outcome.status == "invalid" else 0
            repeats += outcome.status == "repeated"
        if stop is None and invalid_streak >= MAX_INVALID_STREAK:
            stop = "its tool arguments stayed invalid after a retry"
        if stop is None and repeats >= MAX_REPEATS:
            stop = "it kept repeating identical tool calls"
    if stop is not None or not closing:
        closing = _bounded_closing(task, ctx, log, stop or "the model's closing reply was empty")
    log.message("closing", rid, closing)
    seconds = round(time.time() - started, 3)
    report = report_branch(task, queries=log.queries, sources=log.sources, notes=closing, seconds=seconds)
    return {
        "sources": log.sources,
        "reports": [report],
        "warnings": log.warnings,
        "messages": [AIMessage(content=closing, name=rid)],
    }


def _bounded_closing(task: ResearcherTask, ctx: RunContext, log: WorkerLog, reason: str) -> str:
    """Notes from what was found, led by why the worker stopped (it says so, in the notes and a warning)."""
    warn(task.researcher_id, f"{task.researcher_id} stopped early: {reason}", researcher_id=task.researcher_id)
    log.warnings.append(
        RunWarning(source=task.researcher_id, researcher_id=task.researcher_id, message=f"stopped early: {reason}")
    )
    try:
        notes = ctx.brain.notes(task, log.sources, ctx.text_of)
    except BudgetExceeded:
        notes = ctx.offline.notes(task, log.sources, ctx.text_of)
    report_usage(ctx, "researcher", task.researcher_id)
    return f"{prompts.AGENT_BOUND_NOTE.format(reason=reason)}\n\n{notes}"
