"""History: past runs; open one to see its panels as they ended (and its latest draft); delete."""

import pandas as pd
import streamlit as st

from ui import session
from ui.resources import get_manager, load_settings
from ui.run_view import show_run
from ui.text import duration, when

manager = get_manager(load_settings())
store = manager.store

st.title(":material/history: History", anchor=False)
records = store.list_runs()
if not records:
    st.info("No runs yet. Start one on the Research page.", icon=":material/info:")
    st.stop()

frame = pd.DataFrame([
    {
        "Topic": r.topic,
        "Allocation": r.allocation or r.requested_allocation or "model",
        "Origin": {"llm": "model"}.get(r.allocation_origin or "", r.allocation_origin or "–"),
        "Status": "interrupted" if manager.is_orphaned(r.run_id) else r.status,
        "Sources": r.source_count,
        "Duration": duration(r.seconds),
        "Date": when(r.created_at),
        "Run": r.run_id,
    }
    for r in records
])
st.caption("Select a run to see all its panels as they ended.")
picked = st.dataframe(
    frame, hide_index=True, on_select="rerun", selection_mode="single-row", key="history-table",
    column_config={"Topic": st.column_config.TextColumn(width="large")},
)
rows = picked.selection.rows if picked else []
if not rows:
    st.stop()

run_id = frame.iloc[rows[0]]["Run"]
open_col, delete_col, _ = st.columns([1.3, 1, 4])
if open_col.button("Open on Research page", icon=":material/open_in_new:"):
    session.attach(run_id)
    st.switch_page("pages/research.py", query_params={session.RUN_PARAM: run_id})
with delete_col.popover("Delete run", icon=":material/delete:", disabled=manager.is_active(run_id)):
    st.write("Delete this run, its events and all draft versions? This cannot be undone.")
    if st.button("Delete permanently", type="primary", key="history-delete"):
        store.delete_run(run_id)
        session.forget_view(run_id)
        if session.attached_id() == run_id:
            session.detach()
        st.rerun()
st.divider()
show_run(manager, run_id)
