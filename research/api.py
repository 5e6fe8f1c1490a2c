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

# For the dashboard: run-view constants, library browsing/upload and the provider check.
from research.health import ProviderStatus, check_providers
from research.schemas import MAX_PER_KIND, RESEARCHER_KINDS
from research.sources.library import Library, LibraryDocument, LibraryHit
from research.sources.library_import import SUPPORTED_SUFFIXES, ImportReport, import_bytes
from research.view import PHASES

__all__ = [
    "AllocationError", "DraftVersion", "Event", "MAX_RESEARCHER_CAP", "MAX_TOPIC_CHARS", "ResearchRequest",
    "ResearchRunner", "ResearcherAllocation", "ResearcherView", "RunManager", "RunRecord", "RunStore", "RunView",
    "Settings", "Source", "TopicError", "check_citations", "fold", "get_settings", "parse_allocation",
    "validate_topic",
    "ImportReport", "Library", "LibraryDocument", "LibraryHit", "MAX_PER_KIND", "PHASES", "ProviderStatus",
    "RESEARCHER_KINDS", "SUPPORTED_SUFFIXES", "check_providers", "import_bytes",
]
