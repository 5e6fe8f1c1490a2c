"""Warnings shown where they happened: a researcher's in its card, the supervisor's and the writer's
in their panels, the rest (runner, budget) under the run header. The summary lists them all.

Inline, warnings that differ only in the query they name are shown once with a count: offline, every
query of a researcher repeats the same "host not found" and "used the local library" pair.
"""

from __future__ import annotations

import re

import streamlit as st

from research.api import RunView, RunWarning
from ui.text import md_escape

_PANEL_SOURCES = {"supervisor": "supervisor", "writer": "writer"}
_QUOTED_QUERY = re.compile(r"""\s*(for|on)\s+(['"]).*?\2""")


def place_of(warning: RunWarning) -> str:
    """ "researcher:<id>", "supervisor", "writer" or "run"."""
    if warning.researcher_id:
        return f"researcher:{warning.researcher_id}"
    return _PANEL_SOURCES.get(warning.source.lower(), "run")


def grouped(warnings: list[RunWarning]) -> list[tuple[str, str, int]]:
    """(source, message, count) in first-seen order; messages compared without their quoted query."""
    counts: dict[tuple[str, str], int] = {}
    for warning in warnings:
        message = _QUOTED_QUERY.sub("", warning.message)
        key = (warning.source, message)
        counts[key] = counts.get(key, 0) + 1
    return [(source, message, n) for (source, message), n in counts.items()]


def render_inline(view: RunView, place: str) -> None:
    here = [w for w in view.warnings if place_of(w) == place]
    for source, message, count in grouped(here):
        times = f" (×{count})" if count > 1 else ""
        st.warning(f"{md_escape(source)}: {md_escape(message)}{times}", icon=":material/warning:")
