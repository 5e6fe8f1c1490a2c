"""Near misses: topics that share words with the sample library but not its subjects (rust on cars
against Rust the language, the 1929 crash against an art market's "stock"), and the agreement of a
run's evidence with its draft. Every near-miss run must cite nothing and say nothing relevant was
found; on every topic the evidence status, the Known gaps of the draft and the JSON known_gaps
must name the same uncovered questions."""

from __future__ import annotations

import re
from typing import Any

from bench.eval.topics import EvalTopic
from research.runs.view import RunView

NEAR_MISS: list[EvalTopic] = [
    EvalTopic(topic, "near-miss", None)
    for topic in (
        "How do you prevent rust on old cars?",
        "Causes of the 1929 stock market crash",
        "How does municipal garbage collection work?",
        "How does the cold chain for frozen food work?",
        "What causes myocarditis in athletes?",
        "How do lipid nanoparticles in cosmetics work?",
        "History of the Nobel Prize in Literature",
        "Women painters of the Renaissance",
        "How did the Venice carnival begin?",
        "Exhibitions of modern sculpture in London",
        "How safe are mRNA vaccines for children?",
        "Who won the Nobel Prize in Physics in 2023?",
    )
]
NO_ANSWER_GROUPS = ("uncovered", "near-miss")
_GAPS_HEADING = re.compile(r"^## (Known gaps|Questions left open)\s*$", re.MULTILINE)


def draft_gaps(draft: str) -> list[str]:
    """The bullets under the draft's Known gaps (or an empty run's Questions left open)."""
    match = _GAPS_HEADING.search(draft)
    if not match:
        return []
    section = draft[match.end() :].split("\n## ", 1)[0]
    return [line[2:].strip() for line in section.splitlines() if line.startswith("- ")]


def agrees(view: RunView) -> bool:
    """Evidence, draft Known gaps and JSON known_gaps name the same uncovered questions."""
    detail = view.evidence_detail
    questions = list(view.research_questions)
    json_gaps = [g for g in view.known_gaps if g in questions]
    drawn = [g for g in draft_gaps(view.draft or "") if g in questions or f"{g}?" in questions]
    uncovered = (detail.questions - detail.questions_covered) if detail else len(questions)
    draft_set = {g.rstrip("?") for g in drawn}
    return len(json_gaps) == uncovered and {g.rstrip("?") for g in json_gaps} == draft_set


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    near = [r for r in rows if r["group"] == "near-miss"]
    return {
        "near_miss_off_subject_citations": sum(r["off_topic_cited"] for r in near),
        "near_miss_runs_say_nothing_found": f"{sum(r['says_empty'] for r in near)} of {len(near)}",
        "evidence_agrees_with_draft": f"{sum(r.get('agrees', False) for r in rows)} of {len(rows)}",
    }


def targets_met(rows: list[dict[str, Any]]) -> bool:
    near = [r for r in rows if r["group"] == "near-miss"]
    return all(r["off_topic_cited"] == 0 and r["says_empty"] for r in near) and all(r.get("agrees") for r in rows)


def markdown_rows(s: dict[str, Any]) -> list[str]:
    return [
        f"| off-subject citations, near-miss topics | {s['near_miss_off_subject_citations']} |",
        f"| near-miss runs that say nothing relevant was found | {s['near_miss_runs_say_nothing_found']} |",
        f"| runs whose evidence, draft Known gaps and JSON known_gaps agree | {s['evidence_agrees_with_draft']} |",
    ]
