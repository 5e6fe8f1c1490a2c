"""The engine's public API: what the dashboard (and other callers) may import."""

from research.allocation import AllocationError, parse_allocation
from research.citations import check_citations
from research.events import Event
from research.manager import RunManager
from research.runner import ResearchRunner
from research.runs import DraftVersion, RunRecord, RunStore
from research.schemas import MAX_TOPIC_CHARS, ResearcherAllocation, ResearchRequest, Source, TopicError, validate_topic
from research.settings import MAX_RESEARCHER_CAP, Settings, get_settings
from research.view import ResearcherView, RunView, fold

__all__ = [
    "AllocationError", "DraftVersion", "Event", "MAX_RESEARCHER_CAP", "MAX_TOPIC_CHARS", "ResearchRequest",
    "ResearchRunner", "ResearcherAllocation", "ResearcherView", "RunManager", "RunRecord", "RunStore", "RunView",
    "Settings", "Source", "TopicError", "check_citations", "fold", "get_settings", "parse_allocation",
    "validate_topic",
]
