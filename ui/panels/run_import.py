"""Import a run file (written by "Download run file" or `python -m research bundle`): the run joins
History and can be replayed, revised, exported and compared here - no key, no network."""

from __future__ import annotations

import streamlit as st

from research.api import BUNDLE_EXTENSION, BundleError, RunStore, import_bundle, read_bundle
from ui import auth, session
from ui.text import md_escape


def _import(store: RunStore) -> None:
    """Button callback: the History table drawn after it already lists the imported run."""
    if not auth.may_change_things():
        return
    upload = st.session_state.get("run-import-file")
    if upload is None:
        st.session_state["run-import-outcome"] = ("error", "Choose a run file first.")
        return
    data = upload.getvalue()
    try:
        bundle = read_bundle(data)
        existing = store.get_run(bundle.run.run_id)
        if existing is not None:
            st.session_state["run-import-outcome"] = (
                "info",
                f"This run is already here: {existing.topic} (run {existing.run_id}).",
            )
            return
        run_id = import_bundle(store, bundle)
    except BundleError as exc:
        st.session_state["run-import-outcome"] = ("error", f"{upload.name} was not imported: {exc}")
        return
    session.forget_view(run_id)
    st.session_state["run-import-outcome"] = ("success", f"Imported {bundle.run.topic} (run {run_id}).")


def render(store: RunStore) -> None:
    if not auth.require_user("import run files"):
        return
    st.file_uploader(
        "Run file",
        key="run-import-file",
        help=f"A .{BUNDLE_EXTENSION} file from another Research Desk.",
    )
    st.button("Import run", icon=":material/upload:", type="primary", on_click=_import, args=(store,))
    outcome = st.session_state.pop("run-import-outcome", None)
    if outcome:
        kind, message = outcome
        show = {"error": st.error, "info": st.info, "success": st.success}[kind]
        show(
            md_escape(message),
            icon={"error": ":material/block:", "info": ":material/info:", "success": ":material/check_circle:"}[kind],
        )
