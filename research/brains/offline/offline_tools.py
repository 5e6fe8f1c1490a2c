"""The offline brain's tool policy: a deterministic choice of tool calls, so agent mode runs (and is
tested and demonstrated) with no key and no network.

Policy: each planned query goes to the kind's search tools in turn (every search tool is tried at
least once); if nothing on-topic was found, the local library is searched; then the worker closes
with extractive notes. The choice depends only on the messages so far, like a model's would.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool

LIBRARY_TOOL = "search_library"
FETCH_TOOLS = frozenset({"scrape_page", "fetch_page"})


class OfflineToolPolicy:
    name = "offline"

    def __init__(self, queries: Sequence[str], write_notes: Callable[[], str]) -> None:
        self.queries = list(dict.fromkeys(q for q in queries if q)) or ["overview"]
        self.write_notes = write_notes

    def step(self, messages: Sequence[BaseMessage], tools: Sequence[BaseTool]) -> AIMessage:
        names = [t.name for t in tools]
        searches = [n for n in names if n != LIBRARY_TOOL and n not in FETCH_TOOLS]
        made = [call for m in messages if isinstance(m, AIMessage) for call in m.tool_calls]
        plan = self._plan(searches) if searches else [(LIBRARY_TOOL, q) for q in self.queries[:2]]
        if len(made) < len(plan):
            tool, query = plan[len(made)]
            return _call(tool, {"query": query})
        found = any(
            getattr(getattr(m, "artifact", None), "sources", None) for m in messages if isinstance(m, ToolMessage)
        )
        if not found and LIBRARY_TOOL in names and all(c["name"] != LIBRARY_TOOL for c in made):
            return _call(LIBRARY_TOOL, {"query": self.queries[0]})
        return AIMessage(content=self.write_notes())

    def _plan(self, searches: list[str]) -> list[tuple[str, str]]:
        """Query i to search tool i (cycling), long enough that every query and every tool is used."""
        size = max(len(self.queries), len(searches))
        return list(itertools.islice(zip(itertools.cycle(searches), itertools.cycle(self.queries)), size))


def _call(tool: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": tool, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}],
    )
