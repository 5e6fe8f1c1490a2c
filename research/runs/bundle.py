"""A run as one file, to move it between machines: its record, event log, draft versions and the
page text of its sources (gzip-compressed JSON, schema `RunBundle` in research/schemas/bundle_format.py).

    data = export_bundle(store, run_id)                 # bytes: write them anywhere
    run_id = import_bundle(other_store, data)           # same id; new_id=True for a fresh one

An imported run replays exactly as it ran (its events keep their original timestamps) and can be
exported, revised and compared; it cannot be resumed, since checkpoints stay on the machine that
ran it. Anything that is not a bundle this version understands is refused with a BundleError
whose message says what is wrong.
"""

from __future__ import annotations

import gzip
import json
import time
import uuid

from pydantic import ValidationError

from research.events import Event
from research.events.payloads import PAYLOADS
from research.events.status import RunStatus
from research.runs import bundle_checks as checks
from research.runs.bundle_decode import MAX_BUNDLE_BYTES, BundleDecodeError, decode_bundle_json
from research.runs.sql import DuplicateKeyError
from research.runs.store import RunRecord, RunStore
from research.runs.view import fold
from research.schemas.bundle_format import BUNDLE_FORMAT, BUNDLE_VERSION, BundleDraft, BundleRun, RunBundle

BUNDLE_EXTENSION = "rdrun.json.gz"
MAX_BUNDLE_EVENTS = 200_000
__all__ = ["MAX_BUNDLE_BYTES", "BundleError", "export_bundle", "import_bundle", "read_bundle"]
_UNFINISHED = {
    RunStatus.RUNNING,
    RunStatus.PAUSED,
    RunStatus.PENDING,
}  # no checkpoint travels with a bundle: these cannot continue


class BundleError(ValueError):
    """Not a bundle this version can import (malformed, foreign, newer) or an id clash."""


def build_bundle(store: RunStore, run_id: str) -> RunBundle:
    record = store.get_run(run_id)
    if record is None:
        raise KeyError(f"No run with id {run_id!r}")
    events = store.events(run_id)
    view = fold(events)
    texts = {sid: text for sid in view.sources if (text := store.get_text(run_id, sid))}
    return RunBundle(
        format=BUNDLE_FORMAT,
        version=BUNDLE_VERSION,
        exported_at=time.time(),
        run=BundleRun.model_validate(record.model_dump()),
        events=[e.model_dump(mode="json") for e in events],
        drafts=[
            BundleDraft(version=d.version, created_at=d.created_at, note=d.note, markdown=d.markdown)
            for d in store.draft_versions(run_id)
        ],
        source_texts=texts,
    )


def export_bundle(store: RunStore, run_id: str) -> bytes:
    """The run as gzip-compressed JSON. Raises KeyError when the store has no such run."""
    payload = build_bundle(store, run_id).model_dump_json().encode("utf-8")
    return gzip.compress(payload, compresslevel=6, mtime=0)


