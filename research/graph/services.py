"""Each process builds a run's services from its JSON spec (research.graph.context.RunSpec).

In-process, the runner binds the services it already holds (its run store, router, brain);
anywhere else (a LangGraph Server worker) they are built here on first use: settings from this
process's environment with the spec's choices on top, a brain per run (its meter counts that run's
calls and tokens), one router and library per process, page text in `runtime.store`.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from langgraph.store.memory import InMemoryStore

from research.brains.factory import make_brain
from research.events.sink import PartSink
from research.graph.context import SPEC_SETTINGS, RunContext, RunSpec
from research.settings import Settings
from research.sources.library.store import Library, LibraryProvider
from research.sources.router import SourceRouter
from research.sources.store_texts import LangGraphTextStore

EventLogFactory = Callable[[RunSpec, Settings], PartSink | None]

MAX_CACHED_RUNS = 256  # brains of runs this process served lately (a run's nodes share one)

_bound: dict[str, RunContext] = {}
_built: OrderedDict[str, RunContext] = OrderedDict()
_lock = threading.Lock()
_event_log_factory: EventLogFactory | None = None


def set_event_log_factory(factory: EventLogFactory | None) -> None:
    """How this process makes a run's worker event log (the server entry point, research/runs/server.py,
    sets it: the run store lives a layer above the graph)."""
    global _event_log_factory
    _event_log_factory = factory


def bind(ctx: RunContext) -> None:
    """Use these services for `ctx.run_id` in this process (the in-process runner)."""
    with _lock:
        _bound[ctx.run_id] = ctx


def unbind(run_id: str) -> None:
    with _lock:
        _bound.pop(run_id, None)


def services_of(runtime: Any) -> RunContext:
    """The services of the run a node belongs to (`runtime` is the node's LangGraph Runtime)."""
    spec: RunSpec = dict(getattr(runtime, "context", None) or {})  # type: ignore[assignment]
    run_id = str(spec.get("run_id") or "")
    with _lock:
        ctx = _bound.get(run_id) or _built.get(run_id)
        if ctx is not None:
            if run_id in _built:
                _built.move_to_end(run_id)
            return ctx
    ctx = build_services(spec, getattr(runtime, "store", None))
    with _lock:
        ctx = _built.setdefault(run_id, ctx)  # two nodes racing keep one brain
        while len(_built) > MAX_CACHED_RUNS:
            _built.popitem(last=False)
    return ctx


def build_services(spec: RunSpec, store: Any = None) -> RunContext:
    settings = settings_for(spec)
    library, sources = _shared(settings)
    texts = LangGraphTextStore(store if store is not None else _fallback_store())
    brain = make_brain(settings, spec.get("brain") or None)
    mode = spec.get("researcher_mode") or settings.researcher_mode
    return RunContext(
        run_id=str(spec.get("run_id") or ""),
        settings=settings,
        brain=brain,
        sources=sources,
        store=texts,
        researcher_mode="agent" if mode == "agent" else "pipeline",
        event_log=_event_log_factory(spec, settings) if _event_log_factory else None,
        subgraph_checkpoints=False,  # built here = not the in-process runner: maybe a server's checkpointer
    )


def settings_for(spec: RunSpec) -> Settings:
    """This process's settings (its environment) with the spec's run choices on top, validated."""
    base = _env_settings()
    update = {name: spec[name] for name in SPEC_SETTINGS if spec.get(name) is not None}  # type: ignore[literal-required]
    # Validated (a bad value in a spec is an error, not a silent default); secrets stay as they are.
    return Settings.model_validate({**base.model_dump(), **update}) if update else base


@lru_cache(maxsize=1)
def _env_settings() -> Settings:
    return Settings()


_shared_cache: dict[str, tuple[Library, SourceRouter]] = {}


def _shared(settings: Settings) -> tuple[Library, SourceRouter]:
    """One library and router per settings of this process (the router's search cache and timings
    are shared by its runs, as in the dashboard's one runner). The key is the JSON dump, where
    secrets are masked, plus a digest of the secrets (a new key means a new router)."""
    key = settings.model_dump_json() + hashlib.sha256("\0".join(settings.secret_values()).encode()).hexdigest()
    with _lock:
        if key not in _shared_cache:
            library = Library(settings.library_db)
            library.ensure_sample()
            _shared_cache[key] = (library, SourceRouter(settings, lambda kind: LibraryProvider(library, kind)))
        return _shared_cache[key]


@lru_cache(maxsize=1)
def _fallback_store() -> InMemoryStore:
    """Page text when the graph runs without a store and without bound services (a bare invoke)."""
    return InMemoryStore()
