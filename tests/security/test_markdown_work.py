"""The Markdown parser's work on outside text, counted (not timed): its inline rule calls.

Twice the input is twice the work on every hostile form of test_linear_time; an image or link
opener that can never close costs what other punctuation costs; and the parser still reads every
text as CommonMark does."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest
from markdown_it import MarkdownIt

from research.drafts import sanitiser
from research.drafts.sanitiser import sanitise_markdown
from tests.security.test_linear_time import MARKDOWN

_unique = itertools.count()


class RuleCalls:
    """Counts every inline rule call of the sanitiser's parser while installed."""

    def __init__(self) -> None:
        self.calls = 0

    def of(self, text: str) -> int:
        """The inline rule calls of sanitising `text` (made unique: the sanitiser caches answers)."""
        before = self.calls
        sanitise_markdown(f"{text}\n\n{next(_unique)}")
        return self.calls - before


@pytest.fixture
def rule_calls() -> Iterator[RuleCalls]:
    counter = RuleCalls()
    ruler = sanitiser._PARSER.inline.ruler
    originals = [(rule, rule.fn) for rule in ruler.__rules__]

    def counted(fn: Callable[..., bool]) -> Callable[..., bool]:
        def rule(state: object, silent: bool) -> bool:
            counter.calls += 1
            return fn(state, silent)

        return rule

    for rule, fn in originals:
        rule.fn = counted(fn)
    ruler.__cache__ = None  # the compiled chains hold the functions
    try:
        yield counter
    finally:
        for rule, fn in originals:
            rule.fn = fn
        ruler.__cache__ = None


def sized(make: Callable[[int], str], chars: int) -> str:
    """`make`'s input of about `chars` characters."""
    return make(max(1, chars // max(1, len(make(64)) // 64)))


@pytest.mark.parametrize("form", sorted(MARKDOWN))
def test_twice_the_input_is_twice_the_parsers_work(rule_calls: RuleCalls, form: str) -> None:
    make = MARKDOWN[form]
    small, large = sized(make, 8_000), sized(make, 16_000)
    work_small, work_large = rule_calls.of(small), rule_calls.of(large)
    if work_small < 100:
        assert work_large < 200, (work_small, work_large)  # next to no inline work either way
        return
    ratio = (work_large / len(large)) / (work_small / len(small))
    assert 0.9 <= ratio <= 1.1, f"{form}: rule calls per character grew {ratio:.2f}x at twice the input"


@pytest.mark.parametrize("opener", ["![a", "[a", "["])
def test_an_opener_that_cannot_close_costs_like_other_punctuation(rule_calls: RuleCalls, opener: str) -> None:
    n = 5_000
    unclosable = rule_calls.of(opener * n)
    punctuation = rule_calls.of(opener.replace("[", "+") * n)  # the same characters, no opener
    assert unclosable <= 1.2 * punctuation, (unclosable, punctuation)


# Links, images, references, code spans, escapes, autolinks, tables and quotes, with openers
# that close and openers that never do.
DOCUMENTS = (
    "![a![b](http://x/i.png) [see](https://example.org) [a [b] c](https://e.org) [x\n\n"
    "[[a]](u) [![i](j)](k) [x [y] z](u) [c][d] [d]\n\n[d]: http://z\n\ntext ] then [open and ![img",
    "[a `]` b](u) `[` ](v) [a\\]](u) \\[b](v) <http://a]> [t](<u>)\n\n"
    "| a | [b |\n|---|---|\n| ![c | d] |\n\n> [q\n> ](http://q)",
)


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_the_parser_reads_every_text_as_commonmark_does(doc: str) -> None:
    plain = MarkdownIt("commonmark", {"maxNesting": sanitiser.MAX_NESTING}).enable(["table", "strikethrough"])
    plain.validateLink = lambda url: True  # type: ignore[method-assign]
    assert [t.as_dict() for t in sanitiser._PARSER.parse(doc)] == [t.as_dict() for t in plain.parse(doc)]
