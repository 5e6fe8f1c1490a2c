"""The LLM reviser, grounded like the writer (grounded_writer.py): never free text.

A small model asked to "rewrite this draft" rewrites from memory and invents citations, so the
reviser rewrites one section at a time: it shows the section's current sentences (each with the
passage it rests on), the user's instruction, and numbered passages (the best passage of every
source the section cites, then the best matching passages of the run's other sources), and asks
for the same structured sentences the writer gets (`SectionSentences`, the passage an enum of the
numbers shown). The writer's rules keep or drop each sentence and the desk renders the `[n]`.

- The title, any text before the first section, and "Known gaps" are kept as they were.
- A section the model declines (passage 0 only) says the sources found do not answer it.
- A section where none of the model's sentences rests on its passages keeps its old text (which
  the writer grounded), with a warning, rather than lose what it said.
- A revision in which no section kept a model sentence is a failed step (NoGroundedSentences): the
  caller falls back to the offline reviser with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.messages import HumanMessage, SystemMessage

from research import prompts
from research.brains.base import NumberedSource, ReviseRequest
from research.brains.llm.grounded_passages import (
    PASSAGE_SENTENCES,
    Passage,
    fits_section,
    select_passages,
    source_text,
)
from research.brains.llm.grounded_schema import NO_PASSAGE, PASSAGE_CHARS, section_schema
from research.brains.llm.grounded_writer import (
    Ask,
    NoGroundedSentences,
    Note,
    Section,
    keep_sentences,
    passage_blocks,
    report_drops,
)
from research.drafts.markers import CITATION_MARKER, strip_internal_markers
from research.text import best_snippet, split_sentences

MAX_REVISE_PASSAGES = 6
MAX_CURRENT_CHARS = 1600  # the section's current text as the model sees it
_HEADING = re.compile(r"^##\s+(.+?)\s*$")
GAPS = "known gaps"


@dataclass
class DraftSection:
    heading: str
    lines: list[str] = field(default_factory=list)

    @property
    def body(self) -> str:
        return "\n".join(self.lines).strip()

    def markdown(self) -> str:
        return f"## {self.heading}\n\n{self.body}" if self.body else f"## {self.heading}"


def split_draft(draft: str) -> tuple[list[str], list[DraftSection]]:
    """The lines before the first "## " heading (the title), and each section in order."""
    head: list[str] = []
    sections: list[DraftSection] = []
    for line in draft.splitlines():
        heading = _HEADING.match(line)
        if heading:
            sections.append(DraftSection(heading.group(1)))
        elif sections:
            sections[-1].lines.append(line)
        else:
            head.append(line)
    return head, sections


def revise_grounded(request: ReviseRequest, ask: Ask, note: Note) -> str:
    """The revised draft body (markdown without a Sources list), every sentence grounded and cited."""
    head, sections = split_draft(strip_internal_markers(request.draft))
    topic = next((line.lstrip("# ").strip() for line in head if line.startswith("# ")), "")
    wanted = {_key(h) for h in request.sections}
    if "" in wanted:  # an issue outside any section: every section is revised
        wanted = set()
    by_n = {ns.n: ns for ns in request.sources}
    kept = [old for old in sections if _key(old.heading) == GAPS or (wanted and _key(old.heading) not in wanted)]
    # What the sections left as they are say: a revised section does not repeat it.
    seen = [_plain(sentence) for old in kept if _key(old.heading) != GAPS for sentence in split_sentences(old.body)]
    revised: list[Section] = []
    parts = ["\n".join(head).strip()] if "\n".join(head).strip() else []
    kept_old: list[str] = []
    for old in sections:
        if old in kept:
            parts.append(old.markdown())
            continue
        passages = revision_passages(old, topic, by_n, request)
        fits = fits_section(None if _key(old.heading) == "summary" else old.heading, topic)
        section = _revise_section(old, topic, request.instruction, passages, ask, seen, fits)
        revised.append(section)
        if section.sentences or (section.declined and not (section.invalid or section.ungrounded)):
            parts.append(section.markdown())
        else:
            kept_old.append(old.heading)
            parts.append(old.markdown())
    report_drops(revised, note)
    if kept_old:
        note(f"kept {len(kept_old)} section(s) as they were: none of the model's sentences rested on their passages")
    # A focused revision (the reviewer's) may rightly end with a declined section and nothing else.
    if request.sources and revised and not any(s.sentences for s in revised) and not wanted:
        raise NoGroundedSentences(
            f"the model's revision rests on none of the passages of the {len(request.sources)} sources it was given"
        )
    return "\n\n".join(p for p in parts if p) + "\n"


def revision_passages(
    old: DraftSection, topic: str, by_n: dict[int, NumberedSource], request: ReviseRequest
) -> list[Passage]:
    """The best passage of each source the section cites (for what it says now), then the best
    passages of the other sources for its heading, numbered 1..k."""
    current = _plain(old.body)
    cited = [by_n[n] for n in dict.fromkeys(int(m.group(1)) for m in CITATION_MARKER.finditer(old.body)) if n in by_n]
    passages: list[Passage] = []
    for ns in cited[:MAX_REVISE_PASSAGES]:
        text = best_snippet(
            current, source_text(ns, request.text_of), max_chars=PASSAGE_CHARS, max_sentences=PASSAGE_SENTENCES
        )
        if text:
            passages.append(Passage(len(passages) + 1, ns.n, text))
    others = [ns for ns in request.sources if ns not in cited]
    summary = _key(old.heading) == "summary"
    query = topic if summary else old.heading
    fits = fits_section(None if summary else old.heading, topic)
    for extra in select_passages(query, others, request.text_of, fits=fits):
        if len(passages) == MAX_REVISE_PASSAGES:
            break
        passages.append(Passage(len(passages) + 1, extra.source_n, extra.text))
    return passages


def _revise_section(
    old: DraftSection,
    topic: str,
    instruction: str,
    passages: list[Passage],
    ask: Ask,
    seen: list[str],
    fits: Callable[[str], bool],
) -> Section:
    section = Section(old.heading)
    if not passages:
        section.declined += 1  # nothing to rest a sentence on: said plainly, no call spent
        return section
    number_of = {p.source_n: p.number for p in reversed(passages)}
    current = []
    for sentence in split_sentences(old.body):
        markers = [int(m.group(1)) for m in CITATION_MARKER.finditer(sentence)]
        passage = next((number_of[n] for n in markers if n in number_of), NO_PASSAGE)
        current.append(f"- (passage {passage}) {_plain(sentence)}")
    system = prompts.REVISE_SECTION_SYSTEM.format(untrusted_rule=prompts.UNTRUSTED_DATA_RULE)
    user = prompts.REVISE_SECTION_USER.format(
        instruction=instruction,
        topic=prompts.neutralise(topic),
        heading=prompts.neutralise(old.heading),
        current=prompts.neutralise("\n".join(current))[:MAX_CURRENT_CHARS] or "(empty)",
        passages=passage_blocks(passages),
    )
    reply = ask(section_schema(len(passages)), [SystemMessage(system), HumanMessage(user)])
    keep_sentences(section, reply, passages, seen, fits)
    return section


def _key(heading: str) -> str:
    """A heading and the question it answers compare equal ("Is it safe?" / "is it safe")."""
    return " ".join(heading.lower().rstrip("?.! ").split())


def _plain(text: str) -> str:
    return " ".join(CITATION_MARKER.sub("", text).split()).replace(" .", ".").replace(" ,", ",")
