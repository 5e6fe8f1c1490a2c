"""Offline topic understanding: what kind of topic this is, its subject, and the questions to ask.

The same allocation guidance the LLM supervisor gets in its prompt, applied with a keyword
classifier so runs without a model still send the right researchers.
"""

from __future__ import annotations

import re
from typing import Literal

from research.schemas.researchers import ResearcherAllocation
from research.topic.question_forms import topic_form

__all__ = [
    "ALLOCATION_GUIDANCE",
    "GUIDANCE_LABEL",
    "TopicClass",
    "classify_topic",
    "research_questions",
]

TopicClass = Literal["technology", "scientific", "humanities", "historical", "news", "unclear"]

ALLOCATION_GUIDANCE: dict[TopicClass, ResearcherAllocation] = {
    "technology": ResearcherAllocation(web=2, academic=1, book=0),
    "scientific": ResearcherAllocation(web=1, academic=2, book=0),
    "humanities": ResearcherAllocation(web=0, academic=2, book=1),
    "historical": ResearcherAllocation(web=1, academic=1, book=1),
    "news": ResearcherAllocation(web=3, academic=0, book=0),
    "unclear": ResearcherAllocation(web=1, academic=1, book=1),
}

GUIDANCE_LABEL: dict[TopicClass, str] = {
    "technology": "technology, tools and products lean on web sources (2,1,0)",
    "scientific": "scientific and medical topics lean on academic sources (1,2,0)",
    "humanities": "humanities and arts lean on scholarship and books (0,2,1)",
    "historical": "historical and theoretical topics get a balanced team (1,1,1)",
    "news": "breaking news is covered from the web (3,0,0)",
    "unclear": "an unclear topic gets a balanced team (1,1,1)",
}

# Cue words per class: whole words or phrases (a plural "s"/"es" allowed), or stems ending in "*".
# A topic scores one point per cue it contains.
_KEYWORDS: dict[TopicClass, tuple[str, ...]] = {
    "news": (
        "breaking",
        "latest",
        "today",
        "this week",
        "yesterday",
        "announced",
        "announcement",
        "election result",
        "outage",
        "just released",
        "news",
        "current event",
        "ongoing",
    ),
    "technology": (
        "software",
        "programming",
        "rust",
        "golang",
        "go",
        "python",
        "javascript",
        "typescript",
        "framework",
        "library",
        "database",
        "cloud",
        "kubernetes",
        "docker",
        "api",
        "app",
        "startup",
        "product",
        "tool",
        "devops",
        "backend",
        "frontend",
        "compiler",
        "gpu",
        "chip",
        "smartphone",
        "llm",
        "large language model",
        "machine learning",
        "ai",
        "artificial intelligence",
        "algorithm",
        "open source",
        "web",
        "browser",
        "server",
        "cyber*",
        "crypto*",
        "blockchain",
        "saas",
        "vs",
        "versus",
        "compare",
        "benchmark",
        "microservice*",
        "react",
        "linux",
    ),
    "scientific": (
        "vaccine",
        "mrna",
        "gene",
        "genetic*",
        "crispr",
        "protein",
        "cell",
        "cancer",
        "disease",
        "medical",
        "medicine",
        "clinical",
        "drug",
        "therapy",
        "immune",
        "virus",
        "bacteria",
        "brain",
        "neuro*",
        "climate",
        "physics",
        "quantum",
        "chemistry",
        "biology",
        "ecolog*",
        "health",
        "diet",
        "nutrition",
        "sleep",
        "trial",
        "evolution",
        "species",
        "molecul*",
        "astronom*",
        "planet",
        "enzyme",
        "epidemi*",
        "pandemic",
        "antibiot*",
    ),
    "humanities": (
        "art",
        "painting",
        "painter",
        "impressionis*",
        "literature",
        "novel",
        "poetry",
        "poet",
        "music",
        "philosoph*",
        "religio*",
        "theolog*",
        "aesthetic*",
        "film",
        "cinema",
        "theatre",
        "theater",
        "sculpture",
        "architecture",
        "culture",
        "myth",
        "language",
        "linguistic*",
        "ethic*",
        "renaissance art",
        "baroque",
        "modernism",
        "romanticism",
        "opera",
    ),
    "historical": (
        "history",
        "historical",
        "century",
        "ancient",
        "medieval",
        "empire",
        "war",
        "revolution",
        "dynasty",
        "colonial",
        "printing press",
        "gutenberg",
        "industrial revolution",
        "civilization",
        "civilisation",
        "origins of",
        "rise and fall",
        "fall of",
        "impact of the",
        "reformation",
        "cold war",
        "theory of",
        "theoretical",
        "treaty",
        "monarch",
        "roman",
        "ottoman",
    ),
}


def classify_topic(topic: str) -> tuple[TopicClass, list[str]]:
    """The best-scoring class and the cue words that decided it ("unclear" when nothing matches)."""
    text = f" {topic.lower()} "
    best: TopicClass = "unclear"
    best_cues: list[str] = []
    for cls, stems in _KEYWORDS.items():
        cues = [cue[:-1] + "…" if cue.endswith("*") else cue for cue in stems if _contains(text, cue)]
        # News cues win outright: recency matters more than the subject's field.
        if cls == "news" and cues:
            return "news", cues
        if len(cues) > len(best_cues):
            best, best_cues = cls, cues
    return best, best_cues


