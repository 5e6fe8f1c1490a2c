"""The model-call bench (bench/model_call_cost.py) times calls one after another on one kept
connection; how fast they are is the bench's to say, not a test's."""

from __future__ import annotations

import pytest

from bench.model_call_cost import measure
from research.brains.llm import chat_request


def test_the_model_call_bench_reports_its_figures_over_one_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat_request, "DRAIN_SECONDS", 30.0)  # reuse, not the drain's time bound, on a busy machine
    result = measure(calls=3)
    assert result["calls"] == 3 and result["client_cpu_ms"] > 0 and result["over_model_ms"] > 0
    assert result["connections"] == 0  # the warm-up's connection served every timed call
