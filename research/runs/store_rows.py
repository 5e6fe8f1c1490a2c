"""Reading and writing the run store's rows: an event that does not read, a status outside the
enum, secrets masked value by value."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from research.events import EVENT_TYPES, Event
from research.events.status import RunStatus

if TYPE_CHECKING:
    import sqlite3


def read_event(row: sqlite3.Row | dict[str, Any]) -> Event:
    """A logged event; one this version cannot read (an unknown type from a newer version, a
    damaged body) stays in the log as it is and reads as a warning naming it, so the rest of its
    run stays readable."""
    try:
        return Event.model_validate_json(row["body"])
    except ValidationError as exc:
        kind = str(row["type"])[:60]
        why = "an unknown event type" if kind not in EVENT_TYPES else f"unreadable: {exc.errors()[0]['msg'][:120]}"
        ts = row["ts"] if isinstance(row["ts"], float) and math.isfinite(row["ts"]) else 0.0
        return Event(
            type="warning",
            run_id=row["run_id"],
            seq=row["seq"],
            ts=ts,
            data={"source": "run store", "message": f"event #{row['seq']} ({kind!r}) kept but not shown: {why}"},
        )


def read_status(value: str) -> RunStatus:
    """A stored status outside the enum (written before imports were checked) reads as failed, so
    the run is listed and can be deleted instead of breaking every list of runs."""
    try:
        return RunStatus(value)
    except ValueError:
        return RunStatus.FAILED


def mask_tree(value: Any, mask_text: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, list):
        return [mask_tree(v, mask_text) for v in value]
    if isinstance(value, dict):
        return {k: mask_tree(v, mask_text) for k, v in value.items()}
    return value
