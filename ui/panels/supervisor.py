"""The supervisor's decision: allocation, where it came from and why, and the research questions."""

from __future__ import annotations

import streamlit as st

from research.api import RESEARCHER_KINDS, RunView
from ui.panels import warnings
from ui.text import KIND_LABELS, ORIGIN_LABELS, kind_icon, md_escape

_ORIGIN_COLORS = {"user": "blue", "llm": "violet", "offline": "orange", "default": "gray"}


def render(view: RunView) -> None:
    st.subheader(":material/account_tree: Supervisor's decision", anchor=False)
    warnings.render_inline(view, "supervisor")
    if not view.allocation:
        st.caption("Waiting for the supervisor to plan the research…")
        return
    left, right = st.columns([1, 2], gap="large")
    with left:
        counts = st.columns(len(RESEARCHER_KINDS))
        for column, kind in zip(counts, RESEARCHER_KINDS, strict=False):
            column.metric(f"{kind_icon(kind)} {KIND_LABELS[kind]}", getattr(view.allocation, kind))
        origin = view.allocation_origin or "default"
        color = _ORIGIN_COLORS.get(origin, "gray")
        st.markdown(f"Allocation **{view.allocation_notation}** · :{color}-badge[{ORIGIN_LABELS.get(origin, origin)}]")
        if view.allocation_reasoning:
            st.caption(md_escape(view.allocation_reasoning))
    with right:
        st.markdown("**Research questions**")
        questions = "\n".join(f"{i}. {md_escape(q)}" for i, q in enumerate(view.research_questions, 1))
        st.markdown(questions or ":gray[None given.]")
        if view.plan_reasoning:
            st.caption(md_escape(view.plan_reasoning))
