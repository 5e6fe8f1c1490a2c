"""Page text in a LangGraph store (BaseStore): where a server run keeps it (`runtime.store`, which
LangGraph Server backs with its own database), so nothing of it lands in the worker's local files."""

from __future__ import annotations

from langgraph.store.base import BaseStore

_NAMESPACE = "source_texts"


class LangGraphTextStore:
    """SourceTextStore over a BaseStore: one item per source, namespaced by run."""

    def __init__(self, store: BaseStore) -> None:
        self.store = store

    def put_texts(self, run_id: str, texts: dict[str, str]) -> None:
        namespace = (_NAMESPACE, run_id)
        for source_id, text in texts.items():
            if text and self.store.get(namespace, source_id) is None:  # first text kept, as locally
                self.store.put(namespace, source_id, {"text": text}, index=False)

    def get_text(self, run_id: str, source_id: str) -> str:
        item = self.store.get((_NAMESPACE, run_id), source_id)
        return str((item.value or {}).get("text", "")) if item else ""
