"""A scripted tool-calling model for agent-mode researchers, behind FakeOpenAIServer.

Requests that offer the agent tools (search_library is always among them) go to a script
`script(request, step) -> ChatReply`, where `step` counts the tool results already in the
conversation; every other request (plan, queries, verdict, notes, draft) goes to ScriptedModel.
The default script calls the first offered tool with the topic, then search_library, then closes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.fakes.openai_server import ChatReply
from tests.fakes.scripted_model import ScriptedModel

Script = Callable[[dict[str, Any], int], ChatReply]
_TOPIC = re.compile(r'for the topic "([^"]+)"')


def tool_names(request: dict[str, Any]) -> list[str]:
    return [(t.get("function") or {}).get("name", "") for t in request.get("tools") or []]


def is_agent_request(request: dict[str, Any]) -> bool:
    return "search_library" in tool_names(request)


def directive_topic(request: dict[str, Any]) -> str:
    for message in request.get("messages") or []:
        match = _TOPIC.search(str(message.get("content") or ""))
        if match:
            return match.group(1)
    return "the topic"


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request.get("messages") or [] if m.get("role") == "tool"]


def default_script(request: dict[str, Any], step: int) -> ChatReply:
    topic, names = directive_topic(request), tool_names(request)
    if step == 0:
        return ChatReply(tool_calls=[(names[0], {"query": topic, "limit": 4})])
    if step == 1:
        return ChatReply(tool_calls=[("search_library", {"query": f"{topic} history", "limit": 4})])
    return ChatReply(content=f"- The sources describe {topic}.\n- They agree on its main points.")


class ToolAgentModel:
    def __init__(self, script: Script = default_script, inner: Callable[[dict[str, Any]], Any] | None = None) -> None:
        self.script = script
        self.inner = inner or ScriptedModel(approve_from_round=1)
        self.agent_requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        if is_agent_request(request):
            self.agent_requests.append(request)
            return self.script(request, len(tool_results(request)))
        return self.inner(request)
