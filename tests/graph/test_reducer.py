"""merge_sources: the reducer that merges parallel researchers' sources without duplicates."""

from __future__ import annotations

import operator
from typing import get_type_hints

from research.graph.state import ResearcherState, ResearchState, merge_sources
from research.schemas.state_shapes import Source
from research.schemas.urls import normalise_url


def src(url: str, title: str, provider: str = "test") -> Source:
    return Source(title=title, url=url, kind="web", provider=provider)


def titles(sources: list[Source]) -> list[str]:
    return [s.title for s in sources]


def test_url_variants_are_one_source_and_the_first_occurrence_wins() -> None:
    first = src("https://example.com/guide", "first")
    variants = [
        src("http://example.com/guide", "http"),
        src("https://www.example.com/guide", "www"),
        src("https://example.com/guide/", "trailing slash"),
        src("https://EXAMPLE.com/guide", "upper-case host"),
        src("https://example.com/guide?utm_source=news&utm_medium=mail", "utm params"),
        src("https://example.com/guide?fbclid=abc", "fbclid"),
        src("https://example.com/guide#section-2", "fragment"),
    ]
    merged = merge_sources([first], variants)
    assert titles(merged) == ["first"]
    # Also when the duplicates arrive in one batch, with nothing merged before.
    assert titles(merge_sources(None, [variants[0], first, *variants[1:]])) == ["http"]


def test_different_pages_stay_distinct() -> None:
    merged = merge_sources(
        [],
        [
            src("https://example.com/guide", "a"),
            src("https://example.com/guide?page=2", "b"),  # a real query parameter
            src("https://example.com/guide/part-2", "c"),
            src("https://other.example.com/guide", "d"),
        ],
    )
    assert titles(merged) == ["a", "b", "c", "d"]


def test_order_is_stable_existing_first_then_new_in_arrival_order() -> None:
    existing = [src("https://a.org/1", "A"), src("https://b.org/1", "B")]
    new = [src("https://c.org/1", "C"), src("https://a.org/1/", "A again"), src("https://d.org/1", "D")]
    merged = merge_sources(existing, new)
    assert titles(merged) == ["A", "B", "C", "D"]
    assert titles(existing) == ["A", "B"]  # the reducer does not mutate its inputs


def test_sources_without_url_dedupe_by_id() -> None:
    a = Source(title="Handbook of Things", kind="book", provider="library")
    same = Source(title="Handbook of Things", kind="book", provider="library")
    other = Source(title="Companion to Things", kind="book", provider="library")
    assert titles(merge_sources([a], [same, other])) == ["Handbook of Things", "Companion to Things"]


def test_none_inputs() -> None:
    assert merge_sources(None, None) == []


def test_normalise_url() -> None:
    assert normalise_url("http://www.Example.com/a/?utm_campaign=x&q=1#top") == "https://example.com/a?q=1"


def test_the_reducer_is_wired_into_both_states() -> None:
    for state in (ResearchState, ResearcherState):
        hint = get_type_hints(state, include_extras=True)["sources"]
        assert merge_sources in hint.__metadata__
    assert operator.add in get_type_hints(ResearchState, include_extras=True)["reports"].__metadata__
