"""The parts of a run's view that are not an event payload as it came: a researcher's card, the
usage totals, a dropped result and a draft revision, each folded from the events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from research.events import payloads as p
from research.schemas.researchers import ResearcherOutcome
from research.schemas.state_shapes import DroppedSource


class DroppedResult(DroppedSource):
    """A result relevance kept out of the run, with the query that found it (sources_dropped)."""

    query: str = ""


@dataclass
class Revision:
    """A reviewer's draft version (draft_revised) and why it was made."""

    version: int
    reasons: list[str] = field(default_factory=list)


@dataclass
class NodeUsage:
    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, d: p.UsageReported) -> None:
        self.calls += d.calls
        self.failed_calls += d.failed_calls
        self.prompt_tokens += d.prompt_tokens
        self.completion_tokens += d.completion_tokens


@dataclass
class UsageTotals(NodeUsage):
    """The run's model usage (the usage events summed), in total and per graph node."""

    cost_usd: float | None = 0.0  # None: a call of a model without a known price (never a partial sum)
    by_node: dict[str, NodeUsage] = field(default_factory=dict)

    def add(self, d: p.UsageReported) -> None:
        super().add(d)
        self.by_node.setdefault(d.node, NodeUsage()).add(d)
        if d.cost_usd is None and (d.calls or d.prompt_tokens or d.completion_tokens):
            self.cost_usd = None  # unknown stays unknown
        elif d.cost_usd is not None and self.cost_usd is not None:
            self.cost_usd += d.cost_usd


@dataclass
class ResearcherView:
    id: str
    kind: str
    iteration: int = 0
    question: str = ""
    angle: str = ""
    queries: list[str] = field(default_factory=list)
    status: Literal["running"] | ResearcherOutcome = "running"
    source_ids: list[str] = field(default_factory=list)
    seconds: float | None = None
    notes: str = ""
    error: str | None = None
    started_ts: float | None = None
    # Agent mode: the worker's tool calls in order, and its own messages (its transcript).
    tool_calls: list[p.ToolCalledData] = field(default_factory=list)
    transcript: list[p.WorkerMessageData] = field(default_factory=list)
    dropped: list[DroppedResult] = field(default_factory=list)
    # The model call in progress for this researcher (model_progress): step and tokens so far.
    model_step: str | None = None
    model_tokens: int = 0

    @property
    def is_follow_up(self) -> bool:
        return self.iteration > 0
