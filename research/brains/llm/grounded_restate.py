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

Otherwise the copied sentence stays (it is true to its source; the eval counts it as copied). A
failed call keeps its sentence as it was, with a note. The claim check judges the result like any
other draft, so nothing here can make a sentence look supported that is not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from research import prompts
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
    examples: list[str] = field(default_factory=list)  # the first few left out, with why (for the log)


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
    cleaned (or "" and why it was rejected). One call per sentence: shown several at once, a 1.5B
    model ran them together (its first "restatement" held the first three sentences, its third the
    tail of one of them) and answered sentence 2 with sentence 3 (Qwen, 3 Dec)."""
    wanted = [i for i, (text, _n) in enumerate(sentences) if copied(text, grounds[i])][:MAX_RESTATED]
    if not wanted:
        return sentences
    system = prompts.RESTATE_SYSTEM.format(untrusted_rule=prompts.UNTRUSTED_DATA_RULE)
    out = list(sentences)
    for i in wanted:
        original = sentences[i][0]
        tally.asked += 1
        shown = _shown(original, heading, topic)
        user = prompts.RESTATE_USER.format(
            topic=prompts.neutralise(topic), heading=prompts.neutralise(heading), sentence=shown
        )
        schema = restatement_schema(opening(original))
        try:
            reply = ask(schema, [SystemMessage(system), HumanMessage(user)])
        except InvalidModelOutput:
            tally.failed_calls += 1
            continue
        others = [text for j, (text, _n) in enumerate(out) if j != i]
        text, why = accept(str(reply.text), grounds[i], others)
        if not why:
            why = (
                "still a copy"
                if copied(text, grounds[i])
                else "changed a number or name"
                if changed_tokens(text, grounds[i])
                else meaning_change(text, original, grounds[i])
            )
        if why:
            tally.rejected[why] += 1
            if len(tally.examples) < MAX_EXAMPLES:
                tally.examples.append(f'({why}): "{" ".join(str(reply.text).split())[:160]}"')
            continue
        out[i] = (text, out[i][1])
        tally.replaced += 1
    return out


def opening(sentence: str) -> str:
    """The letters a restatement may not open with: those its original's first two words begin
    with ("The Pfizer-BioNTech vaccine..." -> "tp"), so dropping an article is not a new sentence."""
    return "".join(word[0].lower() for word in _OPENING_WORD.findall(sentence)[:2])


def _shown(sentence: str, heading: str, topic: str) -> str:
    line = prompts.neutralise(sentence)
    kept = kept_words(sentence, heading, topic)
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
