"""The Research page: inputs, Run, and the live panels of the run this session is attached to."""

import streamlit as st
from pydantic import ValidationError

from research.api import AllocationError, ResearchRequest
from ui import session
from ui.allocation_controls import render_inputs, render_run_button
from ui.resources import get_manager, load_settings
from ui.run_view import show_run
from ui.text import md_escape

settings = load_settings()
manager = get_manager(settings)

st.title(":material/travel_explore: Research Desk", anchor=False)
st.caption("A supervisor sends web, academic and book researchers out on your topic; an analyst "
           "sends them back until the evidence holds; a writer drafts a cited report you can edit.")

with st.container(border=True, key="run-inputs"):
    inputs = render_inputs(settings)
    if render_run_button(inputs, settings):
        try:
            run_id = manager.start(ResearchRequest(topic=inputs.topic, allocation=inputs.allocation))
        except AllocationError as exc:
            st.error(f"Could not start the run: {md_escape(exc)}", icon=":material/error:")
        except ValidationError as exc:
            st.error(f"Could not start the run: {md_escape(exc.errors()[0]['msg'])}", icon=":material/error:")
        else:
            session.attach(run_id)

run_id = session.attached_run_id(manager.store)
if run_id:
    show_run(manager, run_id)
else:
    st.info("Type a topic, choose your researchers and press **Run research**. "
            "Every step shows up here as it happens.", icon=":material/lightbulb:")
