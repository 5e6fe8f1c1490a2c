"""Restating the sentences a model copied whole from its passage (the writer's second, optional pass).

Asked to write from numbered passages, a small model (Qwen2.5-Coder-1.5B measured) copies each
passage's sentence word for word, whatever the prompt says: grounded, but not writing. A focused
task it does follow is "restate this sentence, shorter". So after a section's sentences are kept
(grounded_writer.keep_sentences), the ones copied from their passage (research/text/copying.py)
go to the model one per call, each with the words it must keep (on llama-cpp the grammar also
keeps it from opening as its original did). Each restatement replaces its sentence only when it
still passes every rule the original passed, and then some:

- it is a plain sentence (clean_sentence), not a repeat of another kept sentence;
- its words are its passage's (MIN_GROUNDING) and it changes none of the passage's numbers, units
  or identifiers (research/drafts/faithful.py, as the claim check applies it);
- it addresses the section's question (`fits`), and it is not itself a copy;
- it says what the original said (restated_meaning.py): it keeps the original's subject with its
  qualifiers as its own subject (or turns a voice or an apposition round), its names, numbers and
  denials, and adds no content word that neither the original nor its passage holds
  ("Pseudouridine-containing mRNA ..." restated as "The mRNA vaccine ..." is left out).

A restatement left out gets one more call: the copy is condensed (grounded_condense.py), the model
leaving phrases out and adding, changing and moving nothing, and the condensation takes its place
under the same rules. Otherwise the copied sentence stays (it is true to its source; the eval counts
it as copied). A failed call keeps its sentence as it was, with a note. The claim check judges the result like any
other draft, so nothing here can make a sentence look supported that is not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from research import prompts
from research.brains.llm.grounded_condense import (
    choices,
    condensation_schema,
    layout,
    leaves_out_enough,
    pattern,
    read_back,
)
from research.brains.llm.grounded_schema import Restatement, restatement_schema
from research.brains.llm.model_output import InvalidModelOutput
from research.brains.llm.restated_meaning import meaning_change, subject_words
from research.drafts.faithful import UNITS, changed_tokens
from research.drafts.fit import addresses
from research.text.copying import copied

# The structured call: (schema, messages) -> a validated instance (the brain's metered call).
AskRestated = Callable[[type[Restatement], list[BaseMessage]], Restatement]
MAX_RESTATED = 5  # copied sentences a section sends, one call each
MAX_KEPT = 8  # words listed for one sentence to keep
MAX_EXAMPLES = 6  # restatements left out that the log quotes
_EDGE = "\"'“”‘’()[]{},;:!?."
# A word kept exactly as written: it holds a digit, an inner capital (mRNA, BioNTech) or an underscore.
_EXACT = re.compile(r"\d|.[A-Z]|_")
_SIGNS = frozenset({"minus", "plus", "negative"})
_OPENING_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass
class Restated:
    asked: int = 0  # copied sentences sent to be restated
    replaced: int = 0  # restatements that passed and took their sentence's place
    failed_calls: int = 0
    rejected: Counter[str] = field(default_factory=Counter)  # why a restatement was left out
    condense_asked: int = 0  # restatements left out whose copy was sent to be condensed
    condensed: int = 0  # condensations that passed and took their sentence's place
    condense_rejected: Counter[str] = field(default_factory=Counter)  # why a condensation was left out
    examples: list[str] = field(default_factory=list)  # the first few left out, with why (for the log)

    def example(self, why: str, reply: str) -> None:
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f'({why}): "{" ".join(reply.split())[:160]}"')


def restate_copies(
    topic: str,
    heading: str,
    sentences: list[tuple[str, int]],
    grounds: list[str],
    ask: AskRestated,
    accept: Callable[[str, str, list[str]], tuple[str, str]],
    tally: Restated,
) -> list[tuple[str, int]]:
    """`sentences` (text, source n) with each one copied from its ground (`grounds`, aligned)
    replaced by the model's restatement when `accept(restated, ground, others)` returns it
    cleaned (or "" and why it was rejected), else by its condensation (grounded_condense.py) under
    the same rules. One call per sentence: shown several at once, a 1.5B model ran them together
    (its first "restatement" held the first three sentences, its third the tail of one of them) and
    answered sentence 2 with sentence 3 (Qwen, 3 Dec)."""
    wanted = [i for i, (text, _n) in enumerate(sentences) if copied(text, grounds[i])][:MAX_RESTATED]
    if not wanted:
        return sentences
    out = list(sentences)
    for i in wanted:
        others = [text for j, (text, _n) in enumerate(out) if j != i]
        copy = _Copy(topic, heading, sentences[i][0], grounds[i], others, accept)
        tally.asked += 1
        text = _restated(copy, ask, tally)
        if text:
            tally.replaced += 1
        else:
            text = _condensed(copy, ask, tally)
            tally.condensed += bool(text)
        if text:
            out[i] = (text, out[i][1])
    return out


@dataclass(frozen=True)
class _Copy:
    """One copied sentence sent back: where it stands, what it was copied from, and the writer's rules."""

    topic: str
    heading: str
    original: str
    ground: str  # the passage it was copied from
    others: list[str]  # the section's other sentences (a replacement must not repeat them)
    accept: Callable[[str, str, list[str]], tuple[str, str]]

    def user(self, template: str, kept: list[str]) -> str:
        return template.format(
            topic=prompts.neutralise(self.topic),
            heading=prompts.neutralise(self.heading),
            sentence=_shown(self.original, kept),
        )

    def judged(self, text: str) -> tuple[str, str]:
        """`text` cleaned, or "" and why it may not take the copy's place: the writer's rules
        (`accept`), then faithfulness to the copy (`faithful`)."""
        kept, why = self.accept(text, self.ground, self.others)
        return self.faithful(kept) if not why else ("", why)

    def faithful(self, text: str) -> tuple[str, str]:
        why = _unfaithful(text, self.original, self.ground)
        return ("", why) if why else (text, "")


