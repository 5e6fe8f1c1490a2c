"""Editing the draft: the "Draft" text area, Save (each save is a new version), restore, and the
citation re-check that flags any [n] without an entry in the Sources list."""

from __future__ import annotations

import streamlit as st

from research.api import DraftVersion, RunStore, RunView, Source, check_citations
from ui import auth
from ui.text import md_escape


def _text_key(run_id: str) -> str:
    return f"draft-text-{run_id}"


def start_editing(run_id: str, markdown: str) -> None:
    """Toggle callback: entering edit mode starts from the latest version."""
    if st.session_state.get(f"draft-edit-{run_id}"):
        st.session_state[_text_key(run_id)] = markdown


def save(store: RunStore, run_id: str, latest: str) -> None:
    text = st.session_state.get(_text_key(run_id), "")
    if not auth.may_change_things():  # a replayed click from a visitor who is not signed in
        st.toast("Sign in to save draft versions.", icon=":material/lock:")
    elif not text.strip():
        st.toast("An empty draft was not saved.", icon=":material/error:")
    elif text == latest:
        st.toast("No changes to save.", icon=":material/info:")
    else:
        version = store.save_draft_version(run_id, text, note="Edited")
        st.toast(f"Saved as version {version}.", icon=":material/check_circle:")


def restore(store: RunStore, run_id: str, version: DraftVersion) -> None:
    if not auth.may_change_things():
        st.toast("Sign in to restore draft versions.", icon=":material/lock:")
        return
    number = store.save_draft_version(run_id, version.markdown, note=f"Restored v{version.version}")
    st.session_state[_text_key(run_id)] = version.markdown
    st.toast(f"Restored v{version.version} as version {number}.", icon=":material/restore:")


def citation_problems(markdown: str, view: RunView) -> list[str]:
    sources = [Source.model_validate(s) for s in view.sources.values()]
    check = check_citations(markdown, sources)
    problems = [f"[{n}] has no entry in the Sources list." for n in check.unresolved]
    problems += [f"{url} is not one of the retrieved sources." for url in check.unknown_urls]
    return problems


def show_citation_check(markdown: str, view: RunView, *, edited: bool) -> None:
    problems = citation_problems(markdown, view)
    if problems:
        st.warning(
            "**Citation check:** " + " ".join(md_escape(p) for p in problems),
            icon=":material/link_off:",
        )
    elif edited:
        st.caption(":material/task_alt: Citations re-checked: every [n] has a source.")


def render(view: RunView, store: RunStore, latest: DraftVersion) -> None:
    key = _text_key(view.run_id)
    st.session_state.setdefault(key, latest.markdown)
    st.text_area("Draft", key=key, height=480, help="Markdown. Cite sources as [n]; the Sources list is at the end.")
    show_citation_check(st.session_state[key], view, edited=True)
    st.button(
        "Save",
        type="primary",
        icon=":material/save:",
        key=f"draft-save-{view.run_id}",
        on_click=save,
        args=(store, view.run_id, latest.markdown),
    )
    st.caption("Every save is kept as a new version; older versions can be viewed and restored.")
