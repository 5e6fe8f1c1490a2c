"""What a bundle's fields must be before anything of it is written: every value a reader of the store
relies on (the status enum, gapless sequence numbers, timestamps a calendar can show, known event
types), so an imported run can never make `runs`, History or Compare fail for every run.
"""

from __future__ import annotations

import math

from research.events.status import RunStatus
from research.events.stream import EVENT_TYPES

# 1970 to 2100: wide enough for any clock, narrow enough that datetime, BibTeX and JSON can show it.
MIN_TIMESTAMP = 0.0
MAX_TIMESTAMP = 4_102_444_800.0
MAX_SOURCE_COUNT = 1_000_000


class BundleFieldError(ValueError):
    """A field outside what this version stores; the message says which and why."""


def check_timestamp(value: float | None, where: str) -> None:
    if value is None:
        return
    if not math.isfinite(value) or not MIN_TIMESTAMP <= value <= MAX_TIMESTAMP:
        raise BundleFieldError(f"{where}: timestamp {value!r:.40} is not a date between 1970 and 2100")


def check_status(value: str) -> RunStatus:
    try:
        return RunStatus(value)
    except ValueError:
        known = ", ".join(s.value for s in RunStatus)
        raise BundleFieldError(f"run.status: {value!r:.40} is not a run status ({known})") from None


def check_event_type(value: object, index: int) -> None:
    if not isinstance(value, str) or value not in EVENT_TYPES:  # a list or dict is not hashable
        raise BundleFieldError(
            f"events.{index}.type: {str(value)!r:.60} is not an event type this version knows"
            " (a bundle from a newer Research Desk?)"
        )


def check_increasing(seq: int, index: int, previous: int | None) -> None:
    if previous is not None and seq <= previous:
        raise BundleFieldError(f"event sequence numbers are not increasing at {seq!r:.30} (events.{index}.seq)")


def check_numbering(seqs: list[int]) -> None:
    """Strictly increasing sequence numbers must run 1..N: a log that does not is edited or cut,
    and a huge number would overflow the store's integer column (and the importer's closing event)."""
    if seqs and (seqs[0] != 1 or seqs[-1] != len(seqs)):
        raise BundleFieldError(
            f"event sequence numbers run {seqs[0]!r:.30}..{seqs[-1]!r:.30}, not 1..{len(seqs)} (one per event, no gaps)"
        )


def check_count(value: int, where: str) -> None:
    if not 0 <= value <= MAX_SOURCE_COUNT:
        raise BundleFieldError(f"{where}: {value!r:.30} is out of range (0-{MAX_SOURCE_COUNT:,})")
