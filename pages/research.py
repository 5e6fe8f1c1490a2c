"""The Research page: inputs, Run, and the panels of the run this session is attached to (live,
paused for plan review, or ended: replay, revise, export)."""

import streamlit as st
from pydantic import ValidationError

from research.api import AllocationError, BrainUnavailable, ResearchRequest, ServerUnreachable
from ui import auth, session, stored_run
from ui.allocation_controls import render_inputs, render_run_button
from ui.page_start import open_page
from ui.researcher_mode import render_researcher_mode
from ui.run_options import render_run_options
from ui.text import md_escape

settings, manager = open_page(
    ":material/travel_explore: Research Desk",
    "A supervisor sends web, academic and book researchers out on your topic; an analyst "
    "sends them back until the evidence holds; a writer drafts a cited report you can edit.",
)

with st.container(border=True, key="run-inputs"):
    inputs = render_inputs(settings)
    researcher_mode = render_researcher_mode(settings)
    options = render_run_options(settings)
    button_col, review_col = st.columns([5, 1.5], vertical_alignment="center")
    with button_col:
        clicked = render_run_button(inputs, settings)
    review_col.toggle(
        "Review plan",
        key="review_plan",
        persist_state="session",
        help="Pause after the supervisor so you can edit the research questions and the allocation first.",
    )
    if clicked and not auth.require_spend(manager.store, settings, "start runs"):
        clicked = False  # a run spends the desk's model key: signed in, and within the daily cap
    if clicked:
        try:
            run_id = manager.start(
                ResearchRequest(
                    topic=inputs.topic,
                    allocation=inputs.allocation,
                    review_plan=st.session_state.review_plan,
                    researcher_mode=researcher_mode,
                    started_by=auth.signed_in_user(),
                    **options,
                )
            )
        except (AllocationError, BrainUnavailable, ServerUnreachable) as exc:
            st.error(f"Could not start the run: {md_escape(exc)}", icon=":material/error:")
        except ValidationError as exc:
            st.error(f"Could not start the run: {md_escape(exc.errors()[0]['msg'])}", icon=":material/error:")
        else:
            session.attach(run_id)

attached_run = session.attached_run_id(manager.store)
if attached_run:
    stored_run.show(manager, settings, attached_run)
else:
    st.info(
        "Type a topic, choose your researchers and press **Run research**. Every step shows up here as it happens.",
        icon=":material/lightbulb:",
    )
