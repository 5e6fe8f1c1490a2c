"""Model usage per step and for the run, shown from the run's usage events."""

from __future__ import annotations

import time

from research.api import Event, RunStore, RunView
from research.events.payloads import UsageReported
from research.graph.nodes import Node
from research.runs.revision import USAGE_NODE
from tests.ui.canned import append_event, store_canned_run
from ui.panels.usage import NODE_LABELS, usage_frame


def _add_usage(data_dir, run_id: str) -> None:
    store = RunStore(data_dir / "runs.sqlite")
    seq = store.last_seq(run_id)
    for i, (node, calls, prompt, completion, cost) in enumerate(
        [("supervisor", 1, 900, 120, 0.0002), ("researcher", 3, 2400, 300, 0.0004), ("writer", 1, 5000, 900, 0.0011)], 1
    ):
        store.append_event(
            Event(
                type="usage",
                run_id=run_id,
                seq=seq + i,
                ts=time.time(),
                data={
                    "node": node,
                    "calls": calls,
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "cost_usd": cost,
                },
            )
        )


def test_usage_per_step_and_total(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    _add_usage(data_dir, run_id)
    at = make_app(run_id).run()
    assert not at.exception
    expander = next(e for e in at.expander if e.label.startswith("Model usage"))
    assert "5 calls" in expander.label and "9,620 tokens" in expander.label and "0.0017" in expander.label
    frame = next(d.value for d in at.dataframe if "Step" in d.value.columns)
    assert list(frame["Step"]) == ["Supervisor", "Researchers", "Writer", "Total"]
    assert list(frame["Calls"]) == [1, 3, 1, 5]
    assert frame.iloc[-1]["Prompt tokens"] == 8300


def test_an_offline_run_shows_no_usage_panel(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    assert not any(e.label.startswith("Model usage") for e in at.expander)


def test_failed_attempts_are_counted_and_labelled(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    append_event(
        data_dir,
        run_id,
        "usage",
        {
            "node": "supervisor",
            "calls": 2,
            "failed_calls": 1,
            "prompt_tokens": 300,
            "completion_tokens": 40,
            "cost_usd": None,
        },
    )
    at = make_app(run_id).run()
    expander = next(e for e in at.expander if e.label.startswith("Model usage"))
    assert "2 calls (1 failed)" in expander.label
    frame = next(d.value for d in at.dataframe if "Step" in d.value.columns)
    assert list(frame["Failed"]) == [1, 1]


def test_a_run_with_an_unpriced_model_says_price_unknown(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    _add_usage(data_dir, run_id)  # three priced steps
    append_event(
        data_dir,
        run_id,
        "usage",
        {"node": "writer", "calls": 1, "prompt_tokens": 10, "completion_tokens": 5, "cost_usd": None},
    )
    at = make_app(run_id).run()
    expander = next(e for e in at.expander if e.label.startswith("Model usage"))
    assert "price unknown" in expander.label and "$" not in expander.label and "0.0017" not in expander.label


def test_the_review_steps_and_revisions_show_by_their_names(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    for node in ("claim_check", "reviewer", "revision"):  # what the claim check, reviewer and a revision log
        append_event(data_dir, run_id, "usage", {"node": node, "calls": 1, "prompt_tokens": 10, "completion_tokens": 5})
    at = make_app(run_id).run()
    frame = next(d.value for d in at.dataframe if "Step" in d.value.columns)
    assert list(frame["Step"]) == ["Claim check", "Reviewer", "Draft revisions", "Total"]  # before: the raw names


def test_every_node_a_usage_event_can_name_has_a_label():
    """Walks the graph's nodes (and a revision's usage node): a node added later needs its label."""
    names = [node.value for node in Node] + [USAGE_NODE]
    assert [name for name in names if name not in NODE_LABELS] == []
    view = RunView(run_id="r1")
    for name in names:
        view.usage.add(UsageReported(node=name, calls=1))
    steps = list(usage_frame(view)["Step"])
    assert steps == [NODE_LABELS[name] for name in names] + ["Total"]
    assert len(set(steps)) == len(steps) and not set(steps) & set(names)  # distinct, and never a raw name
