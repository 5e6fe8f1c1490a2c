""" "Draft": the rendered markdown, its versions (list and restore), citation check and download."""

from __future__ import annotations

import streamlit as st

from research.api import DraftVersion, RunStore, RunView
from ui import auth
from ui.panels import claims, draft_editor, warnings
from ui.text import download_markdown, draft_markdown, md_escape, plural, safe_filename, when


def versions_of(store: RunStore, view: RunView) -> list[DraftVersion]:
    """Stored versions, oldest first; a draft the store lacks is shown as an unsaved version 0."""
    versions = store.draft_versions(view.run_id)
    if not versions and view.draft:
        versions = [DraftVersion(view.run_id, 0, view.finished_ts or 0.0, "Writer's draft", view.draft)]
    return versions


def _label(version: DraftVersion) -> str:
    return f"v{version.version} · {version.note or 'Edited'} · {when(version.created_at)}"


def render(view: RunView, store: RunStore) -> None:
    st.subheader(":material/article: Draft", anchor=False)
    warnings.render_inline(view, "writer")
    versions = versions_of(store, view)
    if not versions:
        if not render_preview(view):
            st.caption("The writer's cited draft appears here when the research is done.")
        return
    latest = versions[-1]
    by_number = {v.version: v for v in versions}
    pick_col, edit_col, download_col = st.columns([3, 1.2, 1.4], vertical_alignment="bottom")
    with pick_col:
        number = st.selectbox(  # keyed by the latest version: a new save selects the new version
            "Version",
            [v.version for v in reversed(versions)],
            key=f"draft-version-{view.run_id}-{latest.version}",
            format_func=lambda n: _label(by_number[n]),
        )
    shown = by_number.get(number, latest)
    may_edit = auth.may_change_things()  # a desk with a login: only a signed-in user saves versions
    with edit_col:
        editing = (
            st.toggle(
                "Edit draft",
                key=f"draft-edit-{view.run_id}",
                on_change=draft_editor.start_editing,
                args=(view.run_id, latest.markdown),
                disabled=not may_edit,
                help=None if may_edit else "Sign in to edit the draft.",
            )
            and may_edit
        )  # a toggle replayed on, disabled or not, edits nothing
    download_col.download_button(
        f"Download v{shown.version}",
        download_markdown(shown.markdown).encode("utf-8"),  # never the stored text raw
        file_name=safe_filename(view.topic, f"-v{shown.version}.md"),
        mime="text/markdown",
        icon=":material/download:",
        key=f"draft-md-{view.run_id}",
    )
    if editing:
        draft_editor.render(view, store, latest)
        return
    if shown is not latest:
        st.info(
            f"Showing an older version (v{shown.version}); the latest is v{latest.version}.",
            icon=":material/history:",
        )
        st.button(
            f"Restore v{shown.version}",
            key=f"draft-restore-{view.run_id}",
            icon=":material/restore:",
            on_click=draft_editor.restore,
            args=(store, view.run_id, shown),
            disabled=not may_edit,
        )
    draft_editor.show_citation_check(shown.markdown, view, edited=shown.version > 1)
    words = f" · {view.draft_words:,} words in the writer's draft" if view.draft_words is not None else ""
    st.caption(f"Report shape: {md_escape(view.report_shape.label)}{words}", help=view.length_note or None)
    with st.container(border=True, key=f"draft-body-{view.run_id}"):
        st.markdown(draft_markdown(shown.markdown))
    claims.render(view, shown.version)
    if view.known_gaps and shown.version <= 1:
        st.caption("Known gaps: " + "; ".join(md_escape(g) for g in view.known_gaps))


def render_preview(view: RunView) -> bool:
    """The draft as the writer streams it; False when there is nothing to show yet."""
    tokens = view.model_progress.get("writer")
    if not view.draft_preview and tokens is None:
        return False
    st.caption(
        f":material/edit_note: The writer is writing… {plural(tokens or 0, 'token')} so far; "
        "links and citations are checked when it ends."
    )
    with st.container(border=True, key=f"draft-preview-{view.run_id}"):
        # Unchecked model text: shown literally (no links, images or HTML) until the guard has run.
        lines = [md_escape(line) for line in view.draft_preview.splitlines() if line.strip()]
        st.markdown("  \n".join(lines) if lines else ":gray[…]")  # one escaped line per line written
    return True
