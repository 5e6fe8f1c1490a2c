"""Replay on the Research page: a stored run's panels fill again exactly as they did live.

The controls ("Replay", "Replay speed", pause, stop) sit above the panels; a fragment re-draws the
panels on a short timer while the replay plays, folding as many stored events as the replay clock
says are due. Nothing but the run store is read: no key and no network are needed.
"""

from __future__ import annotations

from typing import cast

import streamlit as st

from research.api import RunStore
from ui.replay_clock import SPEED_LABELS, ReplayClock, ReplayStore, wall_time
from ui.run_view import render_panels
from ui.text import duration

TICK_SECONDS = 0.25
_STATE = "replay_clock"
_SPEED = "replay-speed"


def active_clock(run_id: str) -> ReplayClock | None:
    clock = st.session_state.get(_STATE)
    return clock if isinstance(clock, ReplayClock) and clock.run_id == run_id else None


def _start(store: RunStore, run_id: str) -> None:
    st.session_state[_STATE] = ReplayClock.start(
        run_id, store.events(run_id), st.session_state.get(_SPEED, SPEED_LABELS[0]), wall_time()
    )


def _toggle_pause(run_id: str) -> None:
    clock = active_clock(run_id)
    if clock is None:
        return
    if clock.paused:
        clock.resume(wall_time())
    else:
        clock.pause(wall_time())


def _speed_changed(run_id: str) -> None:
    clock = active_clock(run_id)
    if clock is not None:
        clock.set_speed(st.session_state[_SPEED], wall_time())


def stop() -> None:
    st.session_state.pop(_STATE, None)


def render_controls(store: RunStore, run_id: str) -> ReplayClock | None:
    """The replay toolbar of an ended run; returns the clock while a replay is on screen."""
    clock = active_clock(run_id)
    now = wall_time()
    with st.container(border=True, key="replay-controls"):
        label_col, speed_col, replay_col, pause_col, stop_col = st.columns(
            [2.6, 1.2, 1, 1, 1.2], vertical_alignment="bottom"
        )
        with label_col:
            st.markdown("**:material/slideshow: Replay this run**")
            st.caption("Plays the stored event log again, panel by panel: no key, no network.")
        speed_col.selectbox(
            "Replay speed",
            SPEED_LABELS,
            key=_SPEED,
            on_change=_speed_changed,
            args=(run_id,),
            help="1x replays the run at the pace it ran (long waits shortened); Instant shows the end at once.",
        )
        replay_col.button(
            "Replay",
            icon=":material/replay:",
            type="primary",
            key="replay-start",
            on_click=_start,
            args=(store, run_id),
            width="stretch",
            help="Start from the beginning.",
        )
        if clock is not None:
            playing = clock.playing(now)
            pause_col.button(
                "Resume" if clock.paused else "Pause",
                icon=":material/play_arrow:" if clock.paused else ":material/pause:",
                key="replay-pause",
                on_click=_toggle_pause,
                args=(run_id,),
                width="stretch",
                disabled=not clock.paused and not playing,
            )
            stop_col.button("Stop replay", icon=":material/stop:", key="replay-stop", on_click=stop, width="stretch")
    return clock


def show(store: RunStore, clock: ReplayClock) -> None:
    """The panels at the replay's current moment, refreshed while it plays."""
    playing = clock.playing(wall_time())

    @st.fragment(run_every=TICK_SECONDS if playing else None)
    def panels() -> None:
        now = wall_time()
        view = clock.view(now)
        _progress(clock, now)
        # A ReplayStore reads as the RunStore it wraps (it passes everything but draft versions through).
        render_panels(view, cast(RunStore, ReplayStore(store, view, clock.source_time(now))))
        if playing and not clock.playing(now):
            st.rerun()  # the replay reached the end (or was paused elsewhere): stop the timer

    panels()


def _progress(clock: ReplayClock, now: float) -> None:
    due, total = clock.due(now), len(clock.events)
    position = clock.position(now)
    state = "paused" if clock.paused and due < total else "done" if due >= total else f"playing at {clock.speed_label}"
    share = position / clock.duration if clock.duration else 1.0
    with st.container(key="replay-progress"):
        st.progress(
            min(1.0, share),
            text=f":material/slideshow: Replay {state} · {duration(position)} of {duration(clock.duration)} "
            f"· {due} of {total} events",
        )
