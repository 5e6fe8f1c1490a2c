"""LangSmith tracing of a run, when switched on (LANGSMITH_TRACING=true), with nothing secret in it.

The graph run is traced by LangChain's own tracer, given a client of ours: every trace is named by
the run id (the root run "research-run <id>", metadata `research_run_id`) and its children by the
LangGraph node that made them (LangChain names them; `langgraph_node` in their metadata). Before
anything leaves the process, `mask_trace` hides what a trace must not carry: configured secret
values, prompts and replies (`messages`, which hold page passages), page and draft text, and any
long string. The endpoint, key and project are LangSmith's own variables: LANGSMITH_ENDPOINT,
LANGSMITH_API_KEY, LANGSMITH_PROJECT (default "research-desk").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

DEFAULT_PROJECT = "research-desk"
MAX_TRACED_CHARS = 200  # a longer string is page text, a prompt or a draft: its length is traced, not it
MAX_TRACED_ITEMS = 50
# Keys whose values are text from outside or about to go outside: never traced, whatever their size.
HIDDEN_KEYS = frozenset(
    {
        "messages",
        "content",
        "text",
        "page_text",
        "snippet",
        "markdown",
        "draft",
        "notes",
        "passage",
        "passages",
        "sentence",
        "sentences",
        "quote",
        "quotes",
        "excerpt",
        "body",
        "prompt",
        "prompts",
        "generations",
        "api_key",
        "authorization",
    }
)
SECRET_MASK = "[secret]"

_lock = threading.Lock()
_clients: dict[tuple[str, str, str], Any] = {}


def tracing_enabled() -> bool:
    """LangSmith's own switch (LANGSMITH_TRACING, or the older LANGCHAIN_TRACING_V2), read now
    (langsmith caches what it read first)."""
    value = os.environ.get("LANGSMITH_TRACING") or os.environ.get("LANGCHAIN_TRACING_V2") or ""
    return value.strip().lower() in ("1", "true", "yes", "on")


def mask_trace(values: Any, secrets: Sequence[str] = ()) -> Any:
    """`values` as a trace may carry them: hidden keys dropped to a marker, secrets masked, long
    strings replaced by their length; structure bounded."""
    return _masked(values, tuple(s for s in secrets if s), 0)


def _masked(value: Any, secrets: tuple[str, ...], depth: int) -> Any:
    if depth > 12:
        return "[hidden: nested too deep]"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in list(value.items())[:MAX_TRACED_ITEMS]:
            name = str(key)
            out[name] = "[hidden]" if name.lower() in HIDDEN_KEYS else _masked(item, secrets, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_masked(item, secrets, depth + 1) for item in value[:MAX_TRACED_ITEMS]]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = value if isinstance(value, str) else type(value).__name__  # objects: their type, not their repr
    for secret in secrets:
        text = text.replace(secret, SECRET_MASK)
    return text if len(text) <= MAX_TRACED_CHARS else f"[hidden: {len(text):,} chars]"


def trace_client(secrets: Sequence[str] = ()) -> Any:
    """The process's LangSmith client for the configured endpoint, key and project (one per set)."""
    from langsmith import Client

    endpoint = os.environ.get("LANGSMITH_ENDPOINT", "")
    key = os.environ.get("LANGSMITH_API_KEY", "")
    project = os.environ.get("LANGSMITH_PROJECT", "") or DEFAULT_PROJECT
    with _lock:
        client = _clients.get((endpoint, key, project))
        if client is None:
            hidden = (*secrets, key)

            def hide(values: dict[str, Any]) -> dict[str, Any]:
                masked = mask_trace(values, hidden)
                return masked if isinstance(masked, dict) else {}

            client = Client(
                api_url=endpoint or None,
                api_key=key or None,
                hide_inputs=hide,
                hide_outputs=hide,
                omit_traced_runtime_info=True,
            )
            _clients[(endpoint, key, project)] = client
        return client


def flush_traces() -> None:
    """Send what the clients still hold (tests; a long-lived process sends in the background)."""
    with _lock:
        clients = list(_clients.values())
    for client in clients:
        client.flush()


def forget_clients() -> None:
    with _lock:
        _clients.clear()


def run_trace_config(run_id: str, secrets: Sequence[str] = ()) -> dict[str, Any]:
    """The graph config entries that name the run's trace and, when tracing is on, send it through
    the masking client (LangChain adds no tracer of its own when one is there)."""
    config: dict[str, Any] = {
        "run_name": f"research-run {run_id}",
        "metadata": {"research_run_id": run_id},
        "tags": [f"run:{run_id}"],
    }
    if tracing_enabled():
        from langchain_core.tracers.langchain import LangChainTracer

        project = os.environ.get("LANGSMITH_PROJECT", "") or DEFAULT_PROJECT
        config["callbacks"] = [LangChainTracer(client=trace_client(secrets), project_name=project)]
    return config
