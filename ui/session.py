"""Per-session state: which run this browser tab is looking at, and its folded view.

The run id lives in the URL (`?run=<id>`) so a refresh re-attaches, and in session state so
switching pages and coming back (which drops the query string) re-attaches too. Views are folded
incrementally from the run store and kept per session: two tabs never share a mutable view.
"""

from __future__ import annotations

import streamlit as st

from research.api import RunStore, RunView, fold

RUN_PARAM = "run"
_RUN_KEY = "attached_run_id"
_VIEWS_KEY = "run_views"


def attached_run_id(store: RunStore) -> str | None:
    """The run this session shows: the URL's, else the one remembered for this session."""
    run_id = st.query_params.get(RUN_PARAM) or st.session_state.get(_RUN_KEY)
    if not run_id or store.get_run(run_id) is None:
        if run_id:
            st.query_params.pop(RUN_PARAM, None)
        st.session_state.pop(_RUN_KEY, None)
        return None
    attach(run_id)
    return run_id


def attach(run_id: str) -> None:
    st.session_state[_RUN_KEY] = run_id
    if st.query_params.get(RUN_PARAM) != run_id:
        st.query_params[RUN_PARAM] = run_id


def attached_id() -> str | None:
    return st.session_state.get(_RUN_KEY)


def detach() -> None:
    st.session_state.pop(_RUN_KEY, None)
    st.query_params.pop(RUN_PARAM, None)


def current_view(store: RunStore, run_id: str) -> RunView:
    """The run's view, folded forward with only the events stored since the last call."""
    views: dict[str, RunView] = st.session_state.setdefault(_VIEWS_KEY, {})
    view = views.get(run_id)
    if view is None:
        view = views[run_id] = RunView(run_id=run_id)
    events = store.events(run_id, after_seq=view.last_seq)
    if view.superseded_by(events):  # a resumed step ran again: fold its log afresh, without the first try
        view = views[run_id] = fold(store.events(run_id), RunView(run_id=run_id))
    else:
        fold(events, view)
    return view


def forget_view(run_id: str) -> None:
    st.session_state.get(_VIEWS_KEY, {}).pop(run_id, None)
