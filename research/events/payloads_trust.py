"""Typed payloads of the events added for issue 11 (part B): why research stopped."""

from __future__ import annotations

from typing import Literal

from research.events.payload_base import Payload

StopReasonName = Literal["approved", "iteration_cap", "loop_guard", "budget", "no_verdict"]


class ResearchStoppedData(Payload):
    """`research_stopped`: after the analyst's last verdict, why no further round went out."""

    reason: StopReasonName
    message: str  # the round is the event's own `iteration`
