""" "Revise the draft": an instruction ("shorten", "reorder sections", "focus on safety") rewrites the
latest draft version with the same sources; the result is a new version, its citations re-checked.
An instruction that cannot be carried out is explained and nothing is lost (the text stays)."""

from __future__ import annotations

import streamlit as st

from research.api import RevisionError, RunStore, Settings, reshape_run, revise_run
from ui import auth
from ui.report_shape_controls import shape_from_state, shape_inputs
from ui.text import md_escape

EXAMPLES = "shorten · expand · reorder sections · move Summary last · bullet points · prose · focus on <topic>"


def _key(run_id: str) -> str:
    return f"revise-text-{run_id}"


def _shape_key(run_id: str) -> str:
    return f"reshape-{run_id}"


def _revise(store: RunStore, settings: Settings, run_id: str, reshape: bool = False) -> None:
    """Button callback: runs before the page is drawn, so the draft panel shows the new version.
    `reshape`: write the report again in the chosen shape (then apply any instruction)."""
    instruction = st.session_state.get(_key(run_id), "")
    refusal = auth.spend_refusal(store, settings)  # a replayed click: refused here too, not only hidden
    if refusal:
        st.session_state[f"revise-outcome-{run_id}"] = ("error", refusal)
        return
    user = auth.signed_in_user()  # whose daily cap the revision's model calls count toward
    try:
        if reshape:
            shape = shape_from_state(_shape_key(run_id))
            revision = reshape_run(store, run_id, shape, settings=settings, instruction=instruction, user=user)
        else:
            revision = revise_run(store, run_id, instruction, settings=settings, user=user)
    except (RevisionError, KeyError) as exc:
        st.session_state[f"revise-outcome-{run_id}"] = ("error", str(exc).strip("'\""))
        return
    check = revision.check
    problems = [f"[{n}] has no entry in the Sources list." for n in check.unresolved]
    problems += [f"{url} is not one of the retrieved sources." for url in check.unknown_urls]
    message = f"Saved as version {revision.version}. " + (
        "Citation check: " + " ".join(problems) if problems else "Citations re-checked: every [n] has a source."
    )
    st.session_state[f"revise-outcome-{run_id}"] = ("warning" if problems else "success", message)
    for warning in revision.warnings:
        st.toast(warning, icon=":material/warning:")


def render(store: RunStore, settings: Settings, run_id: str) -> None:
    with st.container(border=True, key=f"revise-{run_id}"):
        st.markdown("#### :material/auto_fix_high: Revise the draft")
        if not auth.require_spend(store, settings, "revise the draft"):
            return
        text_col, button_col = st.columns([4, 1], vertical_alignment="bottom")
        text_col.text_area(
            "Revision instructions",
            key=_key(run_id),
            height=80,
            max_chars=2000,
            placeholder="e.g. shorten and use bullet points",
            help=f"Offline, the reviser understands: {EXAMPLES}.",
        )
        button_col.button(
            "Revise draft",
            icon=":material/auto_fix_high:",
            key=f"revise-button-{run_id}",
            type="primary",
            on_click=_revise,
            args=(store, settings, run_id),  # never disabled: a click may be what commits the text
        )
        shape_col, reshape_col = st.columns([4, 1], vertical_alignment="bottom")
        with shape_col:
            shape_inputs(_shape_key(run_id))
        reshape_col.button(
            "Rewrite in shape",
            icon=":material/view_agenda:",
            key=f"reshape-button-{run_id}",
            on_click=_revise,
            args=(store, settings, run_id, True),
            help="Writes the report again from the run's sources in this shape (a new version).",
        )
        st.caption(
            f"Rewrites the latest version with the same sources; the result is a new version. "
            f"Try: {md_escape(EXAMPLES)}"
        )
        outcome = st.session_state.pop(f"revise-outcome-{run_id}", None)
        if outcome:
            kind, message = outcome
            show = {"error": st.error, "warning": st.warning, "success": st.success}[kind]
            icon = {"error": ":material/error:", "warning": ":material/link_off:", "success": ":material/check_circle:"}
            show(md_escape(message), icon=icon[kind])
