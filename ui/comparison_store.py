"""Saved comparisons: which runs were compared, kept in the run store's `comparisons` table.

A comparison is only a named set of run ids: everything shown is read from the run store again
when it is opened, so it stays true to the runs (a deleted run is reported as missing). Living in the
run store, comparisons are shared by every dashboard replica when the store is Postgres
(RESEARCH_DATABASE_URL). A `comparisons.json` left in the data dir by earlier versions is imported
once and renamed.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from research.api import ComparisonRecord, RunStore

LEGACY_FILE = "comparisons.json"
MIN_RUNS, MAX_RUNS = 2, 4
log = logging.getLogger("ui.comparison_store")


@dataclass
class Comparison:
    id: str
    title: str
    run_ids: list[str]
    created_at: float = field(default_factory=time.time)
    allocations: list[str] = field(default_factory=list)  # as requested, for runs started here


class ComparisonError(ValueError):
    """A comparison that breaks a rule (2-4 distinct runs)."""


class ComparisonStore:
    def __init__(self, store: RunStore | Path) -> None:
        """`store`: the run store (a data dir opens its SQLite run store)."""
        self.store = store if isinstance(store, RunStore) else RunStore(Path(store) / "runs.sqlite")
        if self.store.path is not None:
            _import_legacy_file(self.store, self.store.path.parent / LEGACY_FILE)

    def save(self, title: str, run_ids: list[str], allocations: list[str] | None = None) -> Comparison:
        unique = list(dict.fromkeys(run_ids))
        if not MIN_RUNS <= len(unique) <= MAX_RUNS:
            raise ComparisonError(f"A comparison needs {MIN_RUNS}-{MAX_RUNS} different runs, got {len(unique)}.")
        comparison = Comparison(id=uuid.uuid4().hex[:10], title=title, run_ids=unique, allocations=allocations or [])
        self.store.save_comparison(
            ComparisonRecord(
                comparison.id,
                comparison.title,
                comparison.run_ids,
                comparison.allocations,
                comparison.created_at,
            )
        )
        return comparison

    def get(self, comparison_id: str) -> Comparison | None:
        return next((c for c in self.newest_first() if c.id == comparison_id), None)

    def newest_first(self) -> list[Comparison]:
        return [Comparison(r.id, r.title, r.run_ids, r.created_at, r.allocations) for r in self.store.comparisons()]

    def delete(self, comparison_id: str) -> None:
        self.store.delete_comparison(comparison_id)


def _import_legacy_file(store: RunStore, path: Path) -> None:
    """Move comparisons from the old JSON file into the store, once (the file is renamed after)."""
    if not path.exists():
        return
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log.warning("Ignoring an unreadable %s", path)
        return
    known = {c.id for c in store.comparisons()}
    for item in raw.get("comparisons", []) if isinstance(raw, dict) else []:
        try:
            record = ComparisonRecord(
                id=str(item["id"]),
                title=str(item.get("title", "")),
                run_ids=[str(r) for r in item["run_ids"]],
                allocations=[str(a) for a in item.get("allocations") or []],
                created_at=float(item.get("created_at") or 0.0),
            )
        except (KeyError, TypeError, ValueError):
            continue
        if record.id not in known:
            store.save_comparison(record)
    os.replace(path, path.with_name(path.name + ".imported"))
