"""Citations: [n] markers in a draft, the numbered Sources list, and checks after a user edits."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from research.drafts.inert import md_literal, source_link
from research.drafts.markers import CITATION_MARKER as CITATION
from research.schemas.state_shapes import Source

SOURCES_HEADING = "## Sources"
_URL = re.compile(r"https?://[^\s)>\]]+")


@dataclass
class CitedDraft:
    markdown: str
    citations: dict[int, str]  # n -> source id
    dropped: list[int]  # markers that pointed at no source and were removed
    renumbered: dict[int, int] = field(default_factory=dict)  # old n -> new n, where they differ


def finalize_citations(body: str, numbered: dict[int, Source]) -> CitedDraft:
    """Renumber [n] by first appearance, drop markers without a source, append the Sources list.

    The brain cites the numbering it was given; readers want 1, 2, 3 in reading order and only
    sources that are actually cited.
    """
    body = _strip_sources_section(body)
    renumber: dict[int, int] = {}
    dropped: list[int] = []

    def replace(match: re.Match[str]) -> str:
        old = int(match.group(1))
        if old not in numbered:
            dropped.append(old)
            return ""
        if old not in renumber:
            renumber[old] = len(renumber) + 1
        return f"[{renumber[old]}]"

    text = CITATION.sub(replace, body)
    text = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).rstrip()
    citations = {new: numbered[old].id for old, new in renumber.items()}
    by_new = {new: numbered[old] for old, new in renumber.items()}
    lines = [text, "", SOURCES_HEADING, ""]
    lines += [format_source_entry(n, by_new[n]) for n in sorted(by_new)] or ["No sources were cited."]
    return CitedDraft(
        markdown="\n".join(lines) + "\n",
        citations=citations,
        dropped=sorted(set(dropped)),
        renumbered={old: new for old, new in renumber.items() if old != new},
    )


def format_source_entry(n: int, source: Source) -> str:
    # Titles and authors come from outside: literal text, never markup (inert.md_literal).
    authors = ", ".join(source.authors[:3]) + (" et al." if len(source.authors) > 3 else "")
    parts = [f"[{n}] {md_literal(source.title)}"]
    if authors:
        parts.append(md_literal(authors))
    if source.year:
        parts.append(str(source.year))
    parts.append(md_literal(f"{source.kind}, {source.provider}"))
    entry = ". ".join(parts)
    return f"{entry}. {source_link(source.url)}" if source.url else entry + "."


def _strip_sources_section(body: str) -> str:
    match = re.search(r"^#{1,3}\s*(Sources|References)\s*$", body, flags=re.MULTILINE | re.IGNORECASE)
    return body[: match.start()] if match else body


@dataclass
class CitationCheck:
    cited: list[int]
    listed: list[int]
    unresolved: list[int]  # [n] in the text with no entry in the Sources list
    unknown_urls: list[str]  # URLs in the draft that no retrieved source has

    @property
    def ok(self) -> bool:
        return not self.unresolved and not self.unknown_urls


def check_citations(markdown: str, sources: list[Source] | None = None) -> CitationCheck:
    """Re-check a (possibly hand-edited) draft: every [n] needs an entry in its Sources list."""
    match = re.search(r"^#{1,3}\s*(Sources|References)\s*$", markdown, flags=re.MULTILINE | re.IGNORECASE)
    body, tail = (markdown[: match.start()], markdown[match.end() :]) if match else (markdown, "")
    cited = sorted({int(n) for n in CITATION.findall(body)})
    listed = sorted({int(n) for n in re.findall(r"^\s*\[(\d{1,3})\]", tail, flags=re.MULTILINE)})
    unknown: list[str] = []
    if sources is not None:
        known = {s.url.rstrip("/") for s in sources if s.url}
        unknown = sorted({u.rstrip(".,") for u in _URL.findall(markdown) if u.rstrip("/.,") not in known})
    return CitationCheck(
        cited=cited, listed=listed, unresolved=[n for n in cited if n not in listed], unknown_urls=unknown
    )
