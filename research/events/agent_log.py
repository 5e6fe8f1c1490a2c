"""The multi-agent log (`logs/multiagent.log`, logger "research.agents") and run warnings.

A warning is both a log line and a `warning` event, so it shows in the log, the dashboard and the
CLI alike. Lives beside the events so that any layer (brains included) can warn without
importing the graph.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from research.events.payloads import Warning
from research.events.stream import emit

agent_log = logging.getLogger("research.agents")


def log_tool(role: str, tool: str, args: dict[str, Any], preview: str = "", *, who: str | None = None) -> None:
    """`[RESEARCHER web-1] Tool chosen: search_arxiv | Args: {...} | Result: ...` (`who` names the worker)."""
    label = f"{role.upper()} {who}" if who else role.upper()
    line = f"[{label}] Tool chosen: {tool} | Args: {json.dumps(args, ensure_ascii=False)}"
    if preview:
        line += f" | Result: {preview[:160]}"
    agent_log.info(line)


def warn(source: str, message: str, *, researcher_id: str | None = None) -> None:
    agent_log.warning("[WARNING] %s: %s", source, message)
    emit(Warning(source=source, message=message), researcher_id=researcher_id)
