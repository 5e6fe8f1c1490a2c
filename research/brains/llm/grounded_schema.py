"""What the grounded writer asks a model for: sentences, each naming the numbered passage it rests on.

The passage number is an enum of the numbers the call showed (0 = "no passage answers this"), so
a server that turns the schema into a grammar (llama-cpp-python) cannot even write a number it
was not given; validation accepts any integer, and the writer drops what is not one of them (an
OpenAI-style server only follows the schema as a request). One class per passage count, built
once, all named SectionSentences (the schema's name is what servers and the fake model see).
"""

from __future__ import annotations

import functools

from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

from research.brains.llm.grammar_schema import text_field

NO_PASSAGE = 0
MAX_PASSAGES = 8
# Room for a long sentence copied or paraphrased from a passage: the grammar's default string cap
# (160 characters) cut such sentences mid-word. Declared for the grammar only (json_schema_extra),
# so a longer sentence from a server that merely reads the schema is trimmed, not a failed reply.
MAX_SENTENCE_CHARS = 400


class GroundedSentence(BaseModel):
    model_config = ConfigDict(extra="ignore")
    # The passage first: the model commits to what it rests on, then writes from it.
    passage: int = Field(description="the number of the passage this sentence rests on (0: none answers)")
    text: str = text_field("one sentence in your own words: no citation markers, no URLs", MAX_SENTENCE_CHARS)


class SectionSentences(BaseModel):
    model_config = ConfigDict(extra="ignore")
    sentences: list[GroundedSentence] = Field(max_length=20)


@functools.lru_cache(maxsize=MAX_PASSAGES + 1)
def section_schema(passages: int) -> type[SectionSentences]:
    """SectionSentences whose `passage` may only be 0..passages in the JSON schema sent."""
    count = max(0, min(passages, MAX_PASSAGES))
    numbers: list[JsonValue] = list(range(NO_PASSAGE, count + 1))
    sentence = create_model(
        "GroundedSentence",
        __base__=GroundedSentence,
        passage=(
            int,
            Field(
                description="the number of the passage this sentence rests on (0: none answers)",
                json_schema_extra={"enum": numbers},
            ),
        ),
    )
    return create_model(
        "SectionSentences",
        __base__=SectionSentences,
        sentences=(list[sentence], Field(max_length=20)),
    )


# A restatement is shorter than the sentence it restates: the grammar's room says so too.
MAX_RESTATED_CHARS = 220


class Restatement(BaseModel):
    model_config = ConfigDict(extra="ignore")
    sentence: int = Field(description="the number of the sentence restated")
    text: str = text_field("the sentence restated: shorter, in plain words, the facts kept", MAX_RESTATED_CHARS)


class Restatements(BaseModel):
    model_config = ConfigDict(extra="ignore")
    restated: list[Restatement] = Field(max_length=20)


@functools.lru_cache(maxsize=MAX_PASSAGES + 1)
def restatement_schema(sentences: int) -> type[Restatements]:
    """Restatements whose `sentence` may only be 1..sentences in the JSON schema sent."""
    numbers: list[JsonValue] = list(range(1, max(1, min(sentences, 20)) + 1))
    item = create_model(
        "Restatement",
        __base__=Restatement,
        sentence=(int, Field(description="the number of the sentence restated", json_schema_extra={"enum": numbers})),
    )
    return create_model("Restatements", __base__=Restatements, restated=(list[item], Field(max_length=20)))
