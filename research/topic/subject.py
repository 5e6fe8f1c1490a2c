"""A topic's subject: the words a source must be about ("How do mRNA vaccines work?" -> "mRNA vaccines")."""

from __future__ import annotations

import re

from research.topic.aspects import aspect_of

_LEADING = re.compile(
    r"^(how\s+(?:safe|good|bad|big|much|many|old|fast|effective|common|important|useful|reliable|accurate)\s+"
    r"(?:is|are|was|were|do|does|did)|how|what|why|when|where|who|which|is|are|does|do|did|can|should|explain|describe|compare|"
    r"tell me about|give me|write about|research)\b(\s+(is|are|was|were|do|does|did|the|a|an|has|have|"
    r"can|should|might|would|about))*\s+",
    re.IGNORECASE,
)
_TRAILING = re.compile(
    r"(?<!\s)\s++(work|works|working|function|change|changed|affect|affected|matter|compare|happen|happened|"
    r"react|reacted|reacting|respond|responded|lead|led|cause|caused|begin|began|start|started|end|ended|"
    r"mean|means|influence|influenced|shape|shaped|evolve|evolved|spread)\b.*$",
    re.IGNORECASE,
)


# "How do you prevent rust...", "How can I learn Rust": the asker and their verb are not the subject.
_ASKER = re.compile(r"^(you|i|we|one|people|someone|they)\s+[a-z]+\s+", re.IGNORECASE)
# A second question joined on ("... painters and how were they received") is not the subject.
_JOINED_QUESTION = re.compile(r"\s*,?\s+(and|or|but)\s+(how|why|what|when|where|who|which|whether)\b.*$", re.IGNORECASE)
# "Rust vs Go", "Rust versus Go": a comparison (topic/question_forms.py splits on it too).
VERSUS = re.compile(r"\s+(?:vs\.?|versus)\s+", re.IGNORECASE)


def subject_of(topic: str) -> str:
    """The topic's subject: "How do mRNA vaccines work?" -> "mRNA vaccines";
    "What was the impact of the printing press?" -> "the printing press"."""
    text = " ".join(topic.strip().split()).rstrip("?.! ")
    text = _LEADING.sub("", text)
    text = _ASKER.sub("", text)
    text = _JOINED_QUESTION.sub("", text)
    text = _TRAILING.sub("", text)
    text = aspect_of(text) or text
    text = re.sub(r"^(a|an)\s+", "", text, flags=re.IGNORECASE)
    return VERSUS.sub(" and ", text).strip(" ,;:") or topic.strip()


def is_comparison(topic: str) -> bool:
    return bool(VERSUS.search(topic)) or topic.lower().lstrip().startswith("compare")
