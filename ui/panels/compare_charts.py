"""Compare: the Plotly pictures - sources by kind and by provider, publication years, how much the
runs' sources overlap, and analyst rounds against gaps left."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from research.api import RESEARCHER_KINDS
from ui.compare_result import RunComparison, RunStats
from ui.text import KIND_LABELS, plural

KIND_COLORS = {"Web": "#1F5FAD", "Academic": "#7A4EC2", "Book": "#E08A1E"}
_CONFIG = {"displayModeBar": False}


def _layout(figure: go.Figure, title: str, height: int = 320) -> go.Figure:
    figure.update_layout(
        title={"text": title, "x": 0, "font": {"size": 15}},
        height=height,
        margin={"l": 10, "r": 10, "t": 48, "b": 10},
        legend={"orientation": "h", "y": -0.18, "title": None},
        xaxis_title=None,
        yaxis_title=None,
        plot_bgcolor="white",
    )
    figure.update_yaxes(gridcolor="#E6EBF2")
    return figure


def kind_frame(stats: list[RunStats]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"Run": s.label, "Kind": KIND_LABELS[kind], "Sources": s.by_kind.get(kind, 0)}
            for s in stats
            for kind in RESEARCHER_KINDS
        ]
    )


def provider_frame(stats: list[RunStats]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"Run": s.label, "Provider": p, "Sources": n} for s in stats for p, n in s.by_provider.items()],
        columns=["Run", "Provider", "Sources"],
    )


def year_frame(stats: list[RunStats]) -> pd.DataFrame:
    return pd.DataFrame([{"Run": s.label, "Year": y} for s in stats for y in s.years], columns=["Run", "Year"])


def _runs_axis(figure: go.Figure, stats: list[RunStats]) -> None:
    figure.update_xaxes(type="category", categoryorder="array", categoryarray=[s.label for s in stats])


def _run_bars(frame: pd.DataFrame, stats: list[RunStats], title: str, *, y: str, **style: Any) -> go.Figure:
    """Bars of `y` per run, in the runs' order, each labelled with its value."""
    figure = px.bar(frame, x="Run", y=y, text=y, **style)
    _runs_axis(figure, stats)
    return _layout(figure, title)


def sources_by_kind(stats: list[RunStats]) -> go.Figure:
    order = {"Kind": [KIND_LABELS[k] for k in RESEARCHER_KINDS]}
    figure = _run_bars(
        kind_frame(stats),
        stats,
        "Sources by kind",
        y="Sources",
        color="Kind",
        color_discrete_map=KIND_COLORS,
        category_orders=order,
    )
    figure.update_traces(textposition="inside", texttemplate="%{text:.0f}", insidetextanchor="middle")
    figure.for_each_trace(lambda t: t.update(text=[v if v else None for v in t.y]))  # no "0" labels
    return figure


def sources_by_provider(stats: list[RunStats]) -> go.Figure:
    palette = px.colors.qualitative.Safe
    figure = _run_bars(
        provider_frame(stats),
        stats,
        "Sources by provider",
        y="Sources",
        color="Provider",
        color_discrete_sequence=palette,
    )
    return figure.update_traces(textposition="inside", insidetextanchor="middle")


def publication_years(stats: list[RunStats]) -> go.Figure:
    frame = year_frame(stats)
    figure = px.strip(frame, x="Run", y="Year", color="Run", stripmode="overlay")
    figure.add_traces(
        px.box(frame, x="Run", y="Year")
        .update_traces(
            fillcolor="rgba(31,95,173,0.08)",
            line={"color": "#8AA4C8", "width": 1},
            boxpoints=False,
            showlegend=False,
        )
        .data
    )
    figure.update_traces(marker={"size": 9, "opacity": 0.75}, jitter=0.35, selector={"type": "box", "boxpoints": "all"})
    figure.update_layout(showlegend=False)
    figure.update_yaxes(tickformat="d", dtick=1 if frame["Year"].nunique() <= 12 else None)
    _runs_axis(figure, stats)
    return _layout(figure, "Publication years")


def overlap_heatmap(matrix: pd.DataFrame) -> go.Figure:
    figure = px.imshow(
        matrix,
        text_auto=".2f",
        color_continuous_scale="Blues",
        zmin=0,
        zmax=1,
        aspect="auto",
        labels={"color": "Jaccard"},
    )
    figure.update_xaxes(side="bottom", type="category")
    figure.update_yaxes(type="category")
    figure.update_layout(coloraxis_showscale=False)
    return _layout(figure, "Source overlap (shared ÷ found by either)")


def overlap_note(result: RunComparison) -> str:
    unique = result.unique
    common = f"{plural(result.shared, 'source')} found by every run"
    if not any(unique.values()):
        return f"{common}; no run found a source that the others missed."
    return f"{common}; found by one run only: " + ", ".join(f"{s.label} {unique[s.run_id]}" for s in result.runs)


def rounds_and_gaps(stats: list[RunStats]) -> go.Figure:
    frame = pd.DataFrame(
        [{"Run": s.label, "Measure": "Analyst rounds", "Count": s.rounds} for s in stats]
        + [{"Run": s.label, "Measure": "Gaps left", "Count": len(s.gaps)} for s in stats]
    )
    colors = {"Analyst rounds": "#1F5FAD", "Gaps left": "#D9534F"}
    figure = _run_bars(
        frame,
        stats,
        "Analyst rounds and gaps left",
        y="Count",
        color="Measure",
        barmode="group",
        color_discrete_map=colors,
    )
    return figure.update_yaxes(dtick=1)


def time_taken(stats: list[RunStats]) -> go.Figure:
    frame = pd.DataFrame([{"Run": s.label, "Seconds": round(s.seconds or 0.0, 1)} for s in stats])
    figure = _run_bars(frame, stats, "Time to finish (seconds)", y="Seconds", color_discrete_sequence=["#5B8DB8"])
    return figure.update_traces(texttemplate="%{text:.1f} s")


def render(result: RunComparison) -> None:
    stats = result.runs
    st.subheader(":material/insights: At a glance", anchor=False)
    if not any(s.sources for s in stats):
        st.caption("No run has found a source yet: the charts appear when there is something to compare.")
        return
    left, right = st.columns(2, gap="large")
    left.plotly_chart(sources_by_kind(stats), key="compare-chart-kinds", config=_CONFIG)
    right.plotly_chart(sources_by_provider(stats), key="compare-chart-providers", config=_CONFIG)
    left, right = st.columns(2, gap="large")
    with left:
        if any(s.years for s in stats):
            st.plotly_chart(publication_years(stats), key="compare-chart-years", config=_CONFIG)
        else:
            st.caption("No source has a publication year.")
    with right:
        st.plotly_chart(overlap_heatmap(result.overlap), key="compare-chart-overlap", config=_CONFIG)
        st.caption(overlap_note(result))
    left, right = st.columns(2, gap="large")
    left.plotly_chart(rounds_and_gaps(stats), key="compare-chart-rounds", config=_CONFIG)
    right.plotly_chart(time_taken(stats), key="compare-chart-time", config=_CONFIG)
