"""Warnings shown where they happened: a researcher's in its card, the supervisor's and the writer's
in their panels, the rest (runner, budget) under the run header. The summary lists them all."""

from __future__ import annotations

from typing import Any

import streamlit as st

from research.api import RunView
from ui.text import md_escape

_PANEL_SOURCES = {"supervisor": "supervisor", "writer": "writer"}


def place_of(warning: dict[str, Any]) -> str:
    """"researcher:<id>", "supervisor", "writer" or "run"."""
    if warning.get("researcher_id"):
        return f"researcher:{warning['researcher_id']}"
    return _PANEL_SOURCES.get(str(warning.get("source", "")).lower(), "run")


def render_inline(view: RunView, place: str) -> None:
    for warning in view.warnings:
        if place_of(warning) == place:
            st.warning(
                f"{md_escape(warning.get('source', ''))}: {md_escape(warning.get('message', ''))}",
                icon=":material/warning:",
            )
