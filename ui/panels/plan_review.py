"""Plan review: a run paused after the supervisor shows its plan, editable, with "Continue research"
and "Cancel". The pause is the run's stored state, so it is still here after a reload or a restart."""

from __future__ import annotations

import streamlit as st

from research.api import (
    MAX_QUESTION_CHARS,
    PlanEditError,
    PlanReviewError,
    PlanReviewRequested,
    RunBusyError,
    RunControl,
    RunView,
    validate_plan_edit,
)
from ui import auth
from ui.resources import load_settings
from ui.text import ORIGIN_LABELS, md_escape, plural


def _keys(run_id: str) -> tuple[str, str]:
    return f"plan-allocation-{run_id}", f"plan-questions-{run_id}"


def edited_plan(run_id: str) -> tuple[list[str], str]:
    """The questions (one per line) and the allocation as typed."""
    allocation_key, questions_key = _keys(run_id)
    questions = [line.strip() for line in st.session_state.get(questions_key, "").splitlines() if line.strip()]
    return questions, st.session_state.get(allocation_key, "").strip()


def _continue(manager: RunControl, run_id: str) -> None:
    questions, allocation = edited_plan(run_id)
    refusal = auth.spend_refusal(manager.store, load_settings())  # research goes on: it spends
    if refusal:
        st.session_state[f"plan-error-{run_id}"] = refusal
        return
    try:
        manager.continue_plan(run_id, questions, allocation or None)
    except (PlanEditError, PlanReviewError, RunBusyError, KeyError) as exc:
        st.session_state[f"plan-error-{run_id}"] = str(exc).strip("'\"")
    else:
        st.toast("Research continues with the reviewed plan.", icon=":material/play_arrow:")


def _cancel(manager: RunControl, run_id: str) -> None:
    try:
        manager.cancel_plan(run_id)
    except (PlanReviewError, KeyError) as exc:
        st.session_state[f"plan-error-{run_id}"] = str(exc).strip("'\"")
    else:
        st.toast("Run cancelled.", icon=":material/cancel:")


def render(manager: RunControl, view: RunView) -> None:
    plan = view.plan_review or PlanReviewRequested()
    run_id = view.run_id
    allocation_key, questions_key = _keys(run_id)
    st.session_state.setdefault(allocation_key, plan.allocation_notation)
    st.session_state.setdefault(questions_key, "\n".join(plan.research_questions))
    cap = plan.max_researchers or 3
    max_questions = plan.max_questions
    with st.container(border=True, key="plan-review"):
        st.markdown("#### :material/rate_review: Review the plan")
        st.caption(
            "The run is paused after the supervisor. Edit the research questions and the allocation, then continue; "
            "or cancel the run. The pause is kept: you can close this page and come back."
        )
        questions_col, allocation_col = st.columns([3, 1], gap="large")
        questions_col.text_area(
            "Research questions",
            key=questions_key,
            height=150,
            help=f"One question per line: 1-{max_questions}, at most {MAX_QUESTION_CHARS} characters each.",
        )
        allocation_col.text_input(
            "Plan allocation",
            key=allocation_key,
            max_chars=3,
            help=f'Web, academic and book researchers as three digits ("210"); at most {cap} in total.',
        )
        origin = plan.allocation_origin
        if origin:
            label = ORIGIN_LABELS.get(origin, origin).lower()
            allocation_col.caption(f"Proposed: {md_escape(plan.allocation_notation)} ({md_escape(label)})")
        questions, allocation = edited_plan(run_id)
        problem = None
        try:
            validate_plan_edit(questions, allocation or None, max_researchers=cap)
        except PlanEditError as exc:
            problem = str(exc)
        error = st.session_state.pop(f"plan-error-{run_id}", None)
        if problem or error:
            st.error(f"Cannot continue: {md_escape(problem or error)}", icon=":material/error:")
        else:
            st.caption(
                f":material/check_circle: {plural(len(questions), 'question')} · allocation {md_escape(allocation)}"
            )
        go_col, cancel_col, _ = st.columns([1.3, 1, 4])
        go_col.button(
            "Continue research",
            type="primary",
            icon=":material/play_arrow:",
            key=f"plan-continue-{run_id}",
            disabled=problem is not None,
            on_click=_continue,
            args=(manager, run_id),
        )
        cancel_col.button(
            "Cancel",
            icon=":material/cancel:",
            key=f"plan-cancel-{run_id}",
            on_click=_cancel,
            args=(manager, run_id),
        )
