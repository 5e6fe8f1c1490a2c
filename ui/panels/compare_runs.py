"""Compare: one card per run (allocation, status, verdicts, the one-line summary) and the table of
measures side by side."""

from __future__ import annotations

import streamlit as st

from research.api import RESEARCHER_KINDS
from ui.compare_result import RunComparison
from ui.navigation import AppPage, page
from ui.text import ORIGIN_LABELS, kind_icon, md_escape, plural, run_status_badge

_VERDICT = {
    "APPROVED": ":green-badge[:material/verified: approved]",
    "NEEDS_IMPROVEMENT": ":orange-badge[:material/rule: sent back]",
}


def render_summary_lines(result: RunComparison) -> None:
    """The one line per run an analyst acts on, and the run to start from next time."""
    lines = result.summaries
    with st.container(border=True, key="compare-summary"):
        st.markdown("**In one line each**")
        st.markdown("\n".join(f"- {md_escape(lines[s.run_id])}" for s in result.runs))
        pick = result.best
        if pick is not None:
            st.markdown(
                f":material/recommend: **Best coverage: {md_escape(pick.label)}** "
                ":gray[(fewest gaps, then fewest rounds, then most sources)]"
            )


def render_cards(result: RunComparison) -> None:
    stats = result.runs
    mixed_topics = len({s.topic for s in stats}) > 1
    columns = st.columns(len(stats))
    for column, s in zip(columns, stats, strict=False):
        with column, st.container(border=True, key=f"compare-card-{s.run_id}"):
            st.markdown(f"#### :material/groups: {md_escape(s.label)}")
            st.markdown(run_status_badge(s.status))
            if s.origin:
                st.caption(f"Allocation: {md_escape(ORIGIN_LABELS.get(s.origin, s.origin).lower())}")
            if mixed_topics:
                st.caption(md_escape(s.topic))
            kinds = " · ".join(f"{kind_icon(k)} {s.by_kind.get(k, 0)}" for k in RESEARCHER_KINDS)
            st.markdown(f"**{plural(s.sources, 'source')}** · {kinds}")
            verdicts = " ".join(_VERDICT.get(v, md_escape(v)) for v in s.verdicts)
            st.markdown(f"Analyst: {verdicts}" if verdicts else ":gray[No verdict yet.]")
            if s.gaps:
                st.caption("Gaps left: " + "; ".join(md_escape(g) for g in s.gaps))
            if s.error:
                st.error(md_escape(s.error), icon=":material/error:")
            st.page_link(
                page(AppPage.RESEARCH),
                label="Open on Research page",
                icon=":material/open_in_new:",
                query_params={"run": s.run_id},
            )


def render_measures(result: RunComparison) -> None:
    st.subheader(":material/table_chart: Side by side", anchor=False)
    frame = result.measures
    st.dataframe(
        frame,
        hide_index=True,
        key="compare-measures",
        column_config={"Measure": st.column_config.TextColumn(width="medium")},
        height=38 + 35 * len(frame),
    )
