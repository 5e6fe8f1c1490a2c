"""What keeps the CommonMark parser cheap on outside Markdown (drafts from bundles, models, imports).

markdown-it-py is linear in its input, but bracket openers are its most expensive characters: at
each `[` or `![` it scans ahead for the closing `]`, trying every inline rule at every position on
the way (about 14 rule calls per character of `![a` repeated, against 1.5 for lines of text).
An opener with no `]` anywhere after it in its paragraph can never be a link or an image, so its
rules answer "no" at once instead of scanning (one `rfind` per paragraph): what any text parses
to is unchanged.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.parser_inline import RuleFuncInlineType
from markdown_it.rules_inline import StateInline

_LAST_CLOSE = "research_last_close"  # (paragraph, where its last `]` is), found once per paragraph


def skip_unclosable_openers(parser: MarkdownIt) -> None:
    """Wrap the parser's `link` and `image` rules: an opener after the paragraph's last `]` is text."""
    for name, opener in (("link", "["), ("image", "!")):
        rule = next(r.fn for r in parser.inline.ruler.__rules__ if r.name == name)
        parser.inline.ruler.at(name, _closable_only(rule, opener))


def _closable_only(rule: RuleFuncInlineType, opener: str) -> RuleFuncInlineType:
    def closable(state: StateInline, silent: bool) -> bool:
        if state.src[state.pos] != opener:
            return False
        # Kept in the parse's env, not on the state: a new attribute there would slow every other
        # attribute read of the state (CPython stops sharing its instance dict's keys).
        seen = state.env.get(_LAST_CLOSE)
        if seen is None or seen[0] is not state.src:
            seen = state.env[_LAST_CLOSE] = (state.src, state.src.rfind("]"))
        if seen[1] < state.pos:
            return False  # no `]` follows: no label can end, so neither a link nor an image starts here
        return rule(state, silent)

    return closable
