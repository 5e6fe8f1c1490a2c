"""The LLM writer, grounded by construction rather than by hope.

A small model asked for "a cited report from these sources" may ignore them and write from memory.
So the model never writes the report: for each section (the summary, then one per research
question) the desk picks the best passages of the numbered sources, shows them numbered 1..k,
and asks for sentences, each naming the passage it rests on (grounded_schema.py: a grammar on
llama-cpp). The desk then keeps a sentence only when

- its passage is one it was shown (not 0 = "none answers", not an invented number),
- it shares enough of its words with that passage (MIN_GROUNDING: a sentence from memory that
  merely names a passage does not pass),
- it keeps the passage's numbers, units, identifiers and spelling (research/drafts/faithful.py, as
  the claim check applies it: a name that slipped, "pembrolizumbar", is not the passage's),
- it is a plain sentence (no URLs, markers or markup; it is not a repeat),
- it was written to its end: the grammar's room fits the longest passage copied whole, and a
  sentence that still runs to that bound (cut there, mid-word) is dropped, never shown cut,

and renders the source's `[n]` itself. A section left with nothing says plainly that the sources
found do not answer its question. A draft with no sentence kept, while sources exist, is a failed
step (NoGroundedSentences): the caller falls back with a warning rather than show it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from research import prompts
from research.brains.base import NumberedSource, WriteRequest
from research.brains.llm.grounded_passages import (
    Passage,
    Prepared,
    SectionPlan,
    fits_section,
    select_passages,
)
from research.brains.llm.grounded_restate import AskRestated, Restated, restate_copies
from research.brains.llm.grounded_schema import (
    MAX_RESTATED_CHARS,
    MAX_SENTENCE_CHARS,
    NO_PASSAGE,
    SectionSentences,
    section_schema,
)
from research.brains.llm.grounded_sentence import (
    MIN_WORDS,
    clean_sentence,
    grounding,
    reached_bound,
    repeats,
    whole_sentences,
)
from research.brains.llm.model_output import InvalidModelOutput
from research.drafts.faithful import changed_tokens
from research.events import emit
from research.events.agent_log import agent_log
from research.events.payloads_model import DraftDeltaData
from research.report_shape import ShapeLayout

MIN_GROUNDING = 0.5  # share of a sentence's content words found in its passage
NO_ANSWER = "The sources found do not answer this question."
# A section written from sources too few to cover its question (the run's coverage lists it under
# Known gaps): said in the section too, so the draft never answers what it calls a gap unremarked.
THIN = "Too few sources answer this, so it is also a Known gap."
# The structured call: (schema, messages) -> a validated instance (the brain's metered call).
Ask = Callable[[type[SectionSentences], list[BaseMessage]], SectionSentences]
Note = Callable[[str], None]


class NoGroundedSentences(InvalidModelOutput):
    """The model's draft rests on none of the passages it was given (a failed step, not a draft)."""


@dataclass
class Section:
    heading: str
    sentences: list[tuple[str, int]] = field(default_factory=list)  # (sentence, source n)
    invalid: int = 0  # named a passage it was not shown
    ungrounded: int = 0  # too few of its words in its passage
    misquoted: int = 0  # changed or misspelt a number, unit, name or word of its passage
    declined: int = 0  # the model said no passage answers (passage 0)
    unplain: int = 0  # held a link or markup
    off_question: int = 0  # rests on its passage but does not address the section's question
    cut: int = 0  # ended at the reply's length bound: cut mid-sentence, never shown as a finding
    grounds: list[str] = field(default_factory=list)  # the passage each kept sentence rests on (aligned)
    gap: bool = False  # the run's coverage lists this question under Known gaps

    def markdown(self) -> str:
        body = " ".join(_with_marker(text, n) for text, n in self.sentences) if self.sentences else NO_ANSWER
        return f"## {self.heading}\n\n{body}" + (f" {THIN}" if self.gap and self.sentences else "")


class DraftPreview:
    """The draft as it is written, one finished section at a time (`draft_delta` events)."""

    def __init__(self) -> None:
        self.chars = 0

    def section(self, markdown: str) -> None:
        piece = ("\n\n" if self.chars else "") + markdown
        self.chars += len(piece)
        emit(DraftDeltaData(text=piece, chars=self.chars))


