"""Small helpers every node uses: the run context, usage metering, the multi-agent log."""

from __future__ import annotations

from research.events import emit
from research.events.agent_log import agent_log, log_tool, warn
from research.events.payloads import UsageReported
from research.graph.context import RunContext

__all__ = ["agent_log", "log_tool", "report_usage", "warn"]


def report_usage(ctx: RunContext, node: str, researcher_id: str | None = None) -> None:
    """Emit the model usage since the last report (nothing for the offline brain)."""
    usage = ctx.brain.take_usage()
    if usage.calls:
        emit(UsageReported(node=node, **usage.model_dump()), researcher_id=researcher_id)  # the payload is the Usage
