"""How well the relevance score separates a topic's own documents from the rest of the library,
and where MIN_SCORE sits in that gap: every sample document judged against every eval topic."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from bench.eval.topics import TOPICS

THRESHOLDS = (0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8)


def measure() -> dict[str, Any]:
    from research.relevance.ranking import MIN_SCORE, judge_source
    from research.sources.library.library_store import Library

    with tempfile.TemporaryDirectory(prefix="eval-rel-") as tmp:
        library = Library(Path(tmp) / "library.sqlite")
        library.ensure_sample()
        docs = [(d, library.get_text(d.id)) for d in library.list_documents(limit=1000)]
        library.close()
    pairs = []  # (own document?, judgement)
    for item in TOPICS:
        if item.group == "imported":
            continue
        for doc, text in docs:
            match = re.match(r"library://sample/([^/]+)/", doc.url)
            own = bool(match and match.group(1) == item.library_topic)
            pairs.append((own, judge_source(item.topic, item.topic, doc.title, "", text)))
    own = [j for o, j in pairs if o]
    other = [j for o, j in pairs if not o]
    sweep = {
        f"{t:.2f}": {
            "own_kept": round(sum(j.score >= t and not j.reason.startswith("not about") for j in own) / len(own), 3),
            "other_kept": sum(j.score >= t and not j.reason.startswith("not about") for j in other),
        }
        for t in THRESHOLDS
    }
    return {
        "pairs": len(pairs),
        "own_documents_kept": round(sum(j.keep for j in own) / len(own), 3),
        "other_documents_kept": sum(j.keep for j in other),
        "min_score": MIN_SCORE,
        "own_min_score_kept": min((j.score for j in own if j.keep), default=None),
        "other_max_score": max((j.score for j in other), default=None),
        "sweep": sweep,
    }
