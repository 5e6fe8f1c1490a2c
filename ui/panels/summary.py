"""The run header and summary: status, the error of a broken run, counts, usage and all warnings."""

from __future__ import annotations

import time

import streamlit as st

from research.api import RunStatus, RunView
from ui.panels import usage as usage_panel
from ui.panels import warnings
from ui.text import duration, md_escape, run_status_badge, when


def render_header(view: RunView, *, orphaned: bool = False) -> None:
    status = run_status_badge(RunStatus.INTERRUPTED if orphaned else view.status)
    brain = "offline brain" if view.brain == "offline" else md_escape(view.model or view.brain)
    with st.container(key="run-header"):
        st.markdown(f"### {md_escape(view.topic) or 'Untitled run'}")
        st.markdown(
            f"{status} · :gray[run {md_escape(view.run_id)} · started {when(view.started_ts)}"
            f"{' by ' + md_escape(view.started_by) if view.started_by else ''} · {brain}"
            f" · sources: {md_escape(view.source_mode or '?')}]"
        )
        if view.source_controls.active:  # recorded in run_started: a replay or a resumed run shows the same
            st.caption("Sources kept: " + md_escape("; ".join(view.source_controls.describe())))
    warnings.render_inline(view, "run")
    if view.status == RunStatus.FAILED:
        st.error(
            f"**The run failed:** {md_escape(view.error or 'unknown error')}  \n"
            "Everything it found before the failure is kept below.",
            icon=":material/error:",
        )


def render_summary(view: RunView) -> None:
    finished = sum(r.status != "running" for r in view.researchers.values())
    elapsed = view.seconds
    if elapsed is None and view.started_ts:
        elapsed = time.time() - view.started_ts
    columns = st.columns(6)
    columns[0].metric("Researchers done", f"{finished} of {len(view.researchers)}")
    columns[1].metric("Sources", len(view.sources))
    columns[2].metric("Cited", len(view.cited_source_ids))
    columns[3].metric("Rounds", len(view.critiques))
    columns[4].metric("Time", duration(elapsed))
    usage = view.usage
    if usage.calls:
        tokens = usage.prompt_tokens + usage.completion_tokens
        cost = " · price unknown" if usage.cost_usd is None else f" · ${usage.cost_usd:.4f}"
        columns[5].metric("Model calls", usage.calls, help=f"{tokens:,} tokens{cost}".replace("$", "\\$"))
    else:
        columns[5].metric("Warnings", len(view.warnings))
    if view.claims and view.claims.precision is not None:
        writers = view.claims_by_version.get(1)
        first = writers.precision if writers else None
        earlier = f" (the writer's v1: {first:.0%})" if first is not None and view.claims.version > 1 else ""
        st.caption(
            f":material/fact_check: Citation precision: **{view.claims.precision:.0%}** of checked claims in "
            f"draft v{view.claims.version} supported by the passage they cite{earlier}.",
            help="The claim check in the Draft panel lists every claim.",
        )
    usage_panel.render(view)
    if view.warnings:
        with st.expander("Warnings during this run", icon=":material/warning:"):
            for w in view.warnings:
                where = f" ({md_escape(w.researcher_id)})" if w.researcher_id else ""
                st.markdown(f"- **{md_escape(w.source)}**{where}: {md_escape(w.message)}")
