"""Each node, wrapped so the run's event log sees what a stream would carry, as it happens.

The sink is the run's `event_log`: the in-process runner's publisher (research/runs/publisher.py),
or a server worker's log of a shared run store. Custom events reach it through `emit` (inside the
node's `sink_scope`); the rest is made here from the node's own outcome: its update (transcript
messages), its pause (`interrupt`, as plan review's), its failure. Only nodes that really run are
seen: a resumed run's replayed updates never reach the sink, so nothing is logged twice. Without a
sink (a server worker whose clients follow its stream) the wrapper only looks the sink up.

A graph built for a `ServiceRegistry` (a server's) also hands each node and edge a runtime whose
context is the run's `RunEnv` (its JSON spec joined to that registry), so nodes reach their services
through the runtime alone, and runs each node in its run's logging scope (the run id on every
`research.*` line, the topic masked), which in-process the runner sets around the whole run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from langgraph.errors import GraphBubbleUp, GraphInterrupt
from langgraph.runtime import Runtime, get_runtime

from research.events.sink import sink_scope
from research.events.stream import error_part, stream_part
from research.graph.services import ServiceRegistry, run_env
from research.logging_setup import run_id_scope

F = TypeVar("F", bound=Callable[..., Any])


def with_run_env(registry: ServiceRegistry | None, fn: F) -> F:
    """`fn` (a node or an edge) given a runtime whose context is the run's RunEnv. Without a
    registry the graph's caller passes a RunEnv itself (the in-process runner): `fn` unchanged."""
    if registry is None:
        return fn

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        runtime = kwargs.get("runtime")
        if isinstance(runtime, Runtime):
            kwargs["runtime"] = runtime.override(context=run_env(runtime.context, registry))
        return fn(*args, **kwargs)

    return run  # type: ignore[return-value]


def topic_of(state: object) -> str:
    """The run's topic as a node's input carries it: the graph state's, or a researcher's task's."""
    if not isinstance(state, Mapping):
        return ""
    topic = state.get("topic")
    if not topic:
        task = state.get("task")
        topic = task.get("topic") if isinstance(task, Mapping) else getattr(task, "topic", "")
    return topic if isinstance(topic, str) else ""


def logged_node(name: str, node: F, registry: ServiceRegistry | None = None) -> F:
    """`node` with its outcome handed to the run's worker log, if this process writes one, and, in a
    graph built for a registry (a server's), run in its run's logging scope. `functools.wraps` keeps
    its signature, from which LangGraph decides what to pass it."""
    node = with_run_env(registry, node)

    @functools.wraps(node)
    def run(*args: Any, **kwargs: Any) -> Any:
        if registry is None:  # in-process: the runner's scope covers the whole run
            return run_logged(*args, **kwargs)
        env = run_env(get_runtime().context, registry)
        with run_id_scope(str(env.spec.get("run_id") or "-"), topic=topic_of(args[0] if args else None)):
            return run_logged(*args, **kwargs)

    def run_logged(*args: Any, **kwargs: Any) -> Any:
        runtime = get_runtime()
        env = run_env(runtime.context, registry)
        sink = env.registry.services_for(env.spec, runtime.store).event_log
        if sink is None:
            return node(*args, **kwargs)
        with sink_scope(sink):
            try:
                update = node(*args, **kwargs)
            except GraphInterrupt as pause:
                sink(stream_part("updates", {"__interrupt__": list(pause.args[0] if pause.args else ())}))
                raise
            except GraphBubbleUp:  # LangGraph's own control flow, not a failure
                raise
            except Exception as exc:
                sink(error_part(exc))
                raise
        sink(stream_part("updates", {name: update}))
        return update

    return run  # type: ignore[return-value]
