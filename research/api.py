"""The engine's public API: what the dashboard (and other callers) may import."""

from research.brains.llm.availability import BrainUnavailable, brain_problem
from research.brains.offline.offline_revise import RevisionError
from research.drafts.citations import check_citations

# Issue 13: content made inert wherever it is shown.
from research.drafts.inert import inert_markdown
from research.events import Event, RunLiveness, RunStatus
from research.events.payloads import PlanReviewRequested, WorkerMessageData
from research.export.filenames import safe_filename
from research.export.run_export import EXPORT_FORMATS, ExportError, ExportFile, export_run, load_export_document
from research.export.sources_csv import csv_cell, render_csv
from research.graph.allocation import AllocationError, parse_allocation
from research.graph.nodes import Node
from research.graph.nodes.plan_review import MAX_QUESTION_CHARS, PlanEditError, validate_plan_edit
from research.graph.services import settings_key
from research.report_shape import MAX_TARGET_WORDS, MIN_TARGET_WORDS, SHAPES, ReportShape

# Issue 6: plan review, replay, bundles, exports and draft revision.
from research.runs.bundle import BUNDLE_EXTENSION, BundleError, export_bundle, import_bundle, read_bundle

# Issues 13/15: one runner per run (leases), resume from any point, shared runs (Postgres).
from research.runs.control import RunControl
from research.runs.lease import RunBusyError
from research.runs.manager import RunManager
from research.runs.purge import delete_run_everywhere

# Issue 15: remote mode (RESEARCH_SERVER_URL): the same interface over a LangGraph Server.
from research.runs.remote import RemoteRunManager, ServerUnreachable, thread_id_of
from research.runs.replay import (
    SPEEDS,
    ReplayControl,
    events_due,
    parse_speed,
    replay_events,
    replay_offsets,
    replay_run,
)
from research.runs.reshape import reshape_run
from research.runs.revision import USAGE_NODE as REVISION_USAGE_NODE
from research.runs.revision import Revision, revise_run
from research.runs.runner import PlanReviewError, ResearchRunner, RunNotResumableError
from research.runs.source_search import search_run_sources
from research.runs.sql import DatabaseUnavailable
from research.runs.store import (
    ComparisonRecord,
    DraftVersion,
    DuplicateEventError,
    RunRecord,
    RunStore,
    open_run_store,
)
from research.runs.view import PHASES, ResearcherView, RunView, fold
from research.schemas.llm_shapes import QuestionCoverage
from research.schemas.researchers import MAX_PER_KIND, RESEARCHER_KINDS, ResearcherAllocation
from research.schemas.source_quality import MAX_YEAR, MIN_YEAR, Reliability, SourceControls
from research.schemas.state_shapes import (
    MAX_TOPIC_CHARS,
    CheckedClaim,
    Critique,
    ResearchRequest,
    RunWarning,
    Source,
    TopicError,
    validate_topic,
)
from research.secrets import mask_url
from research.settings import MAX_RESEARCHER_CAP, Settings, get_settings

# For the dashboard: run-view constants, library browsing/upload and the provider check.
from research.sources.health import ProviderStatus, check_providers
from research.sources.library.documents import LibraryDocument, LibraryHit
from research.sources.library.importer import SUPPORTED_SUFFIXES, ImportReport, import_bytes
from research.sources.library.library_store import Library
from research.text.find import PassageHit


def make_manager(settings: Settings) -> RunControl:
    """The run manager these settings ask for: in-process, or a client of RESEARCH_SERVER_URL."""
    if settings.server_url:
        return RemoteRunManager(settings)
    return RunManager(ResearchRunner(settings))


__all__ = [
    "AllocationError",
    "BrainUnavailable",
    "brain_problem",
    "DraftVersion",
    "Event",
    "RunLiveness",
    "RunStatus",
    "MAX_RESEARCHER_CAP",
    "MAX_TOPIC_CHARS",
    "ResearchRequest",
    "ResearchRunner",
    "ResearcherAllocation",
    "ResearcherView",
    "RunControl",
    # The graph's node names and a draft revision's: what a usage event's `node` can be.
    "Node",
    "REVISION_USAGE_NODE",
    # The run view's parts, as panels read them.
    "CheckedClaim",
    "Critique",
    "PlanReviewRequested",
    "QuestionCoverage",
    "RunWarning",
    "WorkerMessageData",
    "RunManager",
    "RunRecord",
    "RunStore",
    "RunView",
    "Settings",
    "Source",
    "SourceControls",
    "Reliability",
    "MIN_YEAR",
    "MAX_YEAR",
    "TopicError",
    "check_citations",
    "fold",
    "get_settings",
    "parse_allocation",
    "validate_topic",
    "ImportReport",
    "Library",
    "LibraryDocument",
    "LibraryHit",
    "MAX_PER_KIND",
    "PHASES",
    "ProviderStatus",
    "RESEARCHER_KINDS",
    "SUPPORTED_SUFFIXES",
    "check_providers",
    "import_bytes",
    "BUNDLE_EXTENSION",
    "BundleError",
    "EXPORT_FORMATS",
    "ExportError",
    "ExportFile",
    "MAX_QUESTION_CHARS",
    "PlanEditError",
    "PlanReviewError",
    "ReplayControl",
    "Revision",
    "RevisionError",
    "SPEEDS",
    "events_due",
    "export_bundle",
    "export_run",
    "import_bundle",
    "load_export_document",
    "parse_speed",
    "read_bundle",
    "replay_events",
    "replay_offsets",
    "replay_run",
    "revise_run",
    "reshape_run",
    "search_run_sources",
    "PassageHit",
    "ReportShape",
    "SHAPES",
    "MIN_TARGET_WORDS",
    "MAX_TARGET_WORDS",
    "safe_filename",
    "validate_plan_edit",
    "inert_markdown",
    "csv_cell",
    "render_csv",
    "RemoteRunManager",
    "ServerUnreachable",
    "make_manager",
    "settings_key",
    "thread_id_of",
    "ComparisonRecord",
    "DatabaseUnavailable",
    "delete_run_everywhere",
    "mask_url",
    "DuplicateEventError",
    "RunBusyError",
    "RunNotResumableError",
    "open_run_store",
]
