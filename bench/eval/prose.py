"""Prose a presenter can read aloud: the draft's quoted sentences that are not the desk's voice.

Per draft, over its cited sentences (the quotes; the desk's own notices are not counted):
- `first_person`: the source's author speaking ("we argue", "our data");
- `method`: a document describing itself or its method ("This review summarises", "We searched");
- `dangling`: a demonstrative or opener whose referent is not in the quoted text: flagged by
  research/text/prose.py or the writer's openers, standing first in its paragraph or right after
  another quote (a quote's own first sentence may hold it);
- `off_answer_openers`: question sections whose first sentence does not address the question
  (research/drafts/fit.py).
The detectors are the writer's own sentence features, so these figures check that the writer
applies them to every sentence it prints, and what they let through shows here first.
"""

from __future__ import annotations

import re
from typing import Any

from research.brains.offline.offline_writer import _LEANS_BACK
from research.drafts.citations import CITATION, SOURCES_HEADING
from research.drafts.claims import draft_topic
from research.drafts.fit import addresses
from research.text import split_sentences
from research.text.prose import flaws
from research.text.quote import md_unquote

_SECTION = re.compile(r"(?m)^## (.+)$")
_NOT_QUESTIONS = frozenset({"summary", "known gaps"})


def prose_figures(draft: str) -> dict[str, Any]:
    body = draft.split(f"\n{SOURCES_HEADING}", 1)[0]
    topic = draft_topic(body)
    counts = {"quoted_sentences": 0, "first_person": 0, "method": 0, "dangling": 0, "off_answer_openers": 0}
    flagged: list[str] = []
    parts = _SECTION.split(body)
    for heading, text in zip(parts[1::2], parts[2::2], strict=False):
        if heading.strip().lower() == "known gaps":
            continue
        quoted = [p for p in re.split(r"\n\s*\n", text.strip()) if CITATION.search(p)]  # not the desk's notices
        for index, paragraph in enumerate(quoted):
            sentences = [md_unquote(CITATION.sub("", s)).strip() for s in split_sentences(paragraph)]
            cited = [bool(CITATION.search(s)) for s in split_sentences(paragraph)]
            for k, plain in enumerate(sentences):
                counts["quoted_sentences"] += 1
                found = [f for f in flaws(plain) if f != "dangling"]
                alone = k == 0 or cited[k - 1]  # first in its quote: its referent must be in it
                if alone and (_LEANS_BACK.match(plain) or "dangling" in flaws(plain)):
                    found.append("dangling")
                for kind in found:
                    counts[kind] += 1
                if found:
                    flagged.append(f"{'+'.join(found)}: {plain[:160]}")
            if index == 0 and heading.strip().lower() not in _NOT_QUESTIONS and True in cited:
                opening = " ".join(sentences[: cited.index(True) + 1])
                counts["off_answer_openers"] += not addresses(opening, heading, topic)
    return {**counts, "unfit_sentences": len(flagged), "flagged": flagged}


def aggregate_prose(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The prose figures over all drafts: the share of quoted sentences that are not the desk's voice."""
    quoted = sum(r["prose"]["quoted_sentences"] for r in rows)
    unfit = sum(r["prose"]["unfit_sentences"] for r in rows)
    return {
        "quoted_sentences": quoted,
        "unfit_sentence_share": round(unfit / quoted, 3) if quoted else 0.0,
        **{k: sum(r["prose"][k] for r in rows) for k in ("first_person", "method", "dangling", "off_answer_openers")},
    }
