"""The writer sees its sources in one order, whatever order the parallel researchers finished in, so
the same run writes the same draft in-process and on a server."""

from __future__ import annotations

import random

from research.graph.nodes.writer import MAX_SOURCES_FOR_WRITER, writing_order
from research.schemas.state_shapes import Source


def _source(i: int, kind: str, relevance: float) -> Source:
    return Source(title=f"Doc {i}", url=f"https://example.org/{i}", kind=kind, provider="p", relevance=relevance)


def test_arrival_order_does_not_change_what_the_writer_sees() -> None:
    sources = [_source(i, ("web", "academic", "book")[i % 3], (i % 5) / 4) for i in range(60)]
    expected = writing_order(sources)
    for seed in range(5):
        shuffled = sources[:]
        random.Random(seed).shuffle(shuffled)
        assert writing_order(shuffled) == expected
    assert len(expected) == MAX_SOURCES_FOR_WRITER
    assert [s.relevance for s in expected] == sorted((s.relevance for s in expected), reverse=True)  # best first


def test_among_equally_relevant_sources_the_more_reliable_come_first() -> None:
    from research.sources.reliability import with_reliability

    pages = [
        Source(title=f"Page {host}", url=f"https://{host}/p", kind="web", provider="ddgs", relevance=1.0)
        for host in ("blog.example.com", "shop.example.com", "www.cdc.gov")  # their ids sort the other way
    ]
    scored = [with_reliability(p) for p in pages]
    weaker = _source(99, "web", 0.5)
    order = writing_order([*scored, weaker])
    assert [s.domain for s in order] == ["cdc.gov", "shop.example.com", "blog.example.com", "example.org"]
