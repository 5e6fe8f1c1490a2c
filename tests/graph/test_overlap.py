"""Desk work that needs no model reply runs while the node's model call waits (research/graph/overlap.py)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from bench.loopback import LoopbackWorld
from research.graph.nodes import analyst as analyst_node
from research.graph.overlap import beside
from tests.fakes.scripted_model import requested_schema_name


def test_work_beside_gives_its_value_and_its_error() -> None:
    assert beside(lambda: 6 * 7).result(timeout=30) == 42
    with pytest.raises(ZeroDivisionError):
        beside(lambda: 1 / 0).result(timeout=30)


def test_the_analyst_works_out_its_coverage_while_its_model_call_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fake model holds the analyst's reply until the coverage is done: with the coverage
    worked out after the reply (as before), each wait would run out instead."""
    covered = threading.Event()
    real = analyst_node.run_coverage

    def recording(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        covered.set()
        return result

    monkeypatch.setattr(analyst_node, "run_coverage", recording)
    waits: list[bool] = []

    def hold_the_verdict(responder: Any) -> Any:
        def respond(request: dict[str, Any]) -> Any:
            if requested_schema_name(request) == "AnalystVerdict":
                waits.append(covered.wait(timeout=60))
            covered.clear()  # each review's own coverage, not one left over from before
            return responder(request)

        return respond

    with LoopbackWorld(tmp_path / "data", tmp_path / "logs", model_latency=0.0, search_latency=0.0) as world:
        world.wrap_model(hold_the_verdict)
        run = world.run("111", max_iterations=1)
    assert run.status == "finished"
    assert waits == [True, True]  # both reviews: the coverage was ready before the reply was sent
    critiques = [e for e in run.events if e.type == "critique_issued"]
    assert len(critiques) == 2 and all(c.data.coverage for c in critiques)
