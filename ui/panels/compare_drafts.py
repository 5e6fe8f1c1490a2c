"""Compare: the drafts - which sections each has (and where), a diff of two drafts' structure, and
the drafts themselves side by side."""

from __future__ import annotations

import re

import streamlit as st

from ui.compare_result import RunComparison
from ui.text import draft_markdown, plural

DRAFT_HEIGHT = 520  # px: the drafts scroll inside their columns, so they stay side by side


def _diff(result: RunComparison) -> None:
    labels = {s.run_id: s.label for s in result.with_draft}
    ids = list(labels)
    st.markdown("**Structure diff**")
    from_col, to_col, _ = st.columns([1, 1, 3])
    a = from_col.selectbox("From", ids, index=0, format_func=lambda i: labels[i], key="compare-diff-a")
    b = to_col.selectbox("To", ids, index=1, format_func=lambda i: labels[i], key="compare-diff-b")
    st.code(result.diffs[(a, b)], language="diff", wrap_lines=True)


def without_title(markdown: str) -> str:
    """The draft minus its "# Topic" line: every draft has the same one, and the page shows it."""
    return re.sub(r"\A\s*# [^\n]*\n", "", markdown, count=1)


def render(result: RunComparison) -> None:
    st.subheader(":material/article: Drafts", anchor=False)
    with_draft = result.with_draft
    if not with_draft:
        st.caption("The drafts appear here when the runs finish.")
        return
    st.markdown("**Section structure**")
    frame = result.sections
    st.dataframe(
        frame,
        hide_index=True,
        key="compare-sections",
        height=38 + 35 * max(1, len(frame)),
        column_config={
            "Section": st.column_config.TextColumn(width="large"),
            **{s.label: st.column_config.TextColumn(width=80) for s in with_draft},
        },
    )
    st.caption("§n: the section's position in that run's draft; – : the draft has no such section.")
    if len(with_draft) > 1:
        _diff(result)
    columns = st.columns(len(with_draft), gap="medium")
    for column, s in zip(columns, with_draft, strict=False):
        with column:
            st.markdown(f"**{s.label}** :gray[· {plural(len(s.headings), 'section')} · {s.cited} cited]")
            with st.container(height=DRAFT_HEIGHT, border=True, key=f"compare-draft-{s.run_id}"):
                st.markdown(draft_markdown(without_title(s.draft or "")))
