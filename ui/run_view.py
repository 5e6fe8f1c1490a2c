"""All panels of one run, refreshed live while it runs.

A fragment re-runs on a timer while the run's thread is alive: each tick folds only the new events
into this session's view and redraws the panels; the rest of the page (inputs, sidebar) is left
alone. When the run ends, one full rerun draws the final state and the timer stops.
`render_panels` draws any RunView, so a replay can feed it a partly folded view.
"""

from __future__ import annotations

import streamlit as st

from research.api import RunBusyError, RunControl, RunNotResumableError, RunStore, RunView, ServerUnreachable
from ui import auth, session
from ui.panels import critiques, draft, evidence, pipeline, researchers, sources_table, summary, supervisor, transcript
from ui.resources import load_settings
from ui.text import md_escape

# Twice a second: at 1.0 the first researcher card waited for the next tick (~1.3 s after the
# click, measured by bench/dashboard.py); at 0.5 it shows within ~0.9 s.
POLL_SECONDS = 0.5


def render_panels(view: RunView, store: RunStore, *, orphaned: bool = False) -> None:
    summary.render_header(view, orphaned=orphaned)
    pipeline.render(view)
    evidence.render(view)
    summary.render_summary(view)
    supervisor.render(view)
    researchers.render(view)
    sources_table.render(view, store)
    critiques.render(view)
    draft.render(view, store)
    transcript.render(view)
    transcript.render_worker_transcripts(view)


def show_run(manager: RunControl, run_id: str) -> None:
    live = manager.is_live(run_id)

    @st.fragment(run_every=POLL_SECONDS if live else None)
    def panels() -> None:
        active = manager.is_live(run_id)  # read before the events: a finished run has logged them all
        view = session.current_view(manager.store, run_id)
        orphaned = not active and view.status == "running" and manager.is_orphaned(run_id)
        if orphaned:
            _offer_resume(manager, run_id)
        render_panels(view, manager.store, orphaned=orphaned)
        if live and not active:
            st.rerun()  # the run just ended: redraw everything once, without the timer

    panels()


def _offer_resume(manager: RunControl, run_id: str) -> None:
    remote = manager.orphan_message  # remote mode: the server may still run it
    st.warning(
        remote or "This run stopped when the app that ran it did. It can continue from its last checkpoint.",
        icon=":material/cloud_off:" if remote else ":material/pause_circle:",
    )
    if st.button("Reattach" if remote else "Resume run", icon=":material/play_arrow:", key=f"resume-{run_id}"):
        if not auth.require_spend(manager.store, load_settings(), "resume runs"):
            return
        try:
            manager.resume(run_id)
        except ServerUnreachable as exc:
            st.error(md_escape(exc), icon=":material/error:")
            return
        except (RunBusyError, RunNotResumableError) as exc:  # another replica or process took it first
            st.error(md_escape(exc), icon=":material/block:")
            return
        st.rerun()
