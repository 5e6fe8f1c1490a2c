"""A Plotly bar chart of sources by kind, stacked by provider."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from research.api import RESEARCHER_KINDS
from ui.text import KIND_LABELS


def chart_data(frame: pd.DataFrame) -> pd.DataFrame:
    counts = frame.groupby(["Kind", "Provider"]).size().reset_index(name="Sources")
    counts["Kind"] = counts["Kind"].map(lambda k: KIND_LABELS.get(k, k))
    return counts


def render(frame: pd.DataFrame, *, key: str) -> None:
    counts = chart_data(frame)
    order = [KIND_LABELS[k] for k in RESEARCHER_KINDS]
    figure = px.bar(
        counts,
        x="Sources",
        y="Kind",
        color="Provider",
        orientation="h",
        text="Sources",
        category_orders={"Kind": order},
        title="Sources by kind and provider",
    )
    figure.update_layout(
        height=90 + 45 * len(order),
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "y": -0.25, "title": None},
        yaxis_title=None,
        xaxis_title=None,
        bargap=0.35,
    )
    if counts["Sources"].max() <= 12:  # small counts: whole-number ticks, not 0.5 steps
        figure.update_xaxes(dtick=1)
    st.plotly_chart(figure, key=key, config={"displayModeBar": False})
