"""Search within one run's sources (the dashboard's box over the Sources table): titles, snippets
and the page text the run stored, through research/text/find.py (linear time, bounded)."""

from __future__ import annotations

from research.runs.store import RunStore
from research.runs.view import RunView
from research.text.find import MAX_HITS, Document, PassageHit, find_in_sources


def search_run_sources(store: RunStore, view: RunView, query: str, *, limit: int = MAX_HITS) -> list[PassageHit]:
    documents = (
        Document(source_id, source.title, source.snippet, _text(store, view.run_id, source_id))
        for source_id, source in view.sources.items()
    )
    return find_in_sources(query, documents, limit=limit)


def _text(store: RunStore, run_id: str, source_id: str) -> str:
    try:
        return store.get_text(run_id, source_id)
    except Exception:  # noqa: BLE001 - an unreadable stored text leaves the title and snippet searchable
        return ""
