"""Setting up a comparison: run one topic with 2-4 allocations at once, pick finished runs from
History, or reopen a saved comparison. Each path ends in a saved comparison this tab attaches to."""

from __future__ import annotations

import itertools

import streamlit as st
from pydantic import ValidationError

from research.api import (
    MAX_PER_KIND,
    AllocationError,
    ResearchRequest,
    RunControl,
    Settings,
    TopicError,
    parse_allocation,
    validate_topic,
)
from ui import auth, compare_session
from ui.comparison_store import MAX_RUNS, MIN_RUNS, ComparisonStore
from ui.text import md_escape, plural, when

DEFAULT_ALLOCATIONS = ("210", "111", "021")


def valid_allocations(settings: Settings) -> list[str]:
    """Every allocation the researcher cap allows, most researchers first, web before academic."""
    out = []
    for digits in itertools.product(range(MAX_PER_KIND + 1), repeat=3):
        notation = "".join(map(str, digits))
        try:
            parse_allocation(notation, settings.max_researchers)
        except AllocationError:
            continue
        out.append(notation)
    return sorted(out, key=lambda n: (-sum(map(int, n)), [-int(c) for c in n]))


def describe(notation: str) -> str:
    web, academic, book = (int(c) for c in notation)
    parts = [f"{n} {kind}" for n, kind in ((web, "web"), (academic, "academic"), (book, "book")) if n]
    return f"{notation} · {', '.join(parts)}"


def render(manager: RunControl, comparisons: ComparisonStore, settings: Settings) -> None:
    new_tab, pick_tab, saved_tab = st.tabs(
        [
            ":material/play_arrow: Run allocations",
            ":material/history: Pick finished runs",
            ":material/bookmarks: Saved comparisons",
        ]
    )
    with new_tab:
        _new_runs(manager, comparisons, settings)
    with pick_tab:
        _pick_runs(manager, comparisons)
    with saved_tab:
        _saved(manager, comparisons)


def _new_runs(manager: RunControl, comparisons: ComparisonStore, settings: Settings) -> None:
    options = valid_allocations(settings)
    st.text_area(
        "Research topic",
        key="compare-topic",
        height=80,
        persist_state="session",
        placeholder="e.g. How do mRNA vaccines work?",
    )
    st.multiselect(
        "Allocations",
        options,
        default=[a for a in DEFAULT_ALLOCATIONS if a in options],
        key="compare-allocations",
        format_func=describe,
        max_selections=MAX_RUNS,
        persist_state="session",
        help=f'{MIN_RUNS}-{MAX_RUNS} allocations in "210" notation (web, academic, book researchers). '
        "They run at the same time on the same topic.",
    )
    topic = st.session_state.get("compare-topic", "")
    chosen = st.session_state.get("compare-allocations") or []
    problems = []
    try:
        validate_topic(topic)
    except TopicError as exc:
        problems.append(str(exc))
    if len(chosen) < MIN_RUNS:
        problems.append(f"Choose {MIN_RUNS}-{MAX_RUNS} allocations (chosen: {len(chosen)}).")
    button_col, note_col = st.columns([1, 4], vertical_alignment="center")
    clicked = button_col.button(
        "Run comparison",
        type="primary",
        icon=":material/play_arrow:",
        disabled=bool(problems),
        help=problems[0] if problems else None,
    )
    if problems:
        note_col.caption(":material/info: Run comparison is disabled: " + " ".join(md_escape(p) for p in problems))
    else:
        note_col.caption(f"{plural(len(chosen), 'run')} at once · revision cap {settings.max_iterations}")
    if clicked and auth.require_spend(manager.store, settings, "start runs"):
        _start(manager, comparisons, topic.strip(), chosen)


def _start(manager: RunControl, comparisons: ComparisonStore, topic: str, allocations: list[str]) -> None:
    run_ids = []
    try:
        for allocation in allocations:
            run_ids.append(
                manager.start(ResearchRequest(topic=topic, allocation=allocation, started_by=auth.signed_in_user()))
            )
    except (AllocationError, ValidationError, TopicError) as exc:
        message = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        st.error(f"Could not start the comparison: {md_escape(message)}", icon=":material/error:")
        return
    comparison = comparisons.save(topic, run_ids, allocations)
    compare_session.attach(comparison.id)
    st.rerun()  # draw the new comparison (and collapse nothing the user opened)


def _pick_runs(manager: RunControl, comparisons: ComparisonStore) -> None:
    records = [r for r in manager.store.list_runs() if r.status == "finished"]
    if len(records) < MIN_RUNS:
        st.caption(
            f"At least {MIN_RUNS} finished runs are needed; there {'is' if len(records) == 1 else 'are'} "
            f"{len(records)}."
        )
        return
    by_id = {r.run_id: r for r in records}

    def label(run_id: str) -> str:
        r = by_id[run_id]
        topic = r.topic if len(r.topic) <= 70 else r.topic[:69] + "…"
        return f"{r.allocation or r.requested_allocation or 'model'} · {topic} · {when(r.created_at)}"

    picked = st.multiselect(
        "Runs to compare",
        list(by_id),
        key="compare-picked",
        format_func=label,
        max_selections=MAX_RUNS,
        placeholder="Choose 2-4 finished runs",
        help="Runs on the same topic compare best; any finished runs work.",
    )
    if st.button("Compare runs", icon=":material/compare_arrows:", disabled=len(picked) < MIN_RUNS, type="primary"):
        topics = list(dict.fromkeys(by_id[r].topic for r in picked))
        title = topics[0] if len(topics) == 1 else "Mixed topics: " + " / ".join(topics)
        comparison = comparisons.save(title, picked)
        compare_session.attach(comparison.id)
        st.rerun()


def _saved(manager: RunControl, comparisons: ComparisonStore) -> None:
    saved = comparisons.newest_first()
    if not saved:
        st.caption("Comparisons you run or pick are kept here (and listed in History).")
        return
    by_id = {c.id: c for c in saved}
    chosen = st.selectbox(
        "Saved comparisons",
        list(by_id),
        key="compare-saved",
        format_func=lambda cid: (
            f"{by_id[cid].title[:80]} · {plural(len(by_id[cid].run_ids), 'run')} · {when(by_id[cid].created_at)}"
        ),
    )
    open_col, delete_col, _ = st.columns([1.2, 1.4, 4])
    if open_col.button("Open comparison", icon=":material/open_in_new:"):
        compare_session.attach(chosen)
        st.rerun()
    if delete_col.button("Delete comparison", icon=":material/delete:", help="The runs themselves are kept."):
        comparisons.delete(chosen)
        if compare_session.attached_id() == chosen:
            compare_session.detach()
        st.rerun()
