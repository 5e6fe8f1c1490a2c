"""Payloads of the agent-mode researcher events: one tool call, one worker message."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from research.events.payload_base import Payload

ToolCallStatus = Literal["ok", "no_results", "fault", "invalid", "repeated", "refused"]
WorkerRole = Literal["directive", "assistant", "tool", "closing"]


class ToolCalledData(Payload):
    event_type = "tool_called"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    result_count: int = 0
    seconds: float = 0.0
    status: ToolCallStatus = "ok"
    error: str | None = None
    call_id: str = ""


class ToolCallView(BaseModel):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    id: str = ""


class WorkerMessageData(Payload):
    event_type = "worker_message"
    role: WorkerRole
    name: str
    content: str = ""
    tool_calls: list[ToolCallView] = Field(default_factory=list)
    tool_call_id: str | None = None
