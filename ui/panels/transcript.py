"""The collapsible "Transcript": supervisor directives and each worker's closing message."""

from __future__ import annotations

import streamlit as st

from research.api import RunView
from ui.text import kind_icon, md_escape, plural

_AVATARS = {
    "supervisor": ":material/account_tree:", "analyst": ":material/fact_check:", "writer": ":material/edit_note:",
}


def avatar(name: str) -> str:
    lowered = name.lower()
    return _AVATARS.get(lowered) or kind_icon(lowered.split("-")[0])


def escaped_block(text: str) -> str:
    """Multi-line outside text as safe markdown: "- " lines stay a list, other lines paragraphs."""
    out: list[str] = []
    for line in (text or "").splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("- ", "* ")):
            out.append(f"- {md_escape(stripped[2:])}")
        else:
            out += ["", md_escape(stripped), ""]
    return "\n".join(out).strip()


def render(view: RunView) -> None:
    # A fixed label: a label that changed with every message would re-create (and collapse) it mid-run.
    with st.expander("Transcript", icon=":material/forum:"):
        st.caption(f"{plural(len(view.messages), 'message')}: supervisor directives and each worker's closing note.")
        for message in view.messages:
            name = message.get("name") or "system"
            with st.chat_message(name, avatar=avatar(name)):
                st.markdown(f"**{md_escape(name)}**")
                st.markdown(escaped_block(message.get("content", "")))
