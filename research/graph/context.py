"""The run's context: a JSON spec that travels (in-process, or as a server run's `context`), and
the services each process builds from it (settings, brain, router, page-text store; never checkpointed).

Nodes call `services_of(runtime)` (research/graph/services.py) and get a `RunContext`; the spec is
all that crosses a process boundary, and each process's registry joins it to that process's services.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypedDict

from research.brains.base import Brain
from research.brains.offline.offline_brain import OfflineBrain
from research.events.sink import PartSink
from research.graph.run_memos import RunMemos
from research.graph.tool_budget import ToolCallBudget
from research.schemas.source_quality import SourceControls
from research.settings import ResearcherMode, Settings
from research.sources.router import SourceRouter
from research.sources.texts import SourceTextStore


class RunSpec(TypedDict, total=False):
    """What a process needs to build a run's services; every field is JSON. Missing = the
    process's own settings (RESEARCH_* of the worker's environment)."""

    run_id: str
    brain: str  # auto | offline | openai
    model: str
    fast_model: str
    sources: str  # auto | live | library
    max_researchers: int
    results_per_query: int
    max_llm_calls: int
    max_tokens: int
    researcher_mode: str  # pipeline | agent
    started_by: str  # the signed-in user who started the run (shared desks)
    # The dashboard's daily cap for `started_by` and the calls they had left when the run was sent:
    # a worker holds the run to the cap before each request (research/runs/daily_cap.py).
    user_daily_llm_calls: int
    user_calls_left: int
    # The run store (its store_id) the client reads this run's events from: a worker that shares
    # that store writes the event log itself (research/runs/worker_log.py).
    event_log_store: str
    # The run's source controls (research.schemas.source_quality.SourceControls as JSON); absent = none.
    source_controls: dict[str, Any]


SPEC_SETTINGS = (
    "model",
    "fast_model",
    "sources",
    "max_researchers",
    "results_per_query",
    "max_llm_calls",
    "max_tokens",
)


def spec_for(run_id: str, settings: Settings, brain: str | None = None, *, only_set: bool = False) -> RunSpec:
    """The spec of a run started with these settings (the brain choice as the request gave it).
    `only_set`: only settings given explicitly (environment, overrides), not defaults, so a remote
    worker's own configuration decides the rest."""
    spec = RunSpec(run_id=run_id)
    if brain or not only_set or "llm" in settings.model_fields_set:
        spec["brain"] = brain or settings.llm
    for name in SPEC_SETTINGS:
        if only_set and name not in settings.model_fields_set:
            continue
        value = getattr(settings, name)
        if value is not None:
            spec[name] = value  # type: ignore[literal-required]
    return spec


def controls_of(spec: RunSpec) -> SourceControls:
    """The run's source controls, as its spec carries them (validated again in each process)."""
    return SourceControls.model_validate(spec.get("source_controls") or {})


def with_controls(spec: RunSpec, controls: SourceControls) -> RunSpec:
    """The spec carrying `controls` (left out when none is set, so older workers see no new key)."""
    if controls.active:
        spec["source_controls"] = controls.model_dump(mode="json")
    return spec


@dataclass(frozen=True)
class RunContext:
    """The services of one run in this process (the attribute names every node uses)."""

    run_id: str
    settings: Settings
    brain: Brain
    sources: SourceRouter
    store: SourceTextStore
    offline: OfflineBrain = field(default_factory=OfflineBrain)
    researcher_mode: ResearcherMode = "pipeline"
    tool_budget: ToolCallBudget = field(default_factory=ToolCallBudget)  # shared by the run's agents
    # Where the nodes hand the run's stream parts as they make them: the in-process runner's
    # publisher (research/runs/publisher.py), or a server worker's log of a shared run store.
    event_log: PartSink | None = None
    worker_log: bool = False  # event_log is a server worker's (remote readers then follow the store)
    # Answers of pure computations the run's nodes share (the coverage: nodes/run_coverage.py).
    memos: RunMemos = field(default_factory=RunMemos)

    def text_of(self, source_id: str) -> str:
        return self.store.get_text(self.run_id, source_id)