def write_grounded(
    request: WriteRequest,
    ask: Ask,
    note: Note,
    on_section: Callable[[str], None] | None = None,
    restate: AskRestated | None = None,
) -> str:
    """The draft's markdown (title, summary, one section per question, known gaps), every sentence
    cited; with `restate`, the sentences a model copied whole from its passage are restated
    (grounded_restate.py)."""
    tally = Restated()
    rewrite = _Restater(request.topic, restate, tally) if restate is not None else None
    seen: list[str] = []  # every sentence kept so far: a later repeat is dropped
    layout = request.layout  # the report shape: sentences asked for and passages shown per section
    # One plan per section, the summary last: its question, its fit rule and the sources it may rest
    # on. The question's own words pick its passages: the topic's words are in every source.
    plans: list[SectionPlan] = [(q, fits_section(q, request.topic), answering(request, q)) for q in request.questions]
    plans.append((None, fits_section(None, request.topic), request.sources))
    written: list[Section] = []
    with Prepared(plans, request.text_of) as prepared:
        for i, (question, fits, sources) in enumerate(plans):
            query = question if question is not None else request.topic
            passages = select_passages(
                query, sources, request.text_of, fits=fits, said=seen, count=layout.passages, fitting=prepared.get(i)
            )
            prepared.start_rest()  # the later sections' candidates, while this section's call waits
            section = _section(
                request.topic, passages, ask, seen, question=question, layout=layout, fits=fits, restate=rewrite
            )
            written.append(section)
            if question is not None:
                section.gap = question in request.known_gaps
                if on_section is not None:
                    on_section(section.markdown())
    *sections, summary = written
    everything = [summary, *sections]
    report_drops(everything, note)
    if tally.asked:
        agent_log.info(
            "Writer: restated %d of %d copied sentence(s), condensed %d of %d; left out: %s; "
            "condensations left out: %s",
            tally.replaced,
            tally.asked,
            tally.condensed,
            tally.condense_asked,
            ", ".join(f"{n} {why}" for why, n in sorted(tally.rejected.items())) or "none",
            ", ".join(f"{n} {why}" for why, n in sorted(tally.condense_rejected.items())) or "none",
        )
        for example in tally.examples:
            agent_log.info("Writer: left out the restatement %s", example)
    if tally.failed_calls:
        note(f"kept {tally.failed_calls} copied sentence(s) as they were: the restating call failed")
    if request.sources and not any(s.sentences for s in everything):
        raise NoGroundedSentences(
            f"the model's draft rests on none of the passages of the {len(request.sources)} sources it was given"
        )
    title = " ".join(request.topic.split())
    shown = everything if summary.sentences else sections  # an empty summary is left out, not "not answered"
    parts = [f"# {title[:1].upper()}{title[1:]}", *(s.markdown() for s in shown)]
    if request.known_gaps:
        parts.append("## Known gaps\n\n" + "\n".join(f"- {gap}" for gap in request.known_gaps))
    return "\n\n".join(parts) + "\n"


def answering(request: WriteRequest, question: str) -> list[NumberedSource]:
    """The sources a question's section may rest on: those the run's coverage found answering it
    (research/relevance/coverage.py, the one computation the evidence and Known gaps read), all of
    them when the request carries no coverage for it."""
    allowed = next((set(c.source_ids) for c in request.coverage if c.question == question), None)
    return request.sources if allowed is None else [ns for ns in request.sources if ns.source.id in allowed]


def _section(
    topic: str,
    passages: list[Passage],
    ask: Ask,
    seen: list[str],
    *,
    question: str | None,
    layout: ShapeLayout,
    fits: Callable[[str], bool],
    restate: _Restater | None = None,
) -> Section:
    section = Section(question or "Summary")
    if not passages:
        return section  # nothing on this question among the sources: said plainly, no call spent
    system = prompts.SECTION_SYSTEM.format(
        task=prompts.SECTION_TASK_QUESTION if question else prompts.SECTION_TASK_SUMMARY,
        count=layout.section_count if question else layout.summary_count,
        untrusted_rule=prompts.UNTRUSTED_DATA_RULE,
    )
    focus = (
        prompts.SECTION_FOCUS_QUESTION.format(question=prompts.neutralise(question))
        if question
        else prompts.SECTION_FOCUS_SUMMARY
    )
    user = prompts.SECTION_USER.format(topic=topic, focus=focus, passages=passage_blocks(passages))
    reply = ask(section_schema(len(passages)), [SystemMessage(system), HumanMessage(user)])
    keep_sentences(section, reply, passages, seen, fits)
    if restate is not None:
        restate(section, seen, fits)
    return section


