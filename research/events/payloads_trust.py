"""Typed payloads of the events added for issue 11 (part B): why research stopped."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

StopReasonName = Literal["approved", "iteration_cap", "loop_guard", "budget", "no_verdict"]


class ResearchStoppedData(BaseModel):
    """`research_stopped`: after the analyst's last verdict, why no further round went out."""

    reason: StopReasonName
    message: str
    iteration: int = 0