def read_bundle(data: bytes) -> RunBundle:
    """Parse and validate a bundle (gzip or plain JSON) within the decoder's limits, every event's
    data included, so nothing is written for a bundle that would fail later. Raises BundleError
    saying what is wrong."""
    try:
        document = decode_bundle_json(data)
    except BundleDecodeError as exc:
        raise BundleError(f"not a Research Desk run bundle: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != BUNDLE_FORMAT:
        raise BundleError(f'not a Research Desk run bundle: no "format": "{BUNDLE_FORMAT}" marker')
    version = document.get("version")
    if type(version) is not int or version < 1:  # "99" (a string) is not a version
        raise BundleError(
            f"malformed run bundle: version must be a whole number from 1 to {BUNDLE_VERSION}, not {version!r:.40}"
        )
    if version > BUNDLE_VERSION:
        raise BundleError(
            f"bundle format version {version} is newer than this Research Desk supports ({BUNDLE_VERSION})"
        )
    events = document.get("events")
    if isinstance(events, list) and len(events) > MAX_BUNDLE_EVENTS:
        raise BundleError(f"malformed run bundle: more than {MAX_BUNDLE_EVENTS:,} events")
    try:
        bundle = RunBundle.model_validate(document)
    except ValidationError as exc:
        raise _malformed(exc) from None
    _check_events(bundle)
    return bundle


def _check_fields(bundle: RunBundle) -> RunStatus:
    """The run record's and drafts' fields in range; returns the run's status."""
    run = bundle.run
    try:
        status = checks.check_status(run.status)
        checks.check_timestamp(bundle.exported_at, "exported_at")
        checks.check_timestamp(run.created_at, "run.created_at")
        checks.check_timestamp(run.finished_at, "run.finished_at")
        checks.check_count(run.source_count, "run.source_count")
        for i, draft in enumerate(bundle.drafts):
            checks.check_timestamp(draft.created_at, f"drafts.{i}.created_at")
    except checks.BundleFieldError as exc:
        raise BundleError(f"malformed run bundle: {exc}") from None
    return status


def _malformed(exc: ValidationError, within: str = "") -> BundleError:
    """The first validation error, said with where it is in the bundle (`within` leads the path)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return BundleError(f"malformed run bundle: {within}{where}: {first['msg']}")


def _check_events(bundle: RunBundle) -> list[Event]:
    _check_fields(bundle)
    events: list[Event] = []
    for i, raw in enumerate(bundle.events):
        try:
            checks.check_event_type(raw.get("type"), i)
        except checks.BundleFieldError as exc:
            raise BundleError(f"malformed run bundle: {exc}") from None
        try:
            # The type's payload model, strictly (no "1" for 1): what every reader of the log relies on.
            if raw.get("type") in PAYLOADS:
                PAYLOADS[raw["type"]].model_validate_json(json.dumps(raw.get("data") or {}), strict=True)
        except ValidationError as exc:
            raise _malformed(exc, f"events.{i} ({raw.get('type')}).data.") from None
        try:
            event = Event.model_validate(raw)
        except ValidationError as exc:
            raise _malformed(exc, f"events.{i}.") from None
        if event.run_id != bundle.run.run_id:
            raise BundleError(
                f"malformed run bundle: event {event.seq} belongs to run {event.run_id!r}, not {bundle.run.run_id!r}"
            )
        try:
            checks.check_increasing(event.seq, i, events[-1].seq if events else None)
            checks.check_timestamp(event.ts, f"events.{i}.ts")
        except checks.BundleFieldError as exc:
            raise BundleError(f"malformed run bundle: {exc}") from None
        events.append(event)
    try:
        checks.check_numbering([e.seq for e in events])
    except checks.BundleFieldError as exc:
        raise BundleError(f"malformed run bundle: {exc}") from None
    return events


def import_bundle(store: RunStore, data: bytes | RunBundle, *, new_id: bool = False, run_id: str | None = None) -> str:
    """Store a bundled run; returns its id here. By default the original id is kept, and a clash
    with an existing run is refused; `new_id` (or an explicit `run_id`) imports it under another.
    `data` is the file's bytes or the RunBundle read_bundle already returned (one parse per import)."""
    bundle = data if isinstance(data, RunBundle) else read_bundle(data)
    events = _check_events(bundle)
    target = run_id or (uuid.uuid4().hex[:12] if new_id else bundle.run.run_id)
    if store.get_run(target) is not None:
        raise BundleError(f"a run with id {target} already exists here; import it with a new id")
    run = bundle.run
    status = _check_fields(bundle)
    events = [e.model_copy(update={"run_id": target}) for e in events]
    if not fold(events).done:
        # Nothing can continue it here (no checkpoint travels): end it in the log, or every page
        # that folds the events would show it running forever.
        last = events[-1] if events else None
        events.append(
            Event(
                type="run_cancelled",
                run_id=target,
                seq=len(events) + 1,
                ts=last.ts if last else time.time(),
                data={
                    "reason": "imported unfinished: it was still running where it was exported and cannot continue here"
                },
            )
        )
    now = time.time()  # the store stamps creation with the import time; the run's duration is kept
    record = RunRecord(
        run_id=target,
        topic=run.topic,
        status=RunStatus.INTERRUPTED if status in _UNFINISHED else status,
        created_at=now,
        requested_allocation=run.requested_allocation,
        allocation=run.allocation,
        allocation_origin=run.allocation_origin,
        brain=run.brain or "",
        finished_at=None if run.finished_at is None else now + max(0.0, run.finished_at - run.created_at),
        source_count=run.source_count,
        error=run.error,
        summary=run.summary,
    )
    drafts = [(d.markdown, d.note) for d in sorted(bundle.drafts, key=lambda d: d.version)]
    try:
        store.import_run(record, events, drafts, bundle.source_texts)
    except DuplicateKeyError:  # another import of the same id got there first
        raise BundleError(f"a run with id {target} already exists here; import it with a new id") from None
    return target
