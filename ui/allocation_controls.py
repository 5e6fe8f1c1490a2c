"""The Research page inputs: topic, allocation sliders <-> "210" notation, model toggle, validation.

Sliders and the notation box stay in sync both ways through on_change callbacks (a widget's state
may only be written before it is drawn in a run, which is exactly when callbacks run).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from research.api import (
    MAX_PER_KIND,
    MAX_TOPIC_CHARS,
    AllocationError,
    Settings,
    TopicError,
    parse_allocation,
    validate_topic,
)
from ui.text import md_escape

SLIDERS = (("alloc_web", "Web researchers", "web"), ("alloc_academic", "Academic researchers", "academic"),
           ("alloc_book", "Book researchers", "book"))  # fmt: skip
DEFAULTS = {
    "topic": "",
    "alloc_web": 1,
    "alloc_academic": 1,
    "alloc_book": 1,
    "alloc_notation": "111",
    "alloc_auto": False,
}


@dataclass
class RunInputs:
    topic: str
    allocation: str | None  # "210", or None when the model decides
    problems: list[str] = field(default_factory=list)  # why Run is disabled

    @property
    def ready(self) -> bool:
        return not self.problems


def _sliders_changed() -> None:
    s = st.session_state
    s.alloc_notation = f"{s.alloc_web}{s.alloc_academic}{s.alloc_book}"


def _notation_changed() -> None:
    """Three digits 0-3 move the sliders (even if the total breaks a rule, which is then shown);
    anything else leaves them where they are and the message explains."""
    s = st.session_state
    text = (s.alloc_notation or "").strip()
    if len(text) == 3 and text.isascii() and text.isdigit() and all(int(c) <= MAX_PER_KIND for c in text):
        s.alloc_web, s.alloc_academic, s.alloc_book = (int(c) for c in text)


def render_inputs(settings: Settings) -> RunInputs:
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
    st.text_area(
        "Research topic",
        key="topic",
        height=100,
        persist_state="session",
        placeholder="e.g. How do mRNA vaccines work?  ·  How did Impressionism change painting?",
    )
    topic_problem = _topic_problem(st.session_state.topic)
    auto = st.toggle(
        "Let the model decide",
        key="alloc_auto",
        persist_state="session",
        help="The supervisor picks how many researchers of each kind this topic needs.",
    )
    *slider_cols, notation_col = st.columns([2, 2, 2, 1.5], gap="large", vertical_alignment="bottom")
    for column, (key, label, _kind) in zip(slider_cols, SLIDERS, strict=False):
        column.slider(
            label,
            0,
            MAX_PER_KIND,
            key=key,
            on_change=_sliders_changed,
            disabled=auto,
            persist_state="session",
        )
    notation_col.text_input(
        "Allocation",
        key="alloc_notation",
        on_change=_notation_changed,
        disabled=auto,
        max_chars=3,
        persist_state="session",  # the inputs are still there after a visit to History
        help='Web, academic and book researchers as three digits: "210" = 2 web, 1 academic, 0 book.',
    )
    if auto:
        allocation_problem = None
        st.markdown(":violet[:material/psychology:] The supervisor will choose the allocation for this topic.")
    else:
        allocation_problem = _allocation_status(st.session_state.alloc_notation, settings)
    problems = [p for p in (topic_problem, allocation_problem) if p]
    return RunInputs(
        topic=st.session_state.topic.strip(),
        allocation=None if auto else st.session_state.alloc_notation.strip(),
        problems=problems,
    )


def _topic_problem(topic: str) -> str | None:
    try:
        validate_topic(topic)
    except TopicError as exc:
        if topic.strip():  # an empty box is the normal starting point: explained at the Run button
            st.error(str(exc), icon=":material/error:")
            return str(exc)
        # Streamlit applies a text area's text on Ctrl+Enter or when focus leaves it: say so, since
        # until then the button still sees an empty topic.
        return f"{exc} (Ctrl+Enter, or click outside the box, applies what you typed.)"
    return None


def _allocation_status(notation: str, settings: Settings) -> str | None:
    """Show the live total and the first rule broken; returns the problem, if any."""
    cap = settings.max_researchers
    try:
        allocation = parse_allocation(notation, cap)
    except AllocationError as exc:
        st.error(md_escape(exc), icon=":material/error:")
        return str(exc)
    st.markdown(
        f":green[:material/check_circle:] Total **{allocation.total}** of at most {cap} researchers: "
        f"{allocation.web} web, {allocation.academic} academic, {allocation.book} book"
    )
    return None


def render_run_button(inputs: RunInputs, settings: Settings) -> bool:
    length = len(st.session_state.get("topic", "").strip())
    button_col, note_col = st.columns([1, 4], vertical_alignment="center")
    clicked = button_col.button(
        "Run research",
        type="primary",
        icon=":material/play_arrow:",
        disabled=not inputs.ready,
        help=None if inputs.ready else inputs.problems[0],
    )
    if not inputs.ready:
        note_col.caption(":material/info: Run is disabled: " + " ".join(md_escape(p) for p in inputs.problems))
    else:
        note_col.caption(f"{length:,} / {MAX_TOPIC_CHARS:,} characters · revision cap {settings.max_iterations}")
    return clicked
