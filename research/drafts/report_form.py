"""A written draft in its report shape (research/report_shape.py), whichever brain wrote it.

Both writers produce the same skeleton (a title, "## Summary", one "## <question>" section per
research question, "## Known gaps"); this module turns it into the shape asked for:

- brief: the summary paragraph, then "## Key points", one bullet per question, led by the question
  in bold (`- **Question**: its best cited sentence`); the claim check and the reviewer read the
  bold lead as the bullet's section (`bullet_lead`), so each claim is still judged against its question;
- outline: an "## Outline" list of the sections (and how many sources each cites) before them;
- a target length: a draft well over it loses its last cited sentences, longest section first;
  one well short of it says so plainly under the title, rather than being padded.

Only the desk's own lines are parsed here (headings, paragraphs the writers joined); every pattern
is anchored and bounded, so a user-edited draft is still read in linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research.drafts.markers import CITATION_MARKER
from research.report_shape import OVER_TARGET, SHORT_OF_TARGET, ReportShape, ShapeLayout

SUMMARY = "Summary"
KEY_POINTS = "Key points"
OUTLINE = "Outline"
_UNCOUNTED = frozenset({"known gaps", "outline", "sources"})  # the desk's lists, not the report's prose
# "- **What is it**: sentence" -> ("What is it", "sentence"): a bold lead of at most 300 characters.
_LEAD = re.compile(r"^\s{0,3}[-*+]\s+\*\*([^*\n]{1,300})\*\*:\s+")
_CITED_CHUNK_END = re.compile(r"\[\d{1,3}\](?!\()[.!?]?")
_NOTE_START = "_About "


@dataclass
class _Section:
    heading: str  # "" for what stands before the first "## " (the title)
    lines: list[str]

    @property
    def prose(self) -> str:
        return " ".join(line.strip() for line in self.lines if line.strip())


@dataclass(frozen=True)
class ShapedDraft:
    markdown: str
    words: int
    note: str  # what the draft says about its length ("" when it needs nothing said)


def bullet_lead(line: str) -> tuple[str, str] | None:
    """(lead, rest) of a brief's key-point bullet, or None for any other line."""
    match = _LEAD.match(line)
    return (match.group(1).strip(), line[match.end() :]) if match else None


def word_count(markdown: str) -> int:
    """Words of the report's prose: headings, markers, the outline, known gaps and sources not counted."""
    words = 0
    for section in _sections(markdown):
        if section.heading.lower() in _UNCOUNTED:
            continue
        for line in section.lines:
            if line.startswith("#") or line.startswith(_NOTE_START):
                continue
            words += _words(line)
    return words


def _words(text: str) -> int:
    """Words of a line: a lone full stop left by a removed [n] is none."""
    return sum(1 for w in CITATION_MARKER.sub(" ", text).split() if any(c.isalnum() for c in w))


def shape_draft(markdown: str, shape: ReportShape, layout: ShapeLayout | None = None) -> ShapedDraft:
    """The draft in `shape`; `layout` (what the writer was held to) explains a short draft."""
    sections = _sections(markdown)
    if shape.shape == "brief":
        sections = _brief(sections)
    if shape.target_words is not None:
        _trim(sections, shape.target_words)
    if shape.shape == "outline":
        sections = _with_outline(sections)
    text = _join(sections)
    words = word_count(text)
    note = _shortfall(words, shape, layout)
    if note:
        title, _, rest = text.partition("\n")
        text = f"{title}\n\n_{note}_\n{rest}" if title.startswith("# ") else f"_{note}_\n\n{text}"
    return ShapedDraft(text.rstrip() + "\n", words, note)


def _shortfall(words: int, shape: ReportShape, layout: ShapeLayout | None) -> str:
    target = shape.target_words
    if target is None or words >= target * SHORT_OF_TARGET:
        return ""
    why = (
        "the writer's reply cap holds each section to a few sentences"
        if layout is not None and layout.capped
        else "the sources gathered hold no more that answers these questions"
    )
    return f"About {words:,} words of the {target:,} asked for: {why}, so the report stops here rather than pad."


def _sections(markdown: str) -> list[_Section]:
    sections = [_Section("", [])]
    for line in markdown.splitlines():
        if line.startswith("## "):
            sections.append(_Section(line[3:].strip(), []))
        else:
            sections[-1].lines.append(line)
    return sections


def _join(sections: list[_Section]) -> str:
    parts: list[str] = []
    for section in sections:
        body = "\n".join(section.lines).strip("\n")
        parts.append(body if not section.heading else f"## {section.heading}" + (f"\n\n{body}" if body else ""))
    return "\n\n".join(p for p in parts if p.strip()) + "\n"


def _chunks(paragraph: str) -> list[str]:
    """A paragraph's cited pieces: each ends with its [n] (and the full stop after it); an
    uncited lead-in stays with the cited sentence after it, as the writers quoted it."""
    ends = [match.end() for match in _CITED_CHUNK_END.finditer(paragraph)]
    cuts = zip([0, *ends], [*ends, len(paragraph)], strict=True)
    return [piece for a, b in cuts if (piece := paragraph[a:b].strip())]


def _brief(sections: list[_Section]) -> list[_Section]:
    kept: list[_Section] = []
    points: list[str] = []
    for section in sections:
        if section.heading in ("", SUMMARY) or section.heading.lower() in _UNCOUNTED:
            kept.append(section)
            continue
        chunks = _chunks(section.prose)
        if chunks:
            points.append(f"- **{section.heading}**: {chunks[0]}")
    if points:
        at = next((i + 1 for i, s in enumerate(kept) if s.heading == SUMMARY), 1)
        kept.insert(at, _Section(KEY_POINTS, ["", *points, ""]))
    return kept


def _trim(sections: list[_Section], target: int) -> None:
    """Drop last cited pieces, from the longest paragraph section, until the prose fits the target.
    A brief's key points stay: each is the one answer to its question."""
    limit = int(target * OVER_TARGET)
    total = word_count(_join(sections))
    while total > limit:
        longest = max(
            (
                s
                for s in sections
                if s.heading not in ("", KEY_POINTS)
                and s.heading.lower() not in _UNCOUNTED
                and len(_chunks(s.prose)) > 1
            ),
            key=lambda s: len(s.prose.split()),
            default=None,
        )
        if longest is None:
            return
        pieces = _chunks(longest.prose)
        total -= _words(pieces.pop())
        longest.lines = ["", " ".join(pieces), ""]
        if total <= target:
            return


def _with_outline(sections: list[_Section]) -> list[_Section]:
    entries: list[str] = []
    for section in sections:
        if not section.heading or section.heading.lower() in _UNCOUNTED:
            continue
        cited = len({m.group(1) for m in CITATION_MARKER.finditer(section.prose)})
        what = f"{cited} source{'s' if cited != 1 else ''}" if cited else "nothing found"
        entries.append(f"{len(entries) + 1}. {section.heading} ({what})")
    if not entries:
        return sections
    return [sections[0], _Section(OUTLINE, ["", *entries, ""]), *sections[1:]]
