"""What a question asks about its subject: an aspect of it ("the health effects of X", "the history
of X") and the stems its evidence is phrased with instead ("safety" -> "risk", "myocarditis").

One pattern and one table, read by the subject (research/topic/subject.py), the question forms, the
coverage of questions (research/relevance/coverage.py) and the claim check's fit (research/drafts/fit.py).
"""

from __future__ import annotations

import re

# Anchored, with at most two words qualifying the aspect: a bounded number of tries on any input.
ASPECT = re.compile(
    r"^(?:the\s+)?(?:\w+\s+){0,2}?(?:effects?|impacts?|benefits|risks|causes|consequences|origins?|history|role|"
    r"future|state|significance|influence)\s+of\s+(.+)$",
    re.IGNORECASE,
)

# Question words whose evidence is usually phrased differently (six-letter stems).
RELATED_STEMS: dict[str, frozenset[str]] = {
    "receiv": frozenset({"recept", "critic", "review"}),
    "legacy": frozenset({"influe", "afterm", "inheri"}),
    "origin": frozenset({"began", "begin", "emerge", "invent", "founde", "histor", "first"}),
    "contex": frozenset({"backgr", "histor", "before"}),
    "develo": frozenset({"histor", "invent", "first"}),
    "effect": frozenset({"impact", "conseq"}),
    "impact": frozenset({"effect", "conseq"}),
    "mechan": frozenset({"delive", "immune", "respon", "transl", "antige", "cell"}),
    "future": frozenset({"next", "emergi", "prospe", "platfo"}),
    "safety": frozenset({"safe", "risk", "advers", "side", "myocar"}),
    "safe": frozenset({"safety", "risk", "advers", "side", "myocar"}),  # "How safe are ...?"
}


def aspect_of(phrase: str) -> str | None:
    """What an aspect phrase is an aspect of ("the health effects of fasting" -> "fasting"), or None."""
    match = ASPECT.match(phrase)
    return match.group(1) if match else None


def related(stem: str) -> frozenset[str]:
    """The stems evidence for a question word's six-letter `stem` is also phrased with."""
    return RELATED_STEMS.get(stem, frozenset())
