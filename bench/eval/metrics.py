"""The figures of one eval run, from its stored events and sources (what a reader would check)."""

from __future__ import annotations

import re
from typing import Any

from research.brains.offline.offline_writer import _LEANS_BACK
from research.drafts.citations import CITATION, SOURCES_HEADING
from research.drafts.review import find_issues
from research.runs.view import RunView
from research.schemas.state_shapes import CheckedClaim
from research.text import split_sentences

EMPTY_DRAFT_PHRASE = "No relevant sources were found"
_URL = re.compile(r"https?://[^\s)>\]]+")


def _library_topic(url: str) -> str | None:
    match = re.match(r"library://sample/([^/]+)/", url or "")
    return match.group(1) if match else None


def orphan_openers(body: str) -> int:
    """Sentences that open by leaning on a previous one ("It...", "This review...") but stand first
    in their paragraph or right after another source's cited sentence: their referent is missing."""
    count = 0
    for paragraph in re.split(r"\n\s*\n", body):
        if paragraph.lstrip().startswith(("#", "-")):
            continue
        previous = None
        for sentence in split_sentences(paragraph):
            if _LEANS_BACK.match(sentence.strip()) and (previous is None or CITATION.search(previous)):
                count += 1
            previous = sentence
    return count


def figures(view: RunView, *, library_topic: str | None, uncovered: bool, imported: bool) -> dict[str, Any]:
    draft = view.draft or ""
    body = draft.split(f"\n{SOURCES_HEADING}", 1)[0]
    markers = {int(n) for n in CITATION.findall(body)}
    cited_ids = {view.citations.get(str(n)) for n in markers}
    # Invented or unresolvable: a marker with no source in the citation map or among the run's
    # sources, or a URL in the body that no source has.
    invented = sum(1 for n in markers if view.citations.get(str(n)) not in view.sources)
    known_urls = {s.url for s in view.sources.values()}
    invented += sum(1 for url in _URL.findall(body) if url not in known_urls)
    cited = [view.sources[i] for i in cited_ids if i in view.sources]
    if uncovered:
        off_topic = len(cited)
    elif imported:
        off_topic = sum(1 for s in cited if not s.url.startswith("library://upload/"))
    else:
        off_topic = sum(1 for s in cited if _library_topic(s.url) != library_topic)
    claims: list[CheckedClaim] = list(view.claims.claims) if view.claims else []
    detail = view.evidence_detail
    repeated = len(find_issues(draft, [], []).repeated)
    return {
        "status": view.status,
        "evidence": view.evidence,
        "claims": len(claims),
        "supported": sum(c.verdict == "supported" for c in claims),
        "checked": sum(c.verdict != "unverifiable" for c in claims),
        "citation_precision": view.citation_precision,
        "invented_citations": invented,
        "cited_sources": len(cited),
        "off_topic_cited": off_topic,
        "questions": detail.questions if detail else len(view.research_questions),
        "questions_covered": detail.questions_covered if detail else 0,
        "repeated_sentences": repeated,
        "orphan_openers": orphan_openers(body),
        "says_empty": EMPTY_DRAFT_PHRASE in draft and view.evidence == "none",
        "draft_versions": 1 + len(view.revisions),
    }
