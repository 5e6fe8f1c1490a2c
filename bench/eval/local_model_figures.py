"""What a reader checks in one model-written draft: factual sentences cited, cited sentences that
their source supports (the offline claim check, independent of the model that wrote them), and
cited sentences copied verbatim from their source (does the model write, or only quote?), and of
the rest, those condensed from one source sentence (its words, in its order, phrases left out)."""

from __future__ import annotations

import re
from typing import Any

from research.brains.llm.grounded_writer import NO_ANSWER, THIN
from research.drafts.citations import SOURCES_HEADING
from research.drafts.claims import check_claims, cited_sentences
from research.drafts.markers import CITATION_MARKER
from research.text import split_sentences
from research.text.copying import COPIED_AT, condensed_from, copied_share

_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
# The desk's own lines, not findings: a section with nothing to rest on, an empty run's draft.
_DESK_LINES = (NO_ANSWER, "No relevant sources were found", "The sources found do not answer")
_DESK_SENTENCES = (THIN,)  # the desk's own sentence after a section's findings


def factual_sentences(markdown: str) -> list[str]:
    """The body's sentences a reader takes as findings (not headings, Known gaps, lists of
    searches or the desk's own "nothing answers this" lines)."""
    body = markdown.split(f"\n{SOURCES_HEADING}", 1)[0]
    out: list[str] = []
    section = ""
    for line in body.splitlines():
        heading = _HEADING.match(line.strip())
        if heading:
            section = heading.group(1).strip().lower()
            continue
        if not line.strip() or section == "known gaps" or line.lstrip().startswith(("-", "*")):
            continue
        if any(phrase in line for phrase in _DESK_LINES):
            continue  # the desk's own paragraph (an empty run's, a section with nothing to rest on)
        out.extend(s.strip() for s in split_sentences(line) if s.strip() not in _DESK_SENTENCES)
    return out


def draft_figures(markdown: str, citations: dict[str, str], texts: dict[str, str]) -> dict[str, Any]:
    numbered = {int(n): sid for n, sid in citations.items()}
    factual = factual_sentences(markdown)
    cited = cited_sentences(markdown)
    checked = check_claims(markdown, numbered, lambda sid: texts.get(sid, ""))
    claims = [c for c in checked if c.verdict != "unverifiable"]
    supported_sentences = {c.sentence for c in claims if c.verdict == "supported"}
    copied = sum(
        1
        for c in cited
        if any(copied_share(c.claim, texts.get(numbered.get(n, ""), "")) >= COPIED_AT for n in c.numbers)
    )
    return {
        "factual_sentences": len(factual),
        "factual_cited": sum(1 for s in factual if CITATION_MARKER.search(s)),
        "cited_sentences": len(cited),
        "cited_supported_offline": sum(1 for c in cited if c.claim in supported_sentences),
        "copied_verbatim": copied,
        # Not copied, but one source sentence with phrases left out (the writer's condensing pass):
        # said apart, so "not copied" is never read as "written in the model's own words".
        "condensed": sum(
            1 for c in cited if any(condensed_from(c.claim, texts.get(numbered.get(n, ""), "")) for n in c.numbers)
        ),
    }
