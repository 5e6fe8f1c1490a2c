""" "Researchers": one card per researcher, follow-ups marked with their round, warnings in place."""

from __future__ import annotations

import time
from collections import Counter

import streamlit as st

from research.api import RESEARCHER_KINDS, ResearcherView, RunView
from ui.panels import warnings
from ui.text import duration, kind_icon, md_escape, plural

PER_ROW = 3
_STATUS = {
    "running": ":blue-badge[:material/progress_activity: running]",
    "done": ":green-badge[:material/check: done]",
    "empty": ":gray-badge[:material/search_off: nothing relevant found]",
    "failed": ":red-badge[:material/error: failed]",
}


def ordered(view: RunView) -> list[ResearcherView]:
    kind_rank: dict[str, int] = {kind: i for i, kind in enumerate(RESEARCHER_KINDS)}
    return sorted(view.researchers.values(), key=lambda r: (r.iteration, kind_rank.get(r.kind, 9), r.id))


def render(view: RunView) -> None:
    researchers = ordered(view)
    running = sum(r.status == "running" for r in researchers)
    st.subheader(":material/groups: Researchers", anchor=False)
    if not researchers:
        st.caption("Researchers appear here as the supervisor sends them out.")
        return
    st.caption(f"{plural(len(researchers), 'researcher')} · {running} running")
    for start in range(0, len(researchers), PER_ROW):
        columns = st.columns(PER_ROW)
        for column, researcher in zip(columns, researchers[start : start + PER_ROW], strict=False):
            with column:
                _card(view, researcher)


def _card(view: RunView, r: ResearcherView) -> None:
    with st.container(border=True, key=f"researcher-card-{r.id}"):
        follow_up = f" :violet-badge[follow-up · round {r.iteration + 1}]" if r.is_follow_up else ""
        st.markdown(f"{kind_icon(r.kind)} **{md_escape(r.id)}** {_STATUS.get(r.status, '')}{follow_up}")
        st.markdown(md_escape(r.question) or ":gray[No question yet.]")
        if r.angle:
            st.caption(md_escape(r.angle))
        if r.queries:
            st.markdown("\n".join(f"- :material/search: {md_escape(q)}" for q in r.queries))
        elapsed = r.seconds if r.seconds is not None else (time.time() - r.started_ts if r.started_ts else None)
        st.markdown(f":material/description: **{len(r.source_ids)}** sources · :material/timer: {duration(elapsed)}")
        render_tool_calls(r)
        render_dropped(r)
        _model_progress(r)
        warnings.render_inline(view, f"researcher:{r.id}")
        if r.error:
            st.error(md_escape(r.error), icon=":material/error:")


_TOOL_STATUS = {
    "ok": ":green[:material/check:]",
    "no_results": ":gray[:material/block:]",
    "fault": ":red[:material/error:]",
    "invalid": ":orange[:material/warning:]",
    "repeated": ":orange[:material/repeat:]",
    "refused": ":red[:material/do_not_disturb_on:]",
}


def render_tool_calls(r: ResearcherView) -> None:
    """Agent mode: the worker's tool calls as they happen (tool, arguments, results, time)."""
    if not r.tool_calls:
        return
    lines = []
    for call in r.tool_calls:
        args = ", ".join(f"{k}={v}" for k, v in call.args.items())
        status = call.status
        lines.append(
            f"- {_TOOL_STATUS.get(status, '')} **{md_escape(call.tool or '?')}** {md_escape(args)} "
            f"→ **{call.result_count}** · {duration(call.seconds)}"
            + (f" · :gray[{md_escape(status.replace('_', ' '))}]" if status != "ok" else "")
        )
    st.markdown(f":material/construction: **{plural(len(r.tool_calls), 'tool call')}**\n" + "\n".join(lines))


def render_dropped(r: ResearcherView) -> None:
    """The results relevance kept out of the run, each with its reason (titles are web text: escaped)."""
    if not r.dropped:
        return
    rules = Counter(_RULE_WORDS[d.rule] for d in r.dropped)
    why = "as off-topic" if set(rules) == {"off-topic"} else "(" + ", ".join(f"{w} {n}" for w, n in rules.items()) + ")"
    with st.expander(f":material/filter_alt_off: {plural(len(r.dropped), 'result')} dropped {why}"):
        st.markdown(
            "\n".join(
                f"- {md_escape(d.title)} · {_RULE_WORDS[d.rule]} · score {d.score:.2f} · {md_escape(d.reason)}"
                for d in r.dropped[:30]
            )
        )


# A drop's rule in words: the relevance filter, or one of the run's source controls.
_RULE_WORDS = {
    "off_topic": "off-topic",
    "min_relevance": "below minimum relevance",
    "years": "outside the years",
    "include_domains": "not an included domain",
    "exclude_domains": "excluded domain",
    "peer_reviewed": "not peer reviewed",
}


_STEP_WORDS = {"queries": "writing queries", "notes": "writing notes"}


def _model_progress(r: ResearcherView) -> None:
    """ "writing notes, 120 tokens" while the model streams this researcher's reply."""
    if r.status == "running" and r.model_step:
        words = _STEP_WORDS.get(r.model_step, r.model_step)
        st.caption(f":material/edit_note: {words}, {plural(r.model_tokens, 'token')}")
