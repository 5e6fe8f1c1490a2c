""" "Analyst critiques": one entry per round with the verdict badge, points, gaps and next queries."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from research.api import Critique, QuestionCoverage, RunView
from ui.text import md_escape

_VERDICTS = {
    "APPROVED": ":green-badge[:material/verified: APPROVED]",
    "NEEDS_IMPROVEMENT": ":orange-badge[:material/rule: NEEDS_IMPROVEMENT]",
}


def bullets(items: list[Any], empty: str) -> str:
    return "\n".join(f"- {md_escape(item)}" for item in items) if items else f":gray[{empty}]"


def render(view: RunView) -> None:
    st.subheader(":material/fact_check: Analyst critiques", anchor=False)
    if not view.critiques:
        st.caption("The analyst's verdict on each round of research appears here.")
        return
    for critique in view.critiques:
        _entry(critique)


def _entry(critique: Critique) -> None:
    round_no = critique.iteration + 1
    status = critique.status
    with st.container(border=True, key=f"critique-round-{round_no}"):
        st.markdown(f"**Round {round_no}** · {_VERDICTS.get(status, md_escape(status))}")
        points, gaps, queries = st.columns([3, 2, 2], gap="medium")
        with points:
            st.markdown("**Critique**")
            st.markdown(bullets(critique.critique, "No points raised."))
        with gaps:
            st.markdown("**Missing topics**")
            st.markdown(bullets(critique.missing_topics, "None."))
        with queries:
            st.markdown("**Recommended queries**")
            st.markdown(bullets(critique.recommended_queries, "None."))
        coverage = critique.coverage
        if coverage:
            with st.expander("Coverage by question"):
                st.dataframe(
                    _coverage_frame(coverage),
                    hide_index=True,
                    column_config={
                        "Covered": st.column_config.CheckboxColumn("Covered"),
                    },
                )


def _coverage_frame(coverage: list[QuestionCoverage]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"Question": c.question, "Covered": c.covered, "Sources": c.source_count, "Note": c.note} for c in coverage]
    )
