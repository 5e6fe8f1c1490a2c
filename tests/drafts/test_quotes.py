"""Quotes: every character of identifiers, numbers and units kept, markup constructs dropped, the
quote escaped into the draft so it renders as exactly itself, and linear time on hostile input."""

from __future__ import annotations

import gc
import time

import pytest
from markdown_it import MarkdownIt

from research.brains.offline.offline_writer import units_of
from research.text.quote import clean_quoted_sentence, md_quote, md_unquote, plain_text

EXACT = [
    "Use Tokio's spawn_blocking for blocking work, never a bare std::thread::sleep in async code.",
    "Python calls __init__ on every new object, and _private names are a convention only today.",
    "The upgrade cost $5 million and cut p99 latency from ~120 ms to 45 ms at 10:30 each night.",
    "C# and C++ teams reported 3.5x faster builds, with 95% of 1,000 builds under 2 min.",
    "A | B tables, {braces}, <= and >= comparisons and a*b products are all written as they are.",
]


@pytest.mark.parametrize("sentence", EXACT)
def test_a_quote_keeps_identifiers_numbers_and_units_exactly(sentence: str) -> None:
    assert clean_quoted_sentence(sentence) == sentence


@pytest.mark.parametrize("sentence", EXACT)
def test_a_quote_renders_as_itself_in_the_draft(sentence: str) -> None:
    markdown = md_quote(sentence)
    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parseInline(markdown)
    children = tokens[0].children or []
    assert all(child.type == "text" for child in children), [c.type for c in children]  # no markup at all
    assert "".join(child.content for child in children) == sentence
    assert md_unquote(markdown) == sentence


def test_markup_constructs_go_and_their_text_stays() -> None:
    source = (
        "The **runtime** offers `spawn_blocking` (see [the docs](https://docs.rs/tokio) or <https://x.org>) "
        "and ~~never~~ _two words_ about it [12], with <b>tags</b> dropped and array[0] kept."
    )
    assert clean_quoted_sentence(source) == (
        "The runtime offers spawn_blocking (see the docs or) and never two words about it, "
        "with tags dropped and array[0] kept."
    )


def test_the_writer_quotes_a_code_identifier_exactly() -> None:
    text = (
        "Rust teams should keep lock scopes short and use Tokio's `spawn_blocking` for blocking operations "
        "in async services. Go teams should run their tests with the race detector enabled every time."
    )
    units = units_of("s1", text)
    assert units and "Tokio's spawn_blocking for blocking operations" in units[0].text
    assert plain_text("Tokio's `spawn_blocking`") == "Tokio's spawn_blocking"


HOSTILE = ["[a", "![a", "<a", "`a", "*a ", "_a ", ":a[", "[a](", "a](", "[1]", "http://a ", "~~a", "\\*a"]


def _seconds(text: str) -> float:
    """CPU seconds of this thread: other processes on a busy machine do not count against it."""
    t0 = time.thread_time()
    clean_quoted_sentence(text)
    return time.thread_time() - t0


@pytest.mark.parametrize("unit", HOSTILE)
def test_quoting_hostile_text_takes_linear_time(unit: str) -> None:
    """Twice the input may take at most three times as long (a quadratic scan takes four). The two
    sizes are measured in turn, in this thread's CPU time, five rounds, best of each; the
    cyclic collector is off meanwhile (as timeit does), since a full collection of the test
    process's heap in one size's rounds and not the other's is not the scan's cost."""
    small = unit * (40_000 // len(unit))
    large = small * 2
    _seconds(small)  # warm up
    t1 = t2 = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            t1, t2 = min(t1, _seconds(small)), min(t2, _seconds(large))
    finally:
        gc.enable()
    assert t2 <= 3 * t1 + 0.05, (unit, t1, t2)
