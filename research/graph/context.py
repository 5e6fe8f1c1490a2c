"""What every node of one run needs, passed as LangGraph's run context (never checkpointed)."""

from __future__ import annotations

from dataclasses import dataclass, field

from research.brains.base import Brain
from research.brains.offline import OfflineBrain
from research.graph.tool_budget import ToolCallBudget
from research.settings import ResearcherMode, Settings
from research.sources.router import SourceRouter
from research.sources.texts import SourceTextStore


@dataclass(frozen=True)
class RunContext:
    run_id: str
    settings: Settings
    brain: Brain
    sources: SourceRouter
    store: SourceTextStore
    offline: OfflineBrain = field(default_factory=OfflineBrain)
    researcher_mode: ResearcherMode = "pipeline"
    tool_budget: ToolCallBudget = field(default_factory=ToolCallBudget)  # shared by the run's agents

    def text_of(self, source_id: str) -> str:
        return self.store.get_text(self.run_id, source_id)
