"""Small helpers every node uses: the run context, usage metering, the multi-agent log."""

from __future__ import annotations

import json
import logging
from typing import Any

from langgraph.runtime import Runtime

from research.context import RunContext
from research.events import emit

agent_log = logging.getLogger("research.agents")


def context_of(runtime: Runtime[RunContext]) -> RunContext:
    return runtime.context


def report_usage(ctx: RunContext, node: str, researcher_id: str | None = None) -> None:
    """Emit the model usage since the last report (nothing for the offline brain)."""
    usage = ctx.brain.take_usage()
    if usage.calls:
        emit(
            "usage", researcher_id=researcher_id, node=node, calls=usage.calls,
            prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
            cost_usd=usage.cost_usd,
        )


def log_tool(role: str, tool: str, args: dict[str, Any], preview: str = "") -> None:
    line = f"[{role.upper()}] Tool chosen: {tool} | Args: {json.dumps(args, ensure_ascii=False)}"
    if preview:
        line += f" | Result: {preview[:160]}"
    agent_log.info(line)


def warn(source: str, message: str, *, researcher_id: str | None = None) -> None:
    agent_log.warning("[WARNING] %s: %s", source, message)
    emit("warning", researcher_id=researcher_id, source=source, message=message)
