"""The collapsible "Transcript": supervisor directives and each worker's closing message."""

from __future__ import annotations

import re

import streamlit as st

from research.api import RunView, WorkerMessageData
from ui.text import kind_icon, md_escape, plural

_AVATARS = {
    "supervisor": ":material/account_tree:",
    "analyst": ":material/fact_check:",
    "writer": ":material/edit_note:",
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
            name = message.name or "system"
            with st.chat_message(name, avatar=avatar(name)):
                st.markdown(f"**{md_escape(name)}**")
                st.markdown(escaped_block(message.content))


_ROLE_AVATARS = {"directive": ":material/account_tree:", "tool": ":material/construction:"}
# A tool result as the model read it: <source n="1" kind=".." title=".." url="..">text</source> blocks.
_SOURCE_TAG = re.compile(r'<source n="(\d+)" kind="[^"]*" title="([^"]*)" url="([^"]*)">')


def tool_result_lines(content: str) -> list[str]:
    """The sources a tool returned, one line each; its message when it returned none (an error)."""
    found = _SOURCE_TAG.findall(content or "")
    if not found:
        return [md_escape(content[:600])]
    return [f"[{n}] {md_escape(title)} · {md_escape(url)}" for n, title, url in found]


def render_worker_transcripts(view: RunView) -> None:
    """Agent mode: one transcript per worker: the directive, each tool call and result, the closing note.

    One expander per worker, not tabs: this draws inside the live fragment, and tabs there could keep
    a worker's panel as it was mid-run after the run ended (seen once in CI).
    Fixed labels and keys, so an open transcript stays open while messages arrive."""
    workers = [r for r in view.researchers.values() if r.transcript]
    if not workers:
        return
    with st.container(key="worker-transcripts"):
        st.markdown("**:material/manage_search: Worker transcripts**")
        st.caption(
            f"{plural(len(workers), 'worker')}: what each researcher was told, which tools it called "
            "with which arguments, what came back, and how it closed."
        )
        for worker in workers:
            with st.expander(worker.id, icon=kind_icon(worker.kind), key=f"worker-transcript-{worker.id}"):
                for message in worker.transcript:
                    _worker_message(worker.id, message)


def _worker_message(worker_id: str, message: WorkerMessageData) -> None:
    role, name = message.role, message.name or worker_id
    with st.chat_message("user" if role == "directive" else name, avatar=_ROLE_AVATARS.get(role) or avatar(worker_id)):
        if role == "tool":
            st.markdown(f"**{md_escape(name)}** result")
            for line in tool_result_lines(message.content):  # web text: escaped, never HTML
                st.caption(line)
            return
        st.markdown(f"**{md_escape(name)}**" + (" · closing note" if role == "closing" else ""))
        if message.content:
            st.markdown(escaped_block(message.content))
        for call in message.tool_calls:
            args = ", ".join(f"{k}={v}" for k, v in call.args.items())
            st.markdown(f":material/call_made: calls **{md_escape(call.name or '?')}** {md_escape(args)}")
