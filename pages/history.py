"""History: past runs (open one to see its panels as they ended, delete it, import a run file) and
saved comparisons (reopen one on the Compare page)."""

import pandas as pd
import streamlit as st

from research.api import RunControl, RunRecord, delete_run_everywhere, fold
from ui import auth, compare_session, session
from ui.app_entry import ensure_app_entry
from ui.comparison_store import Comparison, ComparisonStore
from ui.navigation import AppPage, page
from ui.panels import run_import
from ui.resources import get_manager, load_settings
from ui.run_view import show_run
from ui.text import ORIGIN_SHORT, duration, when

ensure_app_entry()  # first: a page must never draw outside the app (see ui/app_entry.py)

settings = load_settings()
manager = get_manager(settings)
store = manager.store
comparisons = ComparisonStore(manager.store)


def picked_id(rows: list[dict[str, object]], *, key: str, id_column: str) -> str | None:
    """A table of `rows` (its Topic column wide) where one row can be picked: the picked row's
    `id_column`, or None."""
    frame = pd.DataFrame(rows)
    picked = st.dataframe(
        frame,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key=key,
        column_config={"Topic": st.column_config.TextColumn(width="large")},
    )
    selected = picked.selection.rows if picked else []
    return str(frame.iloc[selected[0]][id_column]) if selected else None


def _run_row(manager: RunControl, r: RunRecord) -> dict[str, object]:
    return {
        "Topic": r.topic,
        "Allocation": r.allocation or r.requested_allocation or "model",
        "Origin": ORIGIN_SHORT.get(r.allocation_origin or "", r.allocation_origin or "–"),
        "Status": manager.display_status(r).value,
        "Sources": r.source_count,
        "Duration": duration(r.seconds),
        "Date": when(r.created_at),
        "Run": r.run_id,
    }


def _comparison_row(c: Comparison, runs: str) -> dict[str, object]:
    return {"Topic": c.title, "Runs": runs, "Count": len(c.run_ids), "Saved": when(c.created_at), "Comparison": c.id}


def runs_tab(manager: RunControl) -> None:
    records = store.list_runs()
    note_col, import_col = st.columns([5, 1.4], vertical_alignment="center")
    with import_col.popover("Import a run file", icon=":material/upload_file:", width="stretch"):
        run_import.render(store)
    if not records:
        note_col.info("No runs yet. Start one on the Research page.", icon=":material/info:")
        return
    note_col.caption("Select a run to see all its panels as they ended.")
    run_id = picked_id([_run_row(manager, r) for r in records], key="history-table", id_column="Run")
    if run_id is None:
        return
    open_col, delete_col, _ = st.columns([1.3, 1, 4])
    if open_col.button(
        "Open on Research page", icon=":material/open_in_new:", help="Replay, revise and export it there."
    ):
        session.attach(run_id)
        st.switch_page(page(AppPage.RESEARCH), query_params={session.RUN_PARAM: run_id})
    with delete_col.popover("Delete run", icon=":material/delete:", disabled=manager.is_live(run_id)):
        st.write("Delete this run, its events and all draft versions? This cannot be undone.")
        owner = fold(store.events(run_id)).started_by
        if not auth.require_user("delete runs"):
            pass
        elif not auth.may_delete(owner, settings):
            st.info("Only the run's owner (who started it) or an admin may delete it.", icon=":material/lock:")
        elif st.button("Delete permanently", type="primary", key="history-delete"):
            delete_run_everywhere(store, settings, run_id)  # checkpoints and stored texts too
            session.forget_view(run_id)
            if session.attached_id() == run_id:
                session.detach()
            st.rerun()
    st.divider()
    show_run(manager, run_id)


def comparisons_tab() -> None:
    saved = comparisons.newest_first()
    if not saved:
        st.info("No comparisons yet. Run or pick some on the Compare page.", icon=":material/info:")
        return
    labels = {}
    for c in saved:
        records = [store.get_run(rid) for rid in c.run_ids]
        labels[c.id] = " vs ".join(
            (r.allocation or r.requested_allocation or "model") if r else "deleted" for r in records
        )
    st.caption("Select a comparison to open it on the Compare page.")
    rows = [_comparison_row(c, labels[c.id]) for c in saved]
    comparison_id = picked_id(rows, key="history-comparisons", id_column="Comparison")
    if comparison_id is not None and st.button(
        "Open on Compare page", icon=":material/compare_arrows:", type="primary"
    ):
        compare_session.attach(comparison_id)
        st.switch_page(page(AppPage.COMPARE), query_params={compare_session.PARAM: comparison_id})


st.title(":material/history: History", anchor=False)
saved_count = len(comparisons.newest_first())
runs, compared = st.tabs([":material/list: Runs", f":material/compare_arrows: Comparisons ({saved_count})"])
with runs:
    runs_tab(manager)
with compared:
    comparisons_tab()
