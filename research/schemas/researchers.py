"""Researcher kinds and how many of each a run sends (its allocation)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ResearcherKind = Literal["web", "academic", "book"]
RESEARCHER_KINDS: tuple[ResearcherKind, ...] = ("web", "academic", "book")
# user: set by the user; llm: the model chose it; offline: the offline classifier chose it (also when
# the model's plan step fell back to the offline brain); default: the balanced 111.
AllocationOrigin = Literal["user", "llm", "offline", "default"]
# How a researcher's branch ended: done (sources kept), empty (it searched and nothing it found was
# relevant: an honest answer, not a fault) or failed (an error stopped it).
ResearcherOutcome = Literal["done", "empty", "failed"]

MAX_PER_KIND = 3


class ResearcherAllocation(BaseModel):
    """How many researchers of each kind a run sends ("210" = 2 web, 1 academic, 0 book)."""

    model_config = ConfigDict(frozen=True)

    web: int = Field(0, ge=0, le=MAX_PER_KIND)
    academic: int = Field(0, ge=0, le=MAX_PER_KIND)
    book: int = Field(0, ge=0, le=MAX_PER_KIND)

    @property
    def total(self) -> int:
        return self.web + self.academic + self.book

    @property
    def notation(self) -> str:
        return f"{self.web}{self.academic}{self.book}"

    def count(self, kind: ResearcherKind) -> int:
        return int(getattr(self, kind))

    def __str__(self) -> str:
        return self.notation


class ResolvedAllocation(BaseModel):
    """The allocation a run uses, where it came from and why."""

    allocation: ResearcherAllocation
    origin: AllocationOrigin
    reasoning: str = ""
