"""Model usage: calls, tokens and estimated cost, per node and for the whole run."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from research.api import REVISION_USAGE_NODE, Node, RunView

# Every name a usage event's `node` can carry: each node of the graph, and a draft revision's
# (tests/ui/test_usage_panel.py walks the Node enum, so a new node gets its label here).
NODE_LABELS: dict[str, str] = {
    Node.BEGIN: "Start",
    Node.SUPERVISOR: "Supervisor",
    Node.PLAN_REVIEW: "Plan review",
    Node.RESEARCHER: "Researchers",
    Node.ANALYST: "Analyst",
    Node.FOLLOW_UP: "Follow-up",
    Node.WRITER: "Writer",
    Node.CLAIM_CHECK: "Claim check",
    Node.REVIEWER: "Reviewer",
    Node.FINISH: "Finish",
    REVISION_USAGE_NODE: "Draft revisions",
}


def step_label(node: str) -> str:
    """The usage row's label; a name this desk does not know (a log from another version) in words."""
    return NODE_LABELS.get(node) or node.replace("_", " ").strip().capitalize() or node


def usage_frame(view: RunView) -> pd.DataFrame:
    rows = [
        {
            "Step": step_label(node),
            "Calls": n.calls,
            "Failed": n.failed_calls,
            "Prompt tokens": n.prompt_tokens,
            "Completion tokens": n.completion_tokens,
        }
        for node, n in view.usage.by_node.items()
    ]
    totals = view.usage
    rows.append(
        {
            "Step": "Total",
            "Calls": totals.calls,
            "Failed": totals.failed_calls,
            "Prompt tokens": totals.prompt_tokens,
            "Completion tokens": totals.completion_tokens,
        }
    )
    return pd.DataFrame(rows)


def render(view: RunView) -> None:
    """Nothing for an offline run: it makes no model calls."""
    totals = view.usage
    if not totals.calls:
        return
    tokens = totals.prompt_tokens + totals.completion_tokens
    cost = " · price unknown" if totals.cost_usd is None else f" · about \\${totals.cost_usd:.4f}"
    failed = f" ({totals.failed_calls} failed)" if totals.failed_calls else ""
    with st.expander(f"Model usage: {totals.calls} calls{failed}, {tokens:,} tokens{cost}", icon=":material/token:"):
        st.dataframe(usage_frame(view), hide_index=True, key=f"usage-{view.run_id}")
        st.caption(
            "Costs are estimates from the price table (RESEARCH_PRICES); tokens as the server counted them "
            "(counted from the stream where a server reports none). Failed attempts count as calls: each "
            "used a unit of RESEARCH_MAX_LLM_CALLS."
        )
