"""The Run options' source controls: years, domains, peer review, minimum relevance.

They change only the next run (ResearchRequest.source_controls; the router applies them). A value
the model refuses (years out of order, a malformed domain) is said at once, under the controls,
and the run's start reports the same error.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from pydantic import ValidationError

from research.api import MAX_YEAR, MIN_YEAR, Settings, SourceControls


def _year(label: str, key: str, help_text: str) -> int | None:
    value = st.number_input(
        label, min_value=MIN_YEAR, max_value=MAX_YEAR, value=None, step=1, placeholder="any", key=key, help=help_text
    )
    return None if value is None else int(value)


def _domains(column: Any, label: str, key: str, placeholder: str, what: str) -> str:
    help_text = f"{what} these domains (and their subdomains); comma-separated."
    text: str = column.text_input(label, key=key, max_chars=2000, placeholder=placeholder, help=help_text)
    return text


def render_source_controls(_settings: Settings) -> dict[str, Any]:
    """The controls, in one row; returns {"source_controls": ...} when any is set, else {}."""
    st.markdown("**Sources kept**")
    start, end, include, exclude, review, relevance = st.columns(
        [1.1, 1.1, 1.9, 1.9, 2.1, 1.6], vertical_alignment="bottom"
    )
    with start:
        year_from = _year("Year from", "opt_year_from", "Drop sources published before this year.")
    with end:
        year_to = _year("Year to", "opt_year_to", "Drop sources published after this year.")
    values: dict[str, Any] = {
        "year_from": year_from,
        "year_to": year_to,
        "include_domains": _domains(
            include, "Only web from", "opt_include_domains", "e.g. who.int, nih.gov", "Keep web sources only from"
        ),
        "exclude_domains": _domains(
            exclude, "Never from", "opt_exclude_domains", "e.g. medium.com", "Drop every source from"
        ),
        "peer_reviewed_only": review.toggle(
            "Peer-reviewed only",
            key="opt_peer_reviewed",
            help="Keep only academic sources from a peer-reviewed venue (preprints and unknown venues are dropped).",
        ),
        "min_relevance": relevance.number_input(
            "Minimum relevance",
            min_value=0.0,
            max_value=1.0,
            value=0.0,
            step=0.05,
            format="%.2f",
            key="opt_min_relevance",
            help="Drop sources whose relevance to the topic is below this (0 keeps the default filter).",
        ),
    }
    try:
        controls = SourceControls.model_validate(values)
    except ValidationError as exc:
        problem = exc.errors()[0]["msg"].removeprefix("Value error, ")
        st.error(f"Source controls: {problem}", icon=":material/error:")
        return {"source_controls": values}  # the run's start refuses it with the same message
    if not controls.active:
        return {}
    st.caption("This run keeps: " + "; ".join(controls.describe()))
    return {"source_controls": controls}