def _asked(ask: AskRestated, schema: type[Restatement], system: str, user: str, tally: Restated) -> str | None:
    """The model's text, or None when the call failed (counted: the copy stays, with a note)."""
    try:
        return str(ask(schema, [SystemMessage(system), HumanMessage(user)]).text)
    except InvalidModelOutput:
        tally.failed_calls += 1
        return None


def _restated(copy: _Copy, ask: AskRestated, tally: Restated) -> str:
    """The model's restatement of the copy when it passes every rule, else ""."""
    system = prompts.RESTATE_SYSTEM.format(untrusted_rule=prompts.UNTRUSTED_DATA_RULE)
    user = copy.user(prompts.RESTATE_USER, kept_words(copy.original, copy.heading, copy.topic))
    reply = _asked(ask, restatement_schema(opening(copy.original)), system, user, tally)
    if reply is None:
        return ""
    text, why = copy.judged(reply)
    if why:
        tally.rejected[why] += 1
        tally.example(why, reply)
    return text


def _condensed(copy: _Copy, ask: AskRestated, tally: Restated) -> str:
    """The model's condensation of the copy (phrases left out, grounded_condense.py) when it is one
    and passes every rule a restatement must, else ""."""
    lay = layout(copy.original)
    offered = choices(lay, lambda text: bool(copy.judged(text)[0]))
    if not offered:
        tally.condense_rejected["no condensation passes"] += 1  # nothing to ask: no call
        return ""
    system = prompts.CONDENSE_SYSTEM.format(untrusted_rule=prompts.UNTRUSTED_DATA_RULE)
    user = copy.user(prompts.CONDENSE_USER, lay.kept_words()[:MAX_KEPT])
    tally.condense_asked += 1
    reply = _asked(ask, condensation_schema(pattern(lay, offered)), system, user, tally)
    if reply is None:
        return ""
    written = read_back(reply, lay)
    text, why = copy.accept(written, copy.ground, copy.others) if written else ("", "not a condensation")
    if text and not leaves_out_enough(len(written.split()), lay):
        text, why = "", "left out too little"
    if text:
        text, why = copy.faithful(text)
    if why:
        tally.condense_rejected[why] += 1
        tally.example(f"condensed, {why}", reply)
    return text


def _unfaithful(text: str, original: str, ground: str) -> str:
    """Why `text`, which passed the writer's rules, may still not take `original`'s place ("": it may)."""
    if copied(text, ground):
        return "still a copy"
    if changed_tokens(text, ground):
        return "changed a number or name"
    return meaning_change(text, original, ground)


def opening(sentence: str) -> str:
    """The letters a restatement may not open with: those its original's first two words begin
    with ("The Pfizer-BioNTech vaccine..." -> "tp"), so dropping an article is not a new sentence."""
    return "".join(word[0].lower() for word in _OPENING_WORD.findall(sentence)[:2])


def _shown(sentence: str, kept: list[str]) -> str:
    line = prompts.neutralise(sentence)
    return line + ("\n" + prompts.RESTATE_KEEP.format(words="; ".join(kept)) if kept else "")


def kept_words(sentence: str, heading: str, topic: str) -> list[str]:
    """The words of `sentence` a restatement must keep to pass where the copy passed: its subject
    with what qualifies it (restated_meaning.py leaves out a restatement that drops it), those
    that make it address its section (the claim check's own fit rule, asked of each word), and its
    exact tokens (a number with its unit, a name written with inner capitals or digits). A small
    model told to restate "shorter" otherwise drops the very words that answered the question."""
    words = [w.strip(_EDGE) for w in sentence.split()]
    subject = set(subject_words(sentence))
    kept: list[str] = []
    for k, word in enumerate(words):
        if not word:
            continue
        if _EXACT.search(word):
            sign = words[k - 1] if k and words[k - 1].lower() in _SIGNS else ""  # "minus 80" is not "-80"
            unit = words[k + 1] if k + 1 < len(words) and words[k + 1].lower() in UNITS else ""
            kept.append(" ".join(w for w in (sign, word, unit) if w))
        elif word in subject or addresses(word, heading, topic):
            kept.append(word)
    return list(dict.fromkeys(kept))[:MAX_KEPT]
