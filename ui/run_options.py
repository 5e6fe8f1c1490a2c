"""The Research page's run options: brain, model, fast model, sources mode, revision rounds, and
the source controls (ui/source_controls.py).

Each defaults to the settings and changes only the next run (ResearchRequest carries the choice;
the runner applies it). One function per option, listed in OPTIONS: a new option is one more
function returning its ResearchRequest fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from research.api import Settings, brain_problem
from ui.report_shape_controls import render_report_shape
from ui.source_controls import render_source_controls

BRAINS = {
    "auto": "Auto (model when configured)",
    "offline": "Offline (no model)",
    "openai": "Model (OpenAI-compatible)",
}
OFFLINE_CAPTION = "Not used: the offline brain calls no model."
SOURCE_MODES = {"auto": "Auto (live, library fallback)", "live": "Live only", "library": "Local library only"}
Option = Callable[[Settings], dict[str, Any]]


def _choice(label: str, labels: dict[str, str], setting: str, *, key: str, help: str | None = None) -> str | None:
    """Radio buttons over `labels` that start at the setting: the choice, or None when it is the setting.

    Radios, not a select box: every option is in sight and one click chooses it. Streamlit's select
    box sometimes closes its list again just after the first click (its ComboBox refocuses the input).
    """
    options: list[str] = list(labels)
    choice = st.radio(
        label,
        options,
        index=options.index(setting),
        format_func=lambda o: labels.get(o, o),
        key=key,
        help=help,
        horizontal=True,
    )
    return None if choice == setting else choice


def _changed_text(text: str, setting: str) -> str | None:
    """A typed value, stripped, or None when it is blank or the setting."""
    return text.strip() if text.strip() and text.strip() != setting else None


def _brain(settings: Settings) -> dict[str, Any]:
    help_text = "Offline needs nothing; a model needs OPENAI_BASE_URL or OPENAI_API_KEY."
    choice = _choice("Brain", BRAINS, settings.llm, key="opt_brain", help=help_text)
    problem = brain_problem(settings, choice)
    if problem:  # said before the run, not found out as a run that quietly went offline
        st.error(f"No model: {problem.replace('--llm openai', 'a model brain')}", icon=":material/error:")
    return {"llm": choice}


def _offline_chosen(settings: Settings) -> bool:
    """Whether the brain the Brain radio stands at is the offline one, for which no model applies."""
    choice = st.session_state.get("opt_brain", settings.llm)  # the radio above, on this same rerun
    return (settings.brain_kind() if choice == "auto" else choice) == "offline"


def _model(settings: Settings) -> dict[str, Any]:
    offline = _offline_chosen(settings)
    text = st.text_input(
        "Model",
        value=settings.model,
        key="opt_model",
        max_chars=200,
        disabled=offline,
        help="Plans, judges and writes (RESEARCH_MODEL).",
    )
    if offline:
        st.caption(OFFLINE_CAPTION)
    return {"model": None if offline else _changed_text(text, settings.model)}


def _fast_model(settings: Settings) -> dict[str, Any]:
    default = settings.fast_model or ""
    offline = _offline_chosen(settings)
    text = st.text_input(
        "Fast model",
        value=default,
        key="opt_fast_model",
        max_chars=200,
        placeholder="same as the model",
        disabled=offline,
        help="Writes queries and notes (RESEARCH_FAST_MODEL).",
    )
    return {"fast_model": None if offline else _changed_text(text, default)}


def _sources(settings: Settings) -> dict[str, Any]:
    return {"sources": _choice("Sources", SOURCE_MODES, settings.sources, key="opt_sources")}


def _revision_rounds(settings: Settings) -> dict[str, Any]:
    rounds = st.number_input(
        "Revision rounds",
        min_value=0,
        max_value=5,
        value=settings.max_iterations,
        step=1,
        key="opt_rounds",
        help="How often the analyst may send researchers back.",
    )
    return {"max_iterations": None if rounds == settings.max_iterations else int(rounds)}


OPTIONS: list[Option] = [_brain, _model, _fast_model, _sources, _revision_rounds]


def render_run_options(settings: Settings) -> dict[str, Any]:
    """The options panel; returns the ResearchRequest fields that differ from the settings."""
    chosen: dict[str, Any] = {}
    with st.expander("Run options", icon=":material/tune:", key="run-options"):
        columns = st.columns(len(OPTIONS))
        for column, option in zip(columns, OPTIONS, strict=False):
            with column:
                chosen.update(option(settings))
        chosen.update(render_source_controls(settings))
        chosen.update(render_report_shape())
    return {k: v for k, v in chosen.items() if v is not None}
