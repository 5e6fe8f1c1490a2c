"""The client-CPU bench (bench/critical_path_client.py) runs both readers on every reply shape and
reports each one's figures; how fast they are is the bench's to say, not a test's."""

from __future__ import annotations

from bench.critical_path_client import SHAPES, measure


def test_the_client_bench_reports_both_readers_for_every_shape() -> None:
    result = measure(calls=1)
    assert set(result["shapes"]) == set(SHAPES)
    for row in result["shapes"].values():
        assert row["chunked_ms"] > 0 and row["raw_ms"] > 0
        assert row["raw_over_chunked"] > 0