class _Restater:
    """The writer's restating pass for one draft: a section's copied sentences, restated in place."""

    def __init__(self, topic: str, ask: AskRestated, tally: Restated) -> None:
        self.topic, self.ask, self.tally = topic, ask, tally

    def __call__(self, section: Section, seen: list[str], fits: Callable[[str], bool]) -> None:
        mine = [text for text, _n in section.sentences]
        prior = [text for text in seen if text not in mine]

        def accept(raw: str, ground: str, others: list[str]) -> tuple[str, str]:
            if reached_bound(raw, MAX_RESTATED_CHARS):
                return "", "cut at its length bound"  # the grammar ended it mid-sentence: the copy stays
            text = clean_sentence(raw)
            if not text:
                return "", "not a plain sentence"
            if repeats(text, prior + others):
                return "", "a repeat"
            if grounding(text, ground) < MIN_GROUNDING:
                return "", "not its passage's words"
            return (text, "") if fits(text) else ("", "not on the question")

        before = list(section.sentences)
        section.sentences = restate_copies(
            self.topic, section.heading, section.sentences, section.grounds, self.ask, accept, self.tally
        )
        for (old, _), (new, _) in zip(before, section.sentences, strict=True):
            if new != old:
                seen.append(new)  # the copied original stays in `seen`: no later section repeats either


def passage_blocks(passages: list[Passage]) -> str:
    """The numbered passages as the model sees them (between the sources delimiters)."""
    return prompts.render_sources(
        [
            prompts.render_source(f'n="{p.number}"', kind="passage", title=f"passage {p.number}", url="", text=p.text)
            for p in passages
        ]
    )


def keep_sentences(
    section: Section,
    reply: SectionSentences,
    passages: list[Passage],
    seen: list[str],
    fits: Callable[[str], bool] | None = None,
) -> None:
    """Add to `section` each sentence of the reply that rests on a passage it was shown and `fits`
    its question (counting the rest by why they went); `seen` collects every kept sentence, so a
    later repeat is dropped."""
    by_number = {p.number: p for p in passages}
    for item in reply.sentences:
        if item.passage == NO_PASSAGE:
            section.declined += 1
            continue
        passage = by_number.get(item.passage)
        if passage is None:
            section.invalid += 1
            continue
        # A reply's "sentence" may hold several: each gets the marker (and is checked) on its own.
        pieces, cut = whole_sentences(str(item.text), MAX_SENTENCE_CHARS)
        section.cut += cut
        for piece in pieces:
            text = clean_sentence(piece)
            if not text:
                section.unplain += len(piece.split()) >= MIN_WORDS  # a link or markup, not a short fragment
                continue
            if repeats(text, seen):
                continue
            if grounding(text, passage.text) < MIN_GROUNDING:
                section.ungrounded += 1
                continue
            if changed_tokens(text, passage.text):
                section.misquoted += 1
                continue
            if fits is not None and not fits(text):
                section.off_question += 1  # true to its passage, but not an answer to this section
                continue
            seen.append(text)
            section.sentences.append((text, passage.source_n))
            section.grounds.append(passage.text)


def _with_marker(sentence: str, n: int) -> str:
    """'A finding.' -> 'A finding [3].' (the marker inside the sentence it supports)."""
    return f"{sentence[:-1].rstrip()} [{n}]{sentence[-1]}"


def report_drops(sections: list[Section], note: Note) -> None:
    invalid = sum(s.invalid for s in sections)
    ungrounded = sum(s.ungrounded for s in sections)
    if invalid:
        note(f"dropped {invalid} sentence(s) that named a passage the model was not given")
    if ungrounded:
        note(f"dropped {ungrounded} sentence(s) whose words were not in the passage they named")
    misquoted = sum(s.misquoted for s in sections)
    if misquoted:
        note(f"dropped {misquoted} sentence(s) that changed or misspelt a number, name or word of their passage")
    unplain = sum(s.unplain for s in sections)
    if unplain:
        note(f"dropped {unplain} sentence(s) that held a link or markup")
    cut = sum(s.cut for s in sections)
    if cut:
        note(f"dropped {cut} sentence(s) cut off at the reply's length bound")
    off_question = sum(s.off_question for s in sections)
    if off_question:  # true to a passage that fits, only not an answer: the desk's editing, logged
        agent_log.info("Writer: dropped %d sentence(s) that did not address their section's question", off_question)
    unanswered = [s.heading for s in sections if not s.sentences and s.heading != "Summary"]
    if unanswered:  # said in the draft itself: a note in the log, not a warning
        agent_log.info("Writer: no sentence rests on the sources for: %s", "; ".join(unanswered)[:300])