def _contains(text: str, cue: str) -> bool:
    if cue.endswith("*"):  # a stem: any word that starts with it
        return re.search(r"\b" + re.escape(cue[:-1]), text) is not None
    return re.search(r"\b" + re.escape(cue) + r"(s|es)?\b", text) is not None


# {s} is a noun phrase; {be} {was} {does} {it} {its} agree with it (research/topic/question_forms.py).
_QUESTIONS: dict[TopicClass, tuple[str, ...]] = {
    "technology": (
        "What {be} {s}, and what problems {does} {it} address?",
        "How {does} {s} compare with the alternatives on performance, safety and productivity?",
        "Who uses {s} in practice, and what trade-offs do teams report?",
    ),
    "scientific": (
        "What is the mechanism behind {s}?",
        "What does the evidence say about the effectiveness and safety of {s}?",
        "How did {s} develop, and what are the future directions?",
    ),
    "humanities": (
        "What are the origins of {s}, and who were {its} key figures?",
        "What techniques and ideas define {s}?",
        "How {was} {s} received, and what is {its} legacy?",
    ),
    "historical": (
        "What were the origins and context of {s}?",
        "What were the immediate effects of {s}?",
        "What is the long-term legacy of {s}, and how do historians debate it?",
    ),
    "news": (
        "What happened with {s}, and when?",
        "Who is affected by {s}, and how?",
        "How have experts and officials responded to {s}?",
    ),
    "unclear": (
        "What {be} {s}?",
        "What are the main arguments and evidence about {s}?",
        "What open questions remain about {s}?",
    ),
}

# Topics whose form says what they ask, whatever their class (a how-to about rust on old cars is not
# a technology because "rust" is a programming language). A how-to keeps the user's question first;
# {first} asks what the object is (or causes it), {v} is the how-to's verb, {s} its object.
_HOW_TO_QUESTIONS = (
    "{first}",
    "Which ways to {v} {s} work best, and what does the evidence say?",
)
# How-tos about a problem ask first what causes it; others what the thing is.
_PROBLEM_VERBS = frozenset(
    {
        "prevent",
        "stop",
        "avoid",
        "reduce",
        "treat",
        "cure",
        "fix",
        "remove",
        "repair",
        "control",
        "manage",
        "fight",
        "beat",
        "overcome",
        "relieve",
        "eliminate",
        "lower",
        "slow",
        "limit",
        "handle",
        "tackle",
        "solve",
    }
)
_CAUSES_QUESTIONS = (
    "Which causes of {s} does the evidence support most strongly?",
    "How do experts explain {s}, and where do they disagree?",
)
_IMPACT_QUESTIONS = {
    True: (  # asked in the past tense, or a historical subject
        "What did {s} change, and for whom?",
        "What is the long-term legacy of {s}, and how do historians debate it?",
    ),
    False: (
        "What {has} {s} changed, and for whom?",
        "What does the evidence say about how large the impact of {s} is?",
    ),
}

_COMPARISON_QUESTIONS = (
    "How do {a} and {b} differ in design and goals{ctx}?",
    "How do {a} and {b} compare on performance, safety and productivity{ctx}?",
    "Who uses {a} and who uses {b}{ctx}, and what trade-offs do teams report?",
)
_GENERAL_COMPARISON_QUESTIONS = (
    "How do {a} and {b} differ{ctx}?",
    "What are the strengths and weaknesses of {a} compared with {b}{ctx}?",
    "What does the evidence say about {a} and {b}{ctx}?",
)
MAX_OFFLINE_QUESTIONS = 3


def research_questions(topic: str, topic_class: TopicClass) -> list[str]:
    """Three grammatical questions: the user's own question when it says more than the templates,
    then the templates of the topic's shape (a how-to, its causes, its impact) or else of its class,
    with the topic's noun phrase and the forms that agree with it."""
    form = topic_form(topic)
    if form.kind == "comparison" and form.right:
        templates = _COMPARISON_QUESTIONS if topic_class == "technology" else _GENERAL_COMPARISON_QUESTIONS
        questions = [t.format(a=form.left, b=form.right, ctx=form.context) for t in templates]
    elif form.shape == "how_to":
        agree = form.agree()
        first = f"What causes {form.subject}?" if form.verb in _PROBLEM_VERBS else f"What {agree['be']} {form.subject}?"
        questions = [form.asked or "", *(t.format(first=first, v=form.verb, s=form.subject) for t in _HOW_TO_QUESTIONS)]
    elif form.shape == "causes":
        asked = form.asked or f"What are the causes of {form.subject}?"
        questions = [asked, *(t.format(s=form.subject) for t in _CAUSES_QUESTIONS)]
    elif form.shape == "impact":
        past = form.past or topic_class == "historical"
        asked = form.asked or f"What {'was' if past else 'is'} the impact of {form.subject}?"
        questions = [asked, *(t.format(s=form.subject, **form.agree()) for t in _IMPACT_QUESTIONS[past])]
    else:
        questions = [t.format(s=form.subject, **form.agree()) for t in _QUESTIONS[topic_class]]
        if form.asked:
            questions.insert(0, form.asked)
    unique = list(dict.fromkeys(_capitalise(q) for q in questions if q))
    return unique[:MAX_OFFLINE_QUESTIONS]


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
