"""The "Researchers" run option: pipeline (fixed queries) or agent (each researcher chooses its tools)."""

from __future__ import annotations

import streamlit as st

from research.api import Settings

MODES = {"pipeline": "Pipeline", "agent": "Agent"}
HELP = (
    "**Pipeline**: each researcher runs fixed, type-specific queries against all its providers. "
    "**Agent**: each researcher decides which of its tools to call (web search, GitHub, arXiv, "
    "Wikipedia, the local library, ...) in a bounded loop; every tool call shows on its card."
)


def render_researcher_mode(settings: Settings) -> str:
    """Draw the control (default: RESEARCH_RESEARCHER_MODE) and return the chosen mode."""
    if "researcher_mode" not in st.session_state:
        st.session_state.researcher_mode = settings.researcher_mode
    choice = st.segmented_control(
        "Researchers",
        options=list(MODES),
        format_func=MODES.__getitem__,
        key="researcher_mode",
        help=HELP,
        width="content",
    )
    return choice or settings.researcher_mode  # a deselected control keeps the default
