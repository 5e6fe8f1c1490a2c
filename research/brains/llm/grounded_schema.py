"""What the grounded writer asks a model for: sentences, each naming the numbered passage it rests on.

The passage number is an enum of the numbers the call showed (0 = "no passage answers this"), so
a server that turns the schema into a grammar (llama-cpp-python) cannot even write a number it
was not given; validation accepts any integer, and the writer drops what is not one of them (an
OpenAI-style server only follows the schema as a request). One class per passage count, built
once, all named SectionSentences (the schema's name is what servers and the fake model see).
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

from research.brains.llm.grammar_schema import text_field, text_pattern

M = TypeVar("M", bound=BaseModel)
NO_PASSAGE = 0
MAX_PASSAGES = 8
# The longest passage a section shows the model (the writer's and the reviser's best_snippet).
PASSAGE_CHARS = 420
# Room for a sentence copied whole from the longest passage, and a few words more: the grammar's
# default string cap (160 characters) cut such sentences mid-word, and so did a 400-character room
# under 420-character passages. Declared for the grammar only (json_schema_extra), so a longer
# sentence from a server that merely reads the schema is no failed reply. A sentence that still
# reaches the room was cut there (the grammar ends it): the writer drops it, never shows it cut.
MAX_SENTENCE_CHARS = PASSAGE_CHARS + 60


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")  # a server's extra keys are not an invalid reply


class GroundedSentence(_Reply):
    # The passage first: the model commits to what it rests on, then writes from it.
    passage: int = Field(description="the number of the passage this sentence rests on (0: none answers)")
    text: str = text_field("one sentence in your own words: no citation markers, no URLs", MAX_SENTENCE_CHARS)


class SectionSentences(_Reply):
    sentences: list[GroundedSentence] = Field(max_length=20)


@functools.lru_cache(maxsize=MAX_PASSAGES + 1)
def section_schema(passages: int) -> type[SectionSentences]:
    """SectionSentences whose `passage` may only be 0..passages in the JSON schema sent."""
    numbers = range(NO_PASSAGE, max(0, min(passages, MAX_PASSAGES)) + 1)
    return _numbered(SectionSentences, "sentences", GroundedSentence, "passage", list(numbers))


def _numbered(outer: type[M], items: str, item: type[BaseModel], number: str, numbers: list[JsonValue]) -> type[M]:
    """`outer` whose list field `items` holds `item`s whose int field `number` is an enum of `numbers`."""
    description = item.model_fields[number].description
    enum = Field(description=description, json_schema_extra={"enum": numbers})
    build: Any = create_model  # field names chosen at run time: the overloads cannot type **fields
    inner: Any = build(item.__name__, __base__=item, **{number: (int, enum)})
    listed: Any = list[inner]
    return cast("type[M]", build(outer.__name__, __base__=outer, **{items: (listed, Field(max_length=20))}))


# A restatement is shorter than the sentence it restates: the grammar's room says so too.
MAX_RESTATED_CHARS = 220


class Restatement(_Reply):
    text: str = text_field("the sentence restated: its own words in a new order, the facts kept", MAX_RESTATED_CHARS)


class Condensation(Restatement):
    """A copied sentence with words left out (grounded_condense.py): its grammar is its own pattern."""

    text: str = text_field("the sentence, phrases left out, the other words as written", MAX_SENTENCE_CHARS)


@functools.lru_cache(maxsize=64)
def restatement_schema(opening: str = "") -> type[Restatement]:
    """Restatement whose text, on a server that turns the schema into a grammar (llama-cpp), may
    not open with any letter of `opening` (the first letters of its original's first two words: a
    small model told to restate otherwise deletes a word or two and keeps the rest in order, still
    a copy). Validation is unchanged: any opening (a server that only reads the schema may write it)."""
    text = Field(
        description=Restatement.model_fields["text"].description,
        json_schema_extra={"maxLength": MAX_RESTATED_CHARS, "pattern": text_pattern(MAX_RESTATED_CHARS, opening)},
    )
    build: Any = create_model
    return cast("type[Restatement]", build(Restatement.__name__, __base__=Restatement, text=(str, text)))
