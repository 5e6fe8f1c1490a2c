"""Which saved comparison this browser tab shows: `?comparison=<id>` in the URL (a refresh reopens
it) and in session state (a visit to another page and back reopens it too)."""

from __future__ import annotations

import streamlit as st

from ui.comparison_store import Comparison, ComparisonStore

PARAM = "comparison"
_KEY = "attached_comparison_id"


def attached(store: ComparisonStore) -> Comparison | None:
    comparison_id = st.query_params.get(PARAM) or st.session_state.get(_KEY)
    comparison = store.get(comparison_id) if comparison_id else None
    if comparison is None:
        if comparison_id:
            st.query_params.pop(PARAM, None)
        st.session_state.pop(_KEY, None)
        return None
    attach(comparison.id)
    return comparison


def attach(comparison_id: str) -> None:
    st.session_state[_KEY] = comparison_id
    if st.query_params.get(PARAM) != comparison_id:
        st.query_params[PARAM] = comparison_id


def detach() -> None:
    st.session_state.pop(_KEY, None)
    st.query_params.pop(PARAM, None)


def attached_id() -> str | None:
    return st.session_state.get(_KEY)
