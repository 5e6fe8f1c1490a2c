"""The price table: defaults, dated snapshots, RESEARCH_PRICES overrides, and no guesses."""

from __future__ import annotations

import json

import pytest

from research.brains.pricing import DEFAULT_PRICES, Price, estimate_cost, load_price_table, price_for
from research.schemas import Usage

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
