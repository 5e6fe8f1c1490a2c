"""A run's services, from one registry per process, reached by a node through its LangGraph runtime.

The graph's context travels as a JSON spec (research.graph.context.RunSpec); a node sees it as a
`RunEnv`: that spec and the `ServiceRegistry` of the process running it. The in-process runner
hands the graph a `RunEnv` with its own registry (in which it binds the services it already holds:
its run store, router, brain); a LangGraph Server gets only JSON, so its entry point
(research/runs/server.py) builds one registry and the graph it serves for it, whose nodes wrap the
spec into a `RunEnv` (research/graph/node_events.py). Services a registry builds itself: settings
from this process's environment with the spec's choices on top, a brain per run (its meter counts
that run's calls and tokens), one router and library per settings, page text in `runtime.store`.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from research.brains.factory import make_brain
from research.events.sink import PartSink
from research.graph.context import SPEC_SETTINGS, RunContext, RunSpec
from research.settings import Settings
from research.sources.library.library_store import Library, LibraryProvider
from research.sources.router import SourceRouter
from research.sources.store_texts import LangGraphTextStore

if TYPE_CHECKING:
    from research.brains.llm.usage_meter import Allowance

EventLogFactory = Callable[[RunSpec, Settings], PartSink | None]
AllowanceFactory = Callable[[RunSpec, Settings], "Allowance | None"]  # a run's daily-cap allowance
ProcessSetup = Callable[[Settings], None]  # once per registry, before its first run's services

MAX_CACHED_RUNS = 256  # brains of runs this process served lately (a run's nodes share one)


def settings_key(settings: Settings) -> str:
    """One key per distinct settings: the JSON dump (secrets masked there) plus a digest of the
    secrets, so a new key means new services (a new router, a new dashboard manager)."""
    secrets = hashlib.sha256("\0".join(settings.secret_values()).encode()).hexdigest()
    return f"{settings.model_dump_json()}|{secrets}"


class ServiceRegistry:
    """Where the runs of one process get their services. `settings`: this process's own (default:
    read from the environment); `event_log`: how this process makes a run's worker event log
    (a server worker that shares the client's run store; the run layer supplies it); `allowance`:
    what a run's meter asks before each request (a server worker's daily cap; the run layer's);
    `setup`: what this process sets up once, with its settings, before its first run's services
    (a server worker's logging). It runs in the first node that asks for services, never where the
    registry is made: langgraph-api calls a graph factory on its event loop, which refuses blocking
    calls (a mkdir, opening a log file)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        event_log: EventLogFactory | None = None,
        allowance: AllowanceFactory | None = None,
        setup: ProcessSetup | None = None,
    ) -> None:
        self.settings = settings if settings is not None else Settings()
        self.event_log = event_log
        self.allowance = allowance
        self._setup = setup
        self._bound: dict[str, RunContext] = {}
        self._built: OrderedDict[str, RunContext] = OrderedDict()
        self._shared: dict[str, tuple[Library, SourceRouter]] = {}
        self._texts = InMemoryStore()  # page text when a graph runs without a store (a bare invoke)
        self._lock = threading.Lock()

    def bind(self, ctx: RunContext) -> None:
        """Use these services for `ctx.run_id` (the in-process runner's own store, router, brain)."""
        with self._lock:
            self._bound[ctx.run_id] = ctx

    def unbind(self, run_id: str) -> None:
        with self._lock:
            self._bound.pop(run_id, None)

    def services_for(self, spec: RunSpec, store: BaseStore | None = None) -> RunContext:
        """The run's services: bound, built earlier for the run, or built now from its spec."""
        if self._setup is not None:
            self.set_up()
        run_id = str(spec.get("run_id") or "")
        with self._lock:
            ctx = self._bound.get(run_id) or self._built.get(run_id)
            if ctx is not None:
                if run_id in self._built:
                    self._built.move_to_end(run_id)
                return ctx
        ctx = self.build(spec, store)
        with self._lock:
            ctx = self._built.setdefault(run_id, ctx)  # two nodes racing keep one brain
            while len(self._built) > MAX_CACHED_RUNS:
                self._built.popitem(last=False)
        return ctx

    def set_up(self) -> None:
        """Run this process's `setup` (once; concurrent first nodes wait for it)."""
        with self._lock:
            setup, self._setup = self._setup, None
            if setup is not None:
                setup(self.settings)

    def build(self, spec: RunSpec, store: BaseStore | None = None) -> RunContext:
        settings = self.settings_for(spec)
        library, sources = self.shared(settings)
        mode = spec.get("researcher_mode") or settings.researcher_mode
        event_log = self.event_log(spec, settings) if self.event_log else None
        return RunContext(
            run_id=str(spec.get("run_id") or ""),
            settings=settings,
            brain=make_brain(
                settings,
                spec.get("brain") or None,
                allowance=self.allowance(spec, settings) if self.allowance else None,
            ),
            sources=sources,
            store=LangGraphTextStore(store if store is not None else self._texts),
            researcher_mode="agent" if mode == "agent" else "pipeline",
            event_log=event_log,
            worker_log=event_log is not None,
        )

    def settings_for(self, spec: RunSpec) -> Settings:
        """This process's settings with the spec's run choices on top, validated."""
        update = {name: spec[name] for name in SPEC_SETTINGS if spec.get(name) is not None}  # type: ignore[literal-required]
        # Validated (a bad value in a spec is an error, not a silent default); secrets stay as they are.
        return Settings.model_validate({**self.settings.model_dump(), **update}) if update else self.settings

    def shared(self, settings: Settings) -> tuple[Library, SourceRouter]:
        """One library and router per settings (the router's search cache and timings are shared
        by its runs, as in the dashboard's one runner)."""
        key = settings_key(settings)
        with self._lock:
            if key not in self._shared:
                library = Library(settings.library_db)
                library.ensure_sample()
                router = SourceRouter(settings, lambda kind: LibraryProvider(library, kind))
                self._shared[key] = (library, router)
            return self._shared[key]


@dataclass(frozen=True)
class RunEnv:
    """The runtime context a node sees: the run's JSON spec and the registry of this process."""

    spec: RunSpec
    registry: ServiceRegistry = field(compare=False)


def run_env(context: object, registry: ServiceRegistry | None) -> RunEnv:
    """`context` as a RunEnv: one already (in-process, or a subgraph of a run), or a JSON spec
    (a server run) joined to `registry`, the one the graph was built for."""
    if isinstance(context, RunEnv):
        return context
    if registry is None or not (context is None or isinstance(context, dict)):
        raise TypeError(
            "The research graph needs a RunEnv context (research.graph.services), or to be built for a "
            "ServiceRegistry (build_graph(services=...)) to run from a JSON spec."
        )
    spec: RunSpec = dict(context or {})  # type: ignore[assignment]
    return RunEnv(spec, registry)


def services_of(runtime: Runtime[RunEnv]) -> RunContext:
    """The services of the run a node belongs to (`runtime` is the node's LangGraph Runtime)."""
    env = run_env(runtime.context, None)
    return env.registry.services_for(env.spec, runtime.store)


def spec_of(runtime: Runtime[RunEnv]) -> RunSpec:
    """The JSON spec of the run a node belongs to."""
    return run_env(runtime.context, None).spec
