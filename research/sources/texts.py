"""Where the page text of a run's sources lives: outside graph state and checkpoints.

Nodes only need these two calls; the run store (SQLite or Postgres) implements them for in-process
runs, and a server deployment can implement them over its own store.
"""

from __future__ import annotations

from typing import Protocol


class SourceTextStore(Protocol):
    def put_texts(self, run_id: str, texts: dict[str, str]) -> None:
        """Keep the full text of sources by id (first text kept; empty texts ignored)."""
        ...

    def get_text(self, run_id: str, source_id: str) -> str:
        """The full text of a source ("" when unknown)."""
        ...
