"""The one citation-marker pattern of the project: `[3]`, but not a markdown link `[3](...)`,
and the prompts' internal delimiters, which no output may carry.

Every module that reads, removes or renumbers markers uses these, so the writer, the guard,
revisions and the claim check agree on what a citation is. A model echoes its prompt's
`<<<DRAFT>>>`, `<<<SOURCES>>>` or `<source n="2" ...>` tags at times (a 135M model did):
`strip_internal_markers` removes them, and their defused forms (`‹‹‹DRAFT›››`), from any text.
"""

from __future__ import annotations

import re

CITATION_MARKER = re.compile(r"\[(\d{1,3})\](?!\()")
# [1, 3] or [2-4]: several sources in one bracket, split into single markers before checking.
GROUPED_MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,;–-]\s*\d{1,3})+)\](?!\()")

# <<<DRAFT>>>, <<<END SOURCES>>>, <<NOTES>>, ‹‹‹DRAFT››› (prompts.neutralise's form), and the tags
# around sources, topics and instructions. Bounded quantifiers and no nesting: linear time.
INTERNAL_MARKER = re.compile(
    r"(?:<{2,3}|‹{2,3})\s{0,3}(?:END\s{1,3})?(?:DRAFT|SOURCES?|NOTES|TOPIC|INSTRUCTION)\s{0,3}(?:>{1,3}|›{1,3})?"
    r"|[<‹]/?(?:source|topic|instruction)\b[^<>‹›\n]{0,300}[>›]",
    re.IGNORECASE,
)


def strip_internal_markers(text: str) -> str:
    """`text` without any of the prompts' internal delimiters."""
    return INTERNAL_MARKER.sub("", text)
