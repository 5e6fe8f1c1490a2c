"""The report's shape and target length: a row of the Run options (for the next run) and of the
Revise panel (the report written again in another shape). Brief, standard, detailed or
outline-first; a target in words, or none (the shape's own length)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from research.api import MAX_TARGET_WORDS, MIN_TARGET_WORDS, SHAPES, ReportShape

TARGET_HELP = (
    f"{MIN_TARGET_WORDS:,}-{MAX_TARGET_WORDS:,} words; left empty, the shape keeps its own length. The writer "
    "stays within its token caps and says plainly when the evidence cannot fill the length, rather than pad."
)


def shape_inputs(key: str) -> ReportShape:
    """The shape radios and the target-words box, side by side; returns the choice."""
    shape_col, words_col = st.columns([2, 1])
    names = list(SHAPES)
    shape = shape_col.radio(  # radios: one click chooses (see ui/run_options.py `_choice`)
        "Report shape",
        names,
        index=names.index("standard"),  # a run that chooses nothing gets the standard report
        format_func=lambda name: SHAPES[name].split(":", 1)[0],  # the short name; help says the rest
        key=f"{key}-shape",
        horizontal=True,
        help="Brief: a paragraph and bullets. Detailed: longer sections, more sources per question. "
        "Outline first: the sections listed before the report.",
    )
    words = words_col.number_input(
        "Target words",
        min_value=0,
        max_value=MAX_TARGET_WORDS,
        value=None,  # empty, not 0: a bare "0" read as a length of nothing
        step=50,
        placeholder="the shape's own length",
        key=f"{key}-words",
        help=TARGET_HELP,
    )
    target = int(words) if words else None
    if target is not None and target < MIN_TARGET_WORDS:
        st.warning(f"A target under {MIN_TARGET_WORDS} words is not used.", icon=":material/warning:")
        target = None
    return ReportShape(shape=shape, target_words=target)


def shape_from_state(key: str) -> ReportShape:
    """The choice of `shape_inputs(key)` as the session holds it (for a button's callback)."""
    shape = st.session_state.get(f"{key}-shape", "standard")
    words = int(st.session_state.get(f"{key}-words") or 0)
    return ReportShape(
        shape=shape if shape in SHAPES else "standard",
        target_words=words if MIN_TARGET_WORDS <= words <= MAX_TARGET_WORDS else None,
    )


def render_report_shape() -> dict[str, Any]:
    """The Run options row: the ResearchRequest field when it differs from the standard shape."""
    chosen = shape_inputs("opt-report")
    return {} if chosen.is_default else {"report_shape": chosen}
