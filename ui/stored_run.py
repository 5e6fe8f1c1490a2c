"""What the Research page shows for the run it is attached to, by the run's state:

- running: the live panels;
- paused for plan review: the editable plan ("Continue research" / "Cancel") above the panels;
- ended: the replay controls, then the panels (or the replay), "Revise the draft" and "Export".
"""

from __future__ import annotations

import streamlit as st

from research.api import RunControl, Settings
from ui import replay_view, session
from ui.panels import export, plan_review, revise
from ui.run_view import show_run


def show(manager: RunControl, settings: Settings, run_id: str) -> None:
    store = manager.store
    active = manager.is_live(run_id)
    view = session.current_view(store, run_id)
    # One slot above the panels for the plan review or the replay controls: the panels keep their
    # place in the page when a run moves from live to ended, so the browser never shows the old
    # and the new panels at once while the page redraws.
    slot = st.container()
    if active or view.paused:
        replay_view.stop()
        if view.paused and not active:
            with slot:
                plan_review.render(manager, view)
        show_run(manager, run_id)
        return
    with slot:
        clock = replay_view.render_controls(store, run_id)
    if clock is not None:
        replay_view.show(store, clock)
        return
    show_run(manager, run_id)
    has_draft = store.latest_draft(run_id) is not None or bool(view.draft)
    if has_draft:
        revise.render(store, settings, run_id)
    record = store.get_run(run_id)
    export.render(store, run_id, view.topic or (record.topic if record else ""), has_draft=has_draft)
