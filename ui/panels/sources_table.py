""" "Sources": the table (filter by kind, CSV download) and the chart of sources by kind and provider."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from research.api import RESEARCHER_KINDS, RunStore, RunView
from ui.panels import source_search, sources_chart
from ui.sources_frame import (
    RELIABILITY_LABELS,
    SHOWN,
    csv_bytes,
    csv_frame,
    filter_reliability,
    sort_frame,
    sources_frame,
)
from ui.text import KIND_LABELS, kind_icon, md_escape, safe_filename


def _score_column(label: str, help_text: str) -> Any:  # a column config (its class is not public)
    return st.column_config.ProgressColumn(
        label, min_value=0.0, max_value=1.0, format="%.2f", width=100, help=help_text
    )


# Pixel widths chosen so every column but the snippet fits a laptop screen without scrolling.
_COLUMN_CONFIG = {
    "Link": st.column_config.LinkColumn("Title", width=300, help="Opens the source."),
    "Kind": st.column_config.TextColumn("Kind", width=80),
    "Provider": st.column_config.TextColumn("Provider", width=90),
    "Domain": st.column_config.TextColumn(
        "Domain", width=140, help="The host; a library document: its file or collection."
    ),
    "Year": st.column_config.NumberColumn("Year", format="%d", width=60),
    "Relevance": _score_column("Relevance", "Score relative to the best match from the same provider."),
    "Reliability": _score_column(
        "Reliability",
        "0.5 plus the points of what the provider said: peer review, citations, publisher, editions, "
        "recency on fast-moving topics, the kind of site. The Why column lists each part.",
    ),
    "Why": st.column_config.TextColumn("Why", width=220, help="What the reliability score is made of, point by point."),
    "Cited": st.column_config.CheckboxColumn("Cited", width=60, help="Cited in the writer's draft."),
    "Snippet": st.column_config.TextColumn("Snippet", width="large"),
    "Researcher": st.column_config.TextColumn("Researcher", width=110),
}


_SORT_LABELS = {
    "cited": "Cited first, then relevance",
    "reliability": "Most reliable first",
    "relevance": "Most relevant first",
    "newest": "Newest first",
}


def styled(shown: pd.DataFrame) -> Styler:
    """The table with each link cell displaying its source's title (shown as text, never HTML)."""
    titles = dict(zip(shown["Link"], shown["Title"], strict=False))
    return shown.style.format(lambda link: titles.get(link, link), subset=["Link"])


def render(view: RunView, store: RunStore | None = None) -> None:
    st.subheader(":material/description: Sources", anchor=False)
    frame = sources_frame(view)
    if frame.empty:
        st.caption("Sources appear here as the researchers find them.")
        return
    matched = source_search.render(view, store)  # the search box over the table narrows it
    filter_col, count_col, download_col = st.columns([3, 2, 1.4], vertical_alignment="bottom")
    with filter_col:
        chosen = st.pills(
            "Filter by kind",
            RESEARCHER_KINDS,
            selection_mode="multi",
            default=list(RESEARCHER_KINDS),
            format_func=lambda k: f"{kind_icon(k)} {KIND_LABELS[k]}",
            key=f"source-kinds-{view.run_id}",
        )
    rated_col, sort_col = st.columns([3, 2], vertical_alignment="bottom")
    rated = rated_col.pills(
        "Reliability",
        RELIABILITY_LABELS,
        selection_mode="multi",
        default=list(RELIABILITY_LABELS),
        key=f"source-reliability-{view.run_id}",
    )
    order = sort_col.selectbox(
        "Sort by",
        list(_SORT_LABELS),
        format_func=_SORT_LABELS.__getitem__,
        key=f"source-sort-{view.run_id}",
    )
    shown = sort_frame(filter_reliability(frame[frame["Kind"].isin(chosen or RESEARCHER_KINDS)], rated), order)
    if matched is not None:
        shown = shown[shown["Source id"].isin(matched)]
    count_col.markdown(f"**{len(shown)}** of {len(frame)} sources · **{int(frame['Cited'].sum())}** cited in the draft")
    table_csv = csv_frame(view)
    download_col.download_button(  # the rows as filtered; the Export panel has every source
        "Download table (CSV)",
        csv_bytes(filter_reliability(table_csv[table_csv["Kind"].isin(chosen or RESEARCHER_KINDS)], rated)),
        file_name=safe_filename(view.topic, "-sources.csv"),
        mime="text/csv",
        icon=":material/download:",
        key=f"sources-csv-{view.run_id}",
    )
    table = st.dataframe(
        styled(shown),
        column_order=SHOWN,
        column_config=_COLUMN_CONFIG,
        hide_index=True,
        height=min(420, 38 + 35 * len(shown)),
        key=f"sources-table-{view.run_id}",
        on_select="rerun",
        selection_mode="single-row",
    )
    render_breakdown(view, shown, table.selection.rows)
    st.caption(RELIABILITY_NOTE)
    sources_chart.render(frame, key=f"sources-chart-{view.run_id}")


def render_breakdown(view: RunView, shown: pd.DataFrame, rows: list[int]) -> None:
    """The selected source's reliability, factor by factor (titles and reasons are outside text: escaped)."""
    if not rows or rows[0] >= len(shown):
        st.caption("Select a row to see what its reliability is made of.")
        return
    source = view.sources.get(str(shown.iloc[rows[0]]["Source id"]))
    if source is None or source.reliability is None:
        st.caption("This source has no reliability score (a run recorded before the signal).")
        return
    rating = source.reliability
    lines = [f"- {f.points:+.2f} · {md_escape(f.reason)}" for f in rating.factors] or ["- no signal from the provider"]
    with st.container(border=True, key=f"reliability-breakdown-{view.run_id}"):
        st.markdown(f"**{md_escape(source.title)}**: reliability **{rating.score:.2f}** ({rating.label}) = 0.50 base")
        st.markdown("\n".join(lines))


RELIABILITY_NOTE = (
    "**Reliability** starts at 0.50 and adds what the providers said: peer-reviewed venue +0.25 or "
    "preprint −0.10; OpenAlex citations +0.05 to +0.20 (none yet −0.05); a book's university press "
    "+0.15 or named publisher +0.05, and +0.05/+0.10 for 2+/5+ editions; on a fast-moving topic, "
    "+0.10 within 2 years or −0.15 at 8+; a web page's site: government +0.25, university +0.20, "
    "organisation or encyclopedia +0.05, blog or social −0.15. High ≥ 0.70, medium ≥ 0.45."
)
