"""The evidence notice: an empty or thin run says so, prominently, above its numbers."""

from __future__ import annotations

import streamlit as st

from research.api import RunView
from ui.text import md_escape


def render(view: RunView) -> None:
    detail = view.evidence_detail
    reason = md_escape(detail.reason if detail else "")
    with st.container(key="evidence-notice"):
        if view.evidence == "none":
            st.error(
                f"**No relevant evidence.** {reason} The draft makes no claims about the topic; it lists "
                "what was searched.",
                icon=":material/search_off:",
            )
        elif view.evidence == "partial":
            st.warning(
                f"**Thin evidence.** {reason} Sections without sources say so; read them with care.",
                icon=":material/report:",
            )
        elif view.evidence == "sufficient":
            st.caption(
                f":material/verified: Evidence: every question covered ({detail.sources if detail else 0} sources)."
            )
