"""The price table: defaults, dated snapshots, RESEARCH_PRICES overrides, and no guesses."""

from __future__ import annotations

import json

import pytest

from research.brains.llm.pricing import DEFAULT_PRICES, Price, estimate_cost, load_price_table, price_for
from research.schemas.state_shapes import Usage

USAGE = Usage(calls=1, prompt_tokens=2_000_000, completion_tokens=1_000_000)


def test_default_price_and_dated_snapshot() -> None:
    table = load_price_table("")
    assert estimate_cost("gpt-4o-mini", USAGE, table) == pytest.approx(2 * 0.15 + 1 * 0.60)
    # A dated snapshot prices as its family, and the longest family name wins (not "gpt-4o").
    assert price_for("gpt-4o-mini-2024-07-18", table) == DEFAULT_PRICES["gpt-4o-mini"]
    assert price_for("openai/gpt-4o", table) == DEFAULT_PRICES["gpt-4o"]


def test_unknown_model_has_no_estimate() -> None:
    assert estimate_cost("llama3.1:8b", USAGE, load_price_table("")) is None


def test_env_overrides_extend_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "RESEARCH_PRICES",
        json.dumps({"llama3.1:8b": {"prompt": 0, "completion": 0}, "gpt-4o-mini": [1, 2], "*": [0.5, 0.5]}),
    )
    table = load_price_table()
    assert estimate_cost("llama3.1:8b", USAGE, table) == 0
    assert table["gpt-4o-mini"] == Price(1, 2)
    assert estimate_cost("some-local-model", USAGE, table) == pytest.approx(1.5)  # the wildcard


def test_malformed_override_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_PRICES", '{"gpt-4o-mini": "cheap"}')
    assert load_price_table() == DEFAULT_PRICES


def test_usage_sums_costs_and_keeps_unknown_as_none() -> None:
    assert (Usage(cost_usd=0.5) + Usage(cost_usd=0.25)).cost_usd == 0.75
    assert (Usage(cost_usd=0.5) + Usage()).cost_usd == 0.5
    assert (Usage() + Usage()).cost_usd is None


def test_a_call_without_a_price_makes_the_sum_unknown_not_smaller() -> None:
    unknown = Usage(calls=1, prompt_tokens=10, completion_tokens=5)  # a model the table does not name
    assert (Usage(calls=1, prompt_tokens=1, cost_usd=0.5) + unknown).cost_usd is None
    assert (unknown + Usage(calls=1, prompt_tokens=1, cost_usd=0.5)).cost_usd is None
    assert (Usage(calls=1, failed_calls=1, cost_usd=0.0) + Usage()).cost_usd == 0.0  # known and free


def test_the_meter_reports_null_cost_for_a_model_without_a_price() -> None:
    from research.brains.llm.usage_meter import UsageMeter

    meter = UsageMeter(max_calls=10, max_tokens=10_000, prices=load_price_table(""))
    meter.record("gpt-4o-mini", Usage(calls=1, prompt_tokens=1000, completion_tokens=100))
    meter.record("my-local-model", Usage(calls=1, prompt_tokens=1000, completion_tokens=100))
    assert meter.take().cost_usd is None
    meter.record("gpt-4o-mini", Usage(calls=1, prompt_tokens=1000, completion_tokens=100))
    assert meter.take().cost_usd == pytest.approx((1000 * 0.15 + 100 * 0.60) / 1e6)


def test_the_run_json_says_null_when_one_usage_event_has_no_price() -> None:
    from research.events import Event
    from research.runs.view import RunView, fold, to_json

    def usage(seq: int, cost: float | None) -> Event:
        data = {"node": "writer", "calls": 1, "prompt_tokens": 100, "completion_tokens": 10, "cost_usd": cost}
        return Event(type="usage", run_id="r", seq=seq, data=data)

    priced = to_json(fold([usage(1, 0.002), usage(2, 0.001)], RunView(run_id="r")))
    assert priced["usage"]["cost_usd"] == pytest.approx(0.003)
    mixed = to_json(fold([usage(1, 0.002), usage(2, None), usage(3, 0.001)], RunView(run_id="r")))
    assert mixed["usage"]["cost_usd"] is None and mixed["usage"]["calls"] == 3
