"""The shape a report takes, chosen per run and per revision: brief, standard, detailed or
outline-first, and an optional target length in words.

One frozen model travels with the request (graph input, `run_started`, the revision event); the
writers read its `layout` (how many sentences a summary and a section hold, how many passages the
model is shown) and research/drafts/report_form.py renders the written draft in its shape and says
when the evidence could not fill the length asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ShapeName = Literal["brief", "standard", "detailed", "outline"]
SHAPES: dict[ShapeName, str] = {
    "brief": "Brief: a paragraph and bullets",
    "standard": "Standard",
    "detailed": "Detailed: longer sections, more sources",
    "outline": "Outline first",
}
MIN_TARGET_WORDS, MAX_TARGET_WORDS = 50, 3000
WORDS_PER_SENTENCE = 26  # a quoted or written source sentence, as the sample library's drafts measure
MAX_SECTION_SENTENCES = 16  # a structured section reply holds at most 20
MAX_PASSAGES = 8  # passages one section call shows (the grounded schema's passage enum)
TOKENS_PER_SENTENCE = 70  # one structured sentence and its passage number, JSON included
SHORT_OF_TARGET = 0.8  # below this share of the target the draft says the evidence ran out
OVER_TARGET = 1.1  # above this share the draft is trimmed to the target


@dataclass(frozen=True)
class ShapeLayout:
    """How much a writer puts in: sentences per summary and per section, sentences one source may
    give a section, passages a model is shown per section. `capped`: the reply token cap, not the
    target, set the section length."""

    summary_sentences: int
    section_sentences: int
    per_source: int
    passages: int
    capped: bool = False

    @property
    def section_count(self) -> str:
        """The model's sentence count for a section, as the prompt asks it ("2-4")."""
        low = max(1, math.ceil(self.section_sentences / 2))
        return str(low) if low >= self.section_sentences else f"{low}-{self.section_sentences}"

    @property
    def summary_count(self) -> str:
        low = max(1, self.summary_sentences - 1)
        return str(low) if low >= self.summary_sentences else f"{low}-{self.summary_sentences}"


# Standard is the desk's long-standing draft: a run that chooses nothing writes what it always wrote.
_LAYOUTS: dict[ShapeName, ShapeLayout] = {
    "brief": ShapeLayout(summary_sentences=3, section_sentences=1, per_source=1, passages=3),
    "standard": ShapeLayout(summary_sentences=3, section_sentences=4, per_source=2, passages=4),
    "detailed": ShapeLayout(summary_sentences=4, section_sentences=8, per_source=3, passages=8),
    "outline": ShapeLayout(summary_sentences=3, section_sentences=4, per_source=2, passages=4),
}


class ReportShape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    shape: ShapeName = "standard"
    target_words: int | None = Field(None, ge=MIN_TARGET_WORDS, le=MAX_TARGET_WORDS)

    @property
    def is_default(self) -> bool:
        return self.shape == "standard" and self.target_words is None

    @property
    def label(self) -> str:
        """ "Brief, about 150 words" as the dashboard, the CLI and version notes say it."""
        name = SHAPES[self.shape].split(":", 1)[0]
        return f"{name}, about {self.target_words:,} words" if self.target_words else name

    def layout(self, sections: int, reply_tokens: int | None = None) -> ShapeLayout:
        """The layout for a draft of `sections` question sections; a target length sets the section
        length (a brief stays one sentence per question), within `reply_tokens` per section reply."""
        base = _LAYOUTS[self.shape]
        per_section = base.section_sentences
        if self.target_words is not None and self.shape != "brief":
            wanted = math.ceil(self.target_words / WORDS_PER_SENTENCE) - base.summary_sentences
            per_section = min(MAX_SECTION_SENTENCES, max(1, math.ceil(wanted / max(1, sections))))
        capped = False
        if reply_tokens is not None and per_section * TOKENS_PER_SENTENCE > reply_tokens:
            per_section, capped = max(1, reply_tokens // TOKENS_PER_SENTENCE), True
        passages = min(MAX_PASSAGES, max(base.passages, math.ceil(per_section / 2)))
        per_source = max(base.per_source, math.ceil(per_section / 4))
        return ShapeLayout(base.summary_sentences, per_section, per_source, passages, capped)


STANDARD = ReportShape()
