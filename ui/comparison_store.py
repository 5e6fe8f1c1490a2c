"""Saved comparisons: which runs were compared, kept in `<data dir>/comparisons.json`.

A comparison is only a named set of run ids: everything shown is read from the run store again
when it is opened, so it stays true to the runs (a deleted run is reported as missing). A JSON
file beside the run store keeps this dashboard feature out of the engine's schema; writes go
through a temporary file and an atomic rename, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

FILE_NAME = "comparisons.json"
MIN_RUNS, MAX_RUNS = 2, 4
_LOCK = threading.Lock()  # one process may serve several sessions


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
    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / FILE_NAME

    def _read(self) -> list[Comparison]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError):
            return []  # an unreadable file must not take the page down; the next save rewrites it
        out = []
        for item in raw.get("comparisons", []) if isinstance(raw, dict) else []:
            try:
                out.append(Comparison(
                    id=str(item["id"]), title=str(item.get("title", "")), run_ids=[str(r) for r in item["run_ids"]],
                    created_at=float(item.get("created_at") or 0.0),
                    allocations=[str(a) for a in item.get("allocations") or []],
                ))
            except (KeyError, TypeError, ValueError):
                continue
        return out

    def _write(self, comparisons: list[Comparison]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{uuid.uuid4().hex[:6]}.tmp")
        tmp.write_text(json.dumps({"comparisons": [asdict(c) for c in comparisons]}, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)

    def save(self, title: str, run_ids: list[str], allocations: list[str] | None = None) -> Comparison:
        unique = list(dict.fromkeys(run_ids))
        if not MIN_RUNS <= len(unique) <= MAX_RUNS:
            raise ComparisonError(f"A comparison needs {MIN_RUNS}-{MAX_RUNS} different runs, got {len(unique)}.")
        comparison = Comparison(id=uuid.uuid4().hex[:10], title=title, run_ids=unique, allocations=allocations or [])
        with _LOCK:
            self._write([*self._read(), comparison])
        return comparison

    def get(self, comparison_id: str) -> Comparison | None:
        return next((c for c in self._read() if c.id == comparison_id), None)

    def newest_first(self) -> list[Comparison]:
        """Newest first."""
        return sorted(self._read(), key=lambda c: c.created_at, reverse=True)

    def delete(self, comparison_id: str) -> None:
        with _LOCK:
            self._write([c for c in self._read() if c.id != comparison_id])
