"""Search within a run's sources: a box over the Sources table that finds words in the titles,
snippets and stored page text (research/text/find.py: linear time, bounded), narrows the table to
the sources that hold them, and shows each match's passage with the words highlighted.

Passages are a source's words: every piece goes through md_escape, so nothing in them becomes HTML,
a link or markup; only the highlight around a matched piece is the desk's own. A claim in the claim
check links here ("Find in sources"): it fills the box with the claim's passage and puts its source first.
"""

from __future__ import annotations

import streamlit as st

from research.api import PassageHit, RunStore, RunView, search_run_sources
from ui.text import md_escape

MAX_SHOWN = 8
QUERY_WORDS = 10  # of a claim's passage, when a claim links here
FIELD_LABELS = {"title": "title", "snippet": "snippet", "text": "page text"}


def query_key(run_id: str) -> str:
    return f"source-search-{run_id}"


def focus_key(run_id: str) -> str:
    return f"source-search-focus-{run_id}"


def show_passage(run_id: str, source_id: str, passage: str) -> None:
    """Button callback (the claim check): search for this passage, its source first."""
    st.session_state[query_key(run_id)] = " ".join(passage.split()[:QUERY_WORDS])
    st.session_state[focus_key(run_id)] = source_id
    st.toast("The passage is shown in the Sources search, above.", icon=":material/manage_search:")


def highlighted(hit: PassageHit) -> str:
    """The passage as inert markdown, matched pieces highlighted."""
    out = []
    for piece in hit.pieces:
        text = _escaped(piece.text)
        out.append(f":orange-background[**{text.strip()}**]" if piece.hit and text.strip() else text)
    return "".join(out)


def _escaped(text: str) -> str:
    """md_escape, keeping the spaces at either end (pieces are joined as they stood)."""
    if not text.strip():
        return " " if text else ""
    return (" " if text[0].isspace() else "") + md_escape(text) + (" " if text[-1].isspace() else "")


def render(view: RunView, store: RunStore | None) -> set[str] | None:
    """The box and its matches; the ids of the matching sources, or None when nothing is searched."""
    if store is None or not view.sources:
        return None
    query = st.text_input(
        "Search within this run's sources",
        key=query_key(view.run_id),
        max_chars=200,
        placeholder="words in the titles, snippets or page text",
        icon=":material/search:",
    )
    if not query.strip():
        st.session_state.pop(focus_key(view.run_id), None)
        return None
    hits = search_run_sources(store, view, query)
    focus = st.session_state.get(focus_key(view.run_id))
    hits.sort(key=lambda h: h.source_id != focus)  # stable: the linked claim's source first
    with st.container(key=f"source-search-hits-{view.run_id}"):
        if not hits:
            st.caption(f"No source of this run holds every word of “{md_escape(query)}”.")
            return set()
        st.caption(f"**{len(hits)}** of {len(view.sources)} sources hold every word; the table shows only those.")
        for hit in hits[:MAX_SHOWN]:
            where = FIELD_LABELS[hit.field]
            st.markdown(
                f"**{md_escape(hit.title) or md_escape(hit.source_id)}** · :gray[{where} · {hit.hits} matches]  \n"
                + highlighted(hit)
            )
        if len(hits) > MAX_SHOWN:
            st.caption(f"and {len(hits) - MAX_SHOWN} more in the table below.")
    return {h.source_id for h in hits}
