"""Run bundles: one run moved between machines as a single file (record, events, drafts, page text)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

BUNDLE_FORMAT = "research-desk-run"
BUNDLE_VERSION = 1


class RunRecordFields(BaseModel):
    """A run's record as the run store keeps it: `RunRecord` (runs/store.py) and a bundle's copy."""

    run_id: str
    topic: str
    status: str
    created_at: float
    requested_allocation: str | None = None
    allocation: str | None = None
    allocation_origin: str | None = None
    brain: str | None = None
    finished_at: float | None = None
    source_count: int = 0
    error: str | None = None
    summary: dict[str, Any] = Field(default_factory=dict)


class BundleRun(RunRecordFields):
    """The run record as a bundle carries it (timestamps as recorded on the exporting machine); an
    imported id and topic are checked."""

    run_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    topic: str = Field(min_length=1)


class BundleDraft(BaseModel):
    version: int = Field(ge=1)
    created_at: float
    note: str = ""
    markdown: str


class RunBundle(BaseModel):
    """A run as one file: its record, event log, draft versions and the page text of its sources.

    `events` are Event dicts (validated against research.events.Event on import)."""

    format: Literal["research-desk-run"]
    version: int = Field(ge=1)
    exported_at: float
    run: BundleRun
    events: list[dict[str, Any]] = Field(default_factory=list)
    drafts: list[BundleDraft] = Field(default_factory=list)
    source_texts: dict[str, str] = Field(default_factory=dict)
