"""The offline brain's draft revision: a deterministic restructure from a plain instruction.

It understands, alone or combined ("shorten and use bullet points"):
- shorten / condense / more concise: each paragraph keeps its first half of sentences, long lists
  their first half of items;
- expand / more detail / elaborate: each section gains up to two relevant sentences from the
  gathered sources, cited;
- reorder sections: the sections with the most cited evidence first; "reverse the sections",
  "sort sections alphabetically", "move <section> first|last" do what they say;
- bullet points / prose: paragraphs become one bullet per sentence, or lists become paragraphs;
- focus on <X>: sections about X first, elsewhere only sentences that mention X.
The title, Summary-first and Known-gaps-last order are kept. Anything else raises RevisionError
with what it does understand; no model guesses at meaning here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["MAX_INSTRUCTION_CHARS", "Operations", "RevisionError", "offline_revise", "parse_instruction"]

from research.brains.base import NumberedSource, TextLookup
from research.brains.offline.offline_writer import units_of
from research.brains.offline.revise_instructions import (
    MAX_INSTRUCTION_CHARS,
    Operations,
    RevisionError,
    parse_instruction,
)
from research.drafts.markers import CITATION_MARKER
from research.text import BM25, split_sentences, tokenize
from research.text.quote import md_quote, md_unquote

EXPAND_SENTENCES_PER_SECTION = 2
MIN_EXPAND_SENTENCE_CHARS = 50
_LIST_LINE = re.compile(r"^\s*([-*+]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MARKER = CITATION_MARKER
_STOP = set(
    tokenize("the a an of on in and or to for about with more less its their this that these those section sections")
)


# --- the draft as sections ------------------------------------------------------------------------


@dataclass
class Section:
    heading: str  # the heading line ("## Summary"); "" for text before the first section
    chunks: list[str] = field(default_factory=list)  # blocks separated by blank lines

    @property
    def title(self) -> str:
        match = _HEADING.match(self.heading)
        return match.group(2) if match else ""

    @property
    def role(self) -> str:
        title = self.title.strip().lower()
        if not self.heading:
            return "preamble"
        if title in ("summary", "overview", "abstract", "introduction"):
            return "summary"
        if title.startswith("known gaps") or title in ("gaps", "limitations"):
            return "gaps"
        return "body"

    def citations(self) -> set[str]:
        return {m.group(1) for chunk in self.chunks for m in _MARKER.finditer(chunk)}


def split_sections(body: str) -> tuple[str, list[Section]]:
    """(title line or "", sections); every heading of level 2+ starts a section."""
    title = ""
    sections = [Section("")]
    chunk: list[str] = []
    fenced = False

    def close() -> None:
        if chunk:
            sections[-1].chunks.append("\n".join(chunk).strip("\n"))
            chunk.clear()

    for line in body.replace("\r\n", "\n").split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            chunk.append(line)
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading and len(heading.group(1)) == 1 and not title and not any(s.chunks for s in sections):
            title = line.strip()
        elif heading:
            close()
            sections.append(Section(line.strip()))
        elif not line.strip() and not fenced:
            close()
        else:
            chunk.append(line)
    close()
    return title, [s for s in sections if s.heading or s.chunks]


def join_sections(title: str, sections: list[Section]) -> str:
    parts = [title] if title else []
    for section in sections:
        block = ([section.heading] if section.heading else []) + section.chunks
        parts.append("\n\n".join(block))
    return "\n\n".join(p for p in parts if p).strip() + "\n"


def chunk_kind(chunk: str) -> str:
    first = chunk.lstrip().split("\n", 1)[0]
    if first.startswith(("```", "~~~")):
        return "code"
    if first.startswith("|") or (
        "|" in first and "\n" in chunk and re.match(r"^\s*\|?\s*:?-{2,}", chunk.split("\n")[1])
    ):
        return "table"
    if _LIST_LINE.match(first):
        return "list"
    if first.startswith(">"):
        return "quote"
    return "prose"


# --- the operations ------------------------------------------------------------------------------


def offline_revise(draft: str, instruction: str, sources: list[NumberedSource], text_of: TextLookup) -> str:
    """Revise `draft` (markdown without its Sources list). Raises RevisionError when the
    instruction is not understood or cannot change this draft."""
    ops = parse_instruction(instruction)
    title, sections = split_sections(draft)
    if ops.focus:
        sections = _focus(sections, ops.focus)
    if ops.reorder:
        sections = _reorder(sections, ops)
    if ops.shorten:
        sections = _shorten(sections)
    if ops.expand:
        sections = _expand(title, sections, sources, text_of)
    if ops.bullets:
        sections = _to_bullets(sections)
    if ops.prose:
        sections = _to_prose(sections)
    return join_sections(title, sections)


def _shorten(sections: list[Section]) -> list[Section]:
    def shorten(section: Section, chunk: str) -> tuple[str, bool]:
        kind = chunk_kind(chunk)
        if section.role == "gaps" or kind not in ("prose", "list"):
            return chunk, False
        if kind == "prose":
            sentences = split_sentences(chunk)
            keep = max(1, math.ceil(len(sentences) / 2))
            return " ".join(sentences[:keep]), keep < len(sentences)
        items = _list_items(chunk)
        keep = len(items) if len(items) <= 2 else math.ceil(len(items) / 2)
        return "\n".join(items[:keep]), keep < len(items)

    return _rewrite_chunks(
        sections,
        shorten,
        "The draft is already as short as the offline reviser can make it (one sentence per paragraph).",
    )


def _expand(title: str, sections: list[Section], sources: list[NumberedSource], text_of: TextLookup) -> list[Section]:
    existing = {_norm(s) for section in sections for chunk in section.chunks for s in split_sentences(chunk)}
    candidates: list[tuple[str, int]] = []
    for ns in sources:
        # The writer's own quotable units: cleaned, exact, and prose a presenter can read aloud.
        for unit in units_of(ns.source.id, text_of(ns.source.id) or ns.source.snippet):
            if len(unit.text) >= MIN_EXPAND_SENTENCE_CHARS and _norm(unit.text) not in existing:
                candidates.append((unit.text, ns.n))
    if not candidates:
        raise RevisionError("The gathered sources hold nothing more to expand the draft with.")
    bm25 = BM25([tokenize(s) for s, _ in candidates])
    used: set[int] = set()
    added = 0
    title_terms = tokenize(_HEADING.sub(r"\2", title))
    out = []
    for section in sections:
        if section.role in ("gaps", "preamble"):
            out.append(section)
            continue
        query = tokenize(section.title) + ([] if section.role == "body" else title_terms)
        scores = bm25.scores(query) if query else []
        ranked = [
            i for i in sorted(range(len(scores)), key=lambda i: (-scores[i], i)) if scores[i] > 0 and i not in used
        ]
        picked = ranked[:EXPAND_SENTENCES_PER_SECTION]
        used.update(picked)
        if not picked:
            out.append(section)
            continue
        addition = " ".join(_cite(md_quote(candidates[i][0]), candidates[i][1]) for i in picked)
        added += len(picked)
        chunks = list(section.chunks)
        last_prose = max((j for j, c in enumerate(chunks) if chunk_kind(c) == "prose"), default=None)
        if last_prose is None:
            chunks.append(addition)
        else:
            chunks[last_prose] = chunks[last_prose].rstrip() + " " + addition
        out.append(Section(section.heading, chunks))
    if not added:
        raise RevisionError("The gathered sources hold nothing more on these sections to expand with.")
    return out


def _reorder(sections: list[Section], ops: Operations) -> list[Section]:
    head = [s for s in sections if s.role in ("preamble", "summary")]
    body = [s for s in sections if s.role == "body"]
    tail = [s for s in sections if s.role == "gaps"]
    if ops.reorder == "move" and ops.move:
        words, where = ops.move
        target = _best_section(sections, words)
        if target is None:
            raise RevisionError(
                f"No section matches {words!r}; the sections are: " + "; ".join(s.title for s in sections if s.title)
            )
        rest = [s for s in sections if s is not target]
        return (
            [target, *rest]
            if where == "first"
            else [*[s for s in rest if s.role != "gaps"], target, *[s for s in rest if s.role == "gaps"]]
        )
    if len(body) < 2:
        raise RevisionError("Nothing to reorder: the draft has fewer than two sections besides the summary.")
    if ops.reorder == "reverse":
        body = body[::-1]
    elif ops.reorder == "alphabetical":
        body = sorted(body, key=lambda s: s.title.lower())
    else:  # the best-evidenced sections first (most distinct sources cited); ties keep their order
        ordered = sorted(body, key=lambda s: -len(s.citations()))
        if ordered == body:
            raise RevisionError(
                "The sections are already ordered by evidence (most sources cited first); say 'reverse the "
                "sections', 'sort sections alphabetically' or 'move <section> first'."
            )
        body = ordered
    return head + body + tail


def _focus(sections: list[Section], what: str) -> list[Section]:
    terms = {_stem(t) for t in tokenize(what) if t not in _STOP}
    if not terms:
        raise RevisionError(f"'focus on {what}' names nothing to focus on.")

    def mentions(text: str) -> bool:
        return bool(terms & {_stem(t) for t in tokenize(text)})

    about, others, found = [], [], False
    for section in sections:
        if section.role in ("preamble", "gaps"):
            others.append(section)
            continue
        if section.role == "body" and mentions(section.title):
            about.append(section)
            found = True
            continue
        chunks = []
        for chunk in section.chunks:
            if chunk_kind(chunk) == "prose":
                kept = [s for s in split_sentences(chunk) if mentions(s)]
                found |= bool(kept)
                if section.role == "summary":  # the summary keeps its sentences, the focus first
                    kept += [s for s in split_sentences(chunk) if not mentions(s)]
                if kept:
                    chunks.append(" ".join(kept))
            elif chunk_kind(chunk) == "list":
                kept = [i for i in _list_items(chunk) if mentions(i)]
                found |= bool(kept)
                if kept:
                    chunks.append("\n".join(kept))
            elif mentions(chunk):
                chunks.append(chunk)
                found = True
        if chunks:
            (about if section.role == "body" and any(mentions(c) for c in chunks) else others).append(
                Section(section.heading, chunks)
            )
    if not found:
        raise RevisionError(
            f"Nothing in the draft mentions {what!r}; the offline reviser can only focus on what the draft covers."
        )
    head = [s for s in others if s.role in ("preamble", "summary")]
    rest = [s for s in others if s.role == "body"]
    tail = [s for s in others if s.role == "gaps"]
    return head + about + rest + tail


def _to_bullets(sections: list[Section]) -> list[Section]:
    def bullets(section: Section, chunk: str) -> tuple[str, bool]:
        if chunk_kind(chunk) != "prose":
            return chunk, False
        return "\n".join(f"- {s}" for s in split_sentences(chunk)), True

    return _rewrite_chunks(sections, bullets, "The draft has no paragraphs to turn into bullet points.")


def _to_prose(sections: list[Section]) -> list[Section]:
    def prose(section: Section, chunk: str) -> tuple[str, bool]:
        if chunk_kind(chunk) != "list" or section.role == "gaps":
            return chunk, False
        items = [_LIST_LINE.sub("", item).strip() for item in _list_items(chunk)]
        return " ".join(i if i[-1:] in ".!?" else i + "." for i in items if i), True

    return _rewrite_chunks(sections, prose, "The draft has no bullet lists to turn into prose.")


def _rewrite_chunks(
    sections: list[Section], rewrite: Callable[[Section, str], tuple[str, bool]], unchanged: str
) -> list[Section]:
    """The sections with every chunk passed through `rewrite` (which says whether it changed it).
    A revision that changes nothing is refused with `unchanged`, so the user learns why."""
    changed = False
    out = []
    for section in sections:
        chunks = []
        for chunk in section.chunks:
            new, did_change = rewrite(section, chunk)
            changed |= did_change
            chunks.append(new)
        out.append(Section(section.heading, chunks))
    if not changed:
        raise RevisionError(unchanged)
    return out


# --- helpers ---------------------------------------------------------------------------------------


def _list_items(chunk: str) -> list[str]:
    items: list[str] = []
    for line in chunk.split("\n"):
        if _LIST_LINE.match(line) or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    return items


def _best_section(sections: list[Section], words: str) -> Section | None:
    wanted = {_stem(t) for t in tokenize(words) if t not in _STOP}
    scored = [(len(wanted & {_stem(t) for t in tokenize(s.title)}), i, s) for i, s in enumerate(sections) if s.title]
    best = max(scored, key=lambda x: (x[0], -x[1]), default=None)
    return best[2] if best and best[0] > 0 else None


def _cite(sentence: str, n: int) -> str:
    body = sentence.rstrip()
    return f"{body[:-1]} [{n}]{body[-1]}" if body[-1:] in ".!?" else f"{body} [{n}]"


def _norm(sentence: str) -> str:
    return " ".join(tokenize(md_unquote(_MARKER.sub("", sentence))))


def _stem(token: str) -> str:
    return token[:5]
