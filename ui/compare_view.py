"""One comparison on screen: cards, the one-line summaries, measures, charts and drafts.

Like the Research page, a fragment refreshes on a timer while any of the runs is still running,
and one full rerun draws the final state when the last one ends.
"""

from __future__ import annotations

import streamlit as st

from research.api import RunControl
from ui import session
from ui.compare_result import RunComparison, compare
from ui.compare_stats import run_stats
from ui.comparison_store import Comparison
from ui.panels import compare_charts, compare_drafts, compare_runs
from ui.text import md_escape, plural, when

POLL_SECONDS = 1.0


def gather(manager: RunControl, comparison: Comparison) -> RunComparison:
    """The comparison of its runs that still exist (the ids of those deleted since are listed)."""
    stats, missing = [], []
    for run_id in comparison.run_ids:
        record = manager.store.get_run(run_id)
        if record is None:
            missing.append(run_id)
            continue
        view = session.current_view(manager.store, run_id)
        latest = manager.store.latest_draft(run_id)
        stats.append(run_stats(view, record, latest.markdown if latest else None))
    return compare(stats, missing)


def show(manager: RunControl, comparison: Comparison) -> None:
    live = any(manager.is_live(run_id) for run_id in comparison.run_ids)

    @st.fragment(run_every=POLL_SECONDS if live else None)
    def panels() -> None:
        active = any(manager.is_live(run_id) for run_id in comparison.run_ids)
        result = gather(manager, comparison)
        _header(comparison, result)
        if not result.runs:
            st.warning("None of this comparison's runs exist any more.", icon=":material/warning:")
            return
        compare_runs.render_summary_lines(result)
        compare_runs.render_cards(result)
        compare_runs.render_measures(result)
        compare_charts.render(result)
        compare_drafts.render(result)
        if live and not active:
            st.rerun()  # the last run just ended: draw everything once more, without the timer

    panels()


def _header(comparison: Comparison, result: RunComparison) -> None:
    missing = result.missing
    running = sum(not s.done for s in result.runs)
    with st.container(key="compare-header"):
        st.markdown(f"### {md_escape(comparison.title)}")
        state = (
            f":blue-badge[:material/progress_activity: {running} running]"
            if running
            else (":green-badge[:material/check_circle: All done]")
        )
        st.markdown(
            f"{state} · :gray[comparison {md_escape(comparison.id)} · {plural(len(comparison.run_ids), 'run')}"
            f" · saved {when(comparison.created_at)}]"
        )
    if missing:
        st.warning(
            f"{plural(len(missing), 'run')} of this comparison {'was' if len(missing) == 1 else 'were'} deleted: "
            + ", ".join(md_escape(m) for m in missing),
            icon=":material/warning:",
        )
