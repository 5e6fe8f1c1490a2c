"""One agent-mode worker's bookkeeping: running a tool call, and reporting it (events, log, sources).

Every call becomes a `tool_called` event (shown on the researcher card as it happens), every
message a `worker_message` event (the worker's transcript), and a `[RESEARCHER web-1] Tool chosen`
line in logs/multiagent.log. Found sources are stamped with the worker and its query, their texts go
to the source store, and they are merged with `merge_sources`, exactly as the pipeline's retrieve.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from research import prompts
from research.events import emit
from research.events.agent_log import log_tool, warn
from research.events.payloads import QueriesGenerated, SourcesDroppedData, SourcesFound
from research.events.payloads_agent import ToolCalledData, ToolCallStatus, ToolCallView, WorkerMessageData, WorkerRole
from research.graph.context import RunContext
from research.graph.state import merge_sources
from research.schemas.state_shapes import ResearcherTask, RunWarning, Source
from research.sources.tools import ToolFindings

EVENT_TEXT_CHARS = 2000  # of a message's content, in its event (the model saw it whole)


@dataclass
class ToolOutcome:
    message: ToolMessage
    status: ToolCallStatus


class WorkerLog:
    def __init__(self, task: ResearcherTask, ctx: RunContext) -> None:
        self.task, self.ctx = task, ctx
        self.sources: list[Source] = []
        self.warnings: list[RunWarning] = []
        self.queries: list[str] = []

    def message(
        self,
        role: WorkerRole,
        name: str,
        content: str,
        *,
        tool_calls: list[Mapping[str, Any]] | None = None,
        tool_call_id: str | None = None,
    ) -> None:
        data = WorkerMessageData(
            role=role,
            name=name,
            content=content[:EVENT_TEXT_CHARS],
            tool_calls=[
                ToolCallView(name=c["name"], args=_json_safe(c.get("args")), id=c.get("id") or "")
                for c in tool_calls or []
            ],
            tool_call_id=tool_call_id,
        )
        emit(data, researcher_id=self.task.researcher_id, iteration=self.task.iteration)

    def tool_called(
        self,
        call: Mapping[str, Any],
        status: ToolCallStatus,
        *,
        count: int = 0,
        seconds: float = 0.0,
        error: str | None = None,
    ) -> None:
        data = ToolCalledData(
            tool=call["name"],
            args=_json_safe(call.get("args")),
            result_count=count,
            seconds=round(seconds, 3),
            status=status,
            error=error,
            call_id=call.get("id") or "",
        )
        emit(data, researcher_id=self.task.researcher_id, iteration=self.task.iteration)

    def refused(self, call: Mapping[str, Any], text: str) -> ToolMessage:
        self.tool_called(call, "refused", error=text)
        return self._answer(call, text, status="error")

    def _answer(self, call: Mapping[str, Any], text: str, *, status: str = "success") -> ToolMessage:
        message = ToolMessage(content=text, tool_call_id=call.get("id") or "", name=call["name"], status=status)
        self.message("tool", call["name"], text, tool_call_id=message.tool_call_id)
        return message

    def add_findings(self, call: Mapping[str, Any], findings: ToolFindings) -> list[Source]:
        query = str((call.get("args") or {}).get("query") or (call.get("args") or {}).get("url") or "")
        rid = self.task.researcher_id
        sources = [s.model_copy(update={"researcher_id": rid, "query": query}) for s in findings.sources]
        self.ctx.store.put_texts(self.ctx.run_id, {s.id: t for s, t in _texts_of(findings, sources)})
        if query and query not in self.queries:
            self.queries.append(query)
            emit(QueriesGenerated(queries=list(self.queries)), researcher_id=rid, iteration=self.task.iteration)
        for w in findings.warnings:
            warn(w.source, w.message, researcher_id=rid)
            self.warnings.append(w.model_copy(update={"researcher_id": rid}))
        if findings.dropped:  # as the pipeline researcher reports them (nodes/researcher.py)
            emit(
                SourcesDroppedData(query=query, dropped=findings.dropped),
                researcher_id=rid,
                iteration=self.task.iteration,
            )
        found = SourcesFound(query=query, providers=[call["name"]], sources=sources, off_topic=findings.off_topic)
        emit(found, researcher_id=rid, iteration=self.task.iteration)
        self.sources = merge_sources(self.sources, sources)
        return sources


def run_tool_call(call: Mapping[str, Any], tools: dict[str, BaseTool], seen: set[str], log: WorkerLog) -> ToolOutcome:
    """Run one requested call (or explain why not) and answer it with a ToolMessage of the same id."""
    name, rid = call["name"], log.task.researcher_id
    log_tool("researcher", name, _json_safe(call.get("args")), who=rid)
    if call.get("invalid"):
        return _invalid(call, prompts.TOOL_INVALID_ARGS.format(tool=name, problems=call["invalid"]), log)
    if name not in tools:
        problems = f"there is no tool named {name!r}; the tools are {', '.join(sorted(tools))}"
        return _invalid(call, prompts.TOOL_INVALID_ARGS.format(tool=name, problems=problems), log)
    key = json.dumps([name, _json_safe(call.get("args"))], sort_keys=True)
    if key in seen:
        text = prompts.TOOL_REPEATED.format(tool=name)
        log.tool_called(call, "repeated", error=text)
        return ToolOutcome(log._answer(call, text, status="error"), "repeated")
    seen.add(key)
    started = time.monotonic()
    message = tools[name].invoke(
        {"name": name, "args": call.get("args") or {}, "id": call.get("id") or "", "type": "tool_call"}
    )
    seconds = time.monotonic() - started
    findings = message.artifact if isinstance(message.artifact, ToolFindings) else None
    if findings is None:  # the arguments failed the tool's schema: the message explains how
        return _invalid(call, str(message.content), log, seconds=seconds)
    sources = log.add_findings(call, findings)
    status: ToolCallStatus = "fault" if findings.fault else ("ok" if sources else "no_results")
    log.tool_called(call, status, count=len(sources), seconds=seconds, error=findings.fault)
    preview = "; ".join(s.title for s in sources[:3])
    log_tool(
        "researcher",
        name,
        _json_safe(call.get("args")),
        who=rid,
        preview=f"{findings.fault or f'{len(sources)} results: {preview}'}",
    )
    log.message("tool", name, str(message.content), tool_call_id=message.tool_call_id)
    return ToolOutcome(message, status)


def _invalid(call: Mapping[str, Any], text: str, log: WorkerLog, *, seconds: float = 0.0) -> ToolOutcome:
    log.tool_called(call, "invalid", seconds=seconds, error=text)
    log_tool("researcher", call["name"], _json_safe(call.get("args")), who=log.task.researcher_id, preview=text)
    return ToolOutcome(log._answer(call, text, status="error"), "invalid")


def _texts_of(findings: ToolFindings, sources: list[Source]) -> list[tuple[Source, str]]:
    return [(s, findings.texts[s.id]) for s in sources if s.id in findings.texts]


def _json_safe(args: Any) -> dict[str, Any]:
    """Arguments as the events and the log show them: JSON values, bounded."""
    if not isinstance(args, dict):
        args = {"raw": args}
    text = json.dumps(args, default=str)
    return json.loads(text) if len(text) <= 4000 else {"raw": text[:200] + "…"}
