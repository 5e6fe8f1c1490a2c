"""The pipeline strip: supervisor -> researchers -> analyst -> writer, with the active phase lit."""

from __future__ import annotations

import streamlit as st

from research.api import PHASES, RunView

_LABELS = {"supervisor": "Supervisor", "researchers": "Researchers", "analyst": "Analyst", "writer": "Writer"}
_ICONS = {"supervisor": ":material/account_tree:", "researchers": ":material/groups:",
          "analyst": ":material/fact_check:", "writer": ":material/edit_note:"}  # fmt: skip


def phase_states(view: RunView) -> dict[str, str]:
    """Each phase as done | active | paused | pending | failed, from where the run is now."""
    if view.status == "finished":
        return {phase: "done" for phase in PHASES}
    current = view.phase if view.phase in PHASES else None
    if current is None:
        return {phase: "pending" for phase in PHASES}
    index = PHASES.index(current)
    now = {"failed": "failed", "cancelled": "failed", "paused": "paused"}.get(view.status, "active")
    return {phase: "done" if i < index else now if i == index else "pending" for i, phase in enumerate(PHASES)}


def _cell(phase: str, state: str) -> str:
    label = f"{_ICONS[phase]} **{_LABELS[phase]}**"
    if state == "done":
        return f":green[{label}]  \n:green[:material/check_circle: done]"
    if state == "active":
        return f":blue[{label}]  \n:blue-badge[:material/progress_activity: working]"
    if state == "paused":
        return f":orange[{label}]  \n:orange-badge[:material/pause_circle: waiting for review]"
    if state == "failed":
        return f":red[{label}]  \n:red[:material/error: stopped here]"
    return f":gray[{label}]  \n:gray[waiting]"


def render(view: RunView) -> None:
    states = phase_states(view)
    with st.container(border=True, key="pipeline-strip"):
        columns = st.columns(len(PHASES) + 1, vertical_alignment="center")
        for column, phase in zip(columns, PHASES, strict=False):
            column.markdown(_cell(phase, states[phase]))
        cap = view.max_iterations if view.max_iterations is not None else "?"
        revisions = sum(1 for c in view.critiques if c.status == "NEEDS_IMPROVEMENT")
        columns[-1].markdown(f"**Round {view.iteration + 1}**  \n:gray[revision cap {cap} · {revisions} sent back]")
