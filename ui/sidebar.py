"""The sidebar: which brain, which sources and which limits this dashboard runs with, and where."""

from __future__ import annotations

import streamlit as st

from research.api import Settings, mask_url
from ui.text import md_escape

SOURCE_MODES = {
    "library": "Local library (offline)",
    "live": "Live providers",
    "auto": "Live providers, library fallback",
}


def brain_label(settings: Settings) -> str:
    if settings.brain_kind() == "offline":
        return "Offline (no key, no network)"
    return f"OpenAI-compatible · {settings.model}"


def render(settings: Settings) -> None:
    with st.sidebar:
        st.markdown("#### :material/tune: This desk")
        st.markdown(
            f":material/psychology: **Brain:** {md_escape(brain_label(settings))}  \n"
            f":material/travel_explore: **Sources:** {SOURCE_MODES.get(settings.sources, settings.sources)}  \n"
            f":material/replay: **Revision cap:** {settings.max_iterations} "
            f"round{'s' if settings.max_iterations != 1 else ''}  \n"
            f":material/groups: **Researcher cap:** {settings.max_researchers}"
        )
        if settings.server_url:  # remote mode: the worker's own settings fill in what is not set here
            st.markdown(
                f":material/dns: **Runs on:** the LangGraph server at {md_escape(mask_url(settings.server_url))}"
            )
            st.caption("Brain and sources above are this dashboard's; what it leaves unset is the server's own.")
        if settings.demo_delay:
            st.caption(f":material/slow_motion_video: Demo pacing: {settings.demo_delay:g} s per library search")
