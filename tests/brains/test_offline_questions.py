"""Offline research questions are grammatical for any topic shape: questions, noun phrases,
comparisons, plurals, "how are X made", "why did X", imperatives."""

from __future__ import annotations

import re

import pytest

from research.brains.offline.offline_brain import OfflineBrain
from research.topic.question_forms import topic_form

EXPECTED = {
    "How are bagpipes made?": [
        "How are bagpipes made?",
        "What are bagpipes?",
        "What are the main arguments and evidence about bagpipes?",
    ],
    "Why did the Roman Empire fall?": [
        "Why did the Roman Empire fall?",
        "What were the origins and context of the fall of the Roman Empire?",
        "What were the immediate effects of the fall of the Roman Empire?",
    ],
    "Explain quantum entanglement": [
        "What is the mechanism behind quantum entanglement?",
        "What does the evidence say about the effectiveness and safety of quantum entanglement?",
        "How did quantum entanglement develop, and what are the future directions?",
    ],
    "Tell me about black holes": [
        "What are black holes?",
        "What are the main arguments and evidence about black holes?",
        "What open questions remain about black holes?",
    ],
    "heat pumps": [
        "What are heat pumps?",
        "What are the main arguments and evidence about heat pumps?",
        "What open questions remain about heat pumps?",
    ],
    "Describe the water cycle": [
        "What is the water cycle?",
        "What are the main arguments and evidence about the water cycle?",
        "What open questions remain about the water cycle?",
    ],
    "Rust vs Go for backend services": [
        "How do Rust and Go differ in design and goals for backend services?",
        "How do Rust and Go compare on performance, safety and productivity for backend services?",
        "Who uses Rust and who uses Go for backend services, and what trade-offs do teams report?",
    ],
    "What are the health effects of intermittent fasting?": [
        "What are the health effects of intermittent fasting?",
        "What is the mechanism behind intermittent fasting?",
        "What does the evidence say about the effectiveness and safety of intermittent fasting?",
    ],
    "Is coffee bad for you?": [
        "Is coffee bad for you?",
        "What is coffee?",
        "What are the main arguments and evidence about coffee?",
    ],
    "When was the Eiffel Tower built?": [
        "When was the Eiffel Tower built?",
        "What is the Eiffel Tower?",
        "What are the main arguments and evidence about the Eiffel Tower?",
    ],
    "Impressionist painting": [
        "What are the origins of impressionist painting, and who were its key figures?",
        "What techniques and ideas define impressionist painting?",
        "How was impressionist painting received, and what is its legacy?",
    ],
    "Latest news on the Mars rover": [
        "What happened with the Mars rover, and when?",
        "Who is affected by the Mars rover, and how?",
        "How have experts and officials responded to the Mars rover?",
    ],
    "Breaking: earthquake in Chile": [
        "What happened with the earthquake in Chile, and when?",
        "Who is affected by the earthquake in Chile, and how?",
        "How have experts and officials responded to the earthquake in Chile?",
    ],
    "The history of the printing press": [
        "What is the history of the printing press?",
        "What were the origins and context of the printing press?",
        "What were the immediate effects of the printing press?",
    ],
}


@pytest.mark.parametrize(
    "topic, plural",
    [
        ("bagpipes", True),
        ("mRNA vaccines", True),
        ("the Roman Empire", False),
        ("quantum entanglement", False),
        ("CRISPR", False),
        ("physics", False),
        ("the United States", False),
        ("species", False),
        ("children", True),
    ],
)
def test_number_agreement(topic: str, plural: bool) -> None:
    assert topic_form(topic).plural is plural


MORE_TOPICS = [
    "How do birds navigate?",
    "What causes migraines?",
    "Who invented the telephone?",
    "Compare Python and Java",
    "Should cities ban cars?",
    "Can dogs see colour?",
    "Why is the sky blue?",
    "Explain how vaccines work",
    "Impact of social media on teenagers",
    "What were the causes of World War I?",
    "Cats vs dogs as pets",
    "How does CRISPR edit genes?",
    "Is remote work better than office work?",
    "What are bagpipes made of?",
    "Breaking: earthquake in Chile",
    "What is CRISPR?",
]


@pytest.mark.parametrize("topic", MORE_TOPICS)
def test_no_template_question_carries_a_dangling_predicate(topic: str) -> None:
    questions = OfflineBrain().plan(topic, max_researchers=3, wants_allocation=True).research_questions
    assert len(questions) == 3 and len(set(questions)) == 3
    own = topic.strip().rstrip("?") + "?"
    for q in questions:
        assert q[0].isupper() and q.endswith("?") and "  " not in q
        if q.lower() == own.lower():
            continue  # the user's own question, as asked
        assert not re.search(r"\b(made|built|invented|fall|ban|see|navigate|blue|bad|of)\?$", q), q
        assert not re.match(r"^What is \w+s\?$", q) or q in ("What is CRISPR?",), q
        assert "Breaking:" not in q


def test_the_asker_is_not_the_subject() -> None:
    from research.topic.offline_plan import classify_topic, research_questions

    for topic, subject in (
        ("How do you prevent rust on old cars?", "rust on old cars"),
        ("How can I learn Rust?", "Rust"),
    ):
        questions = research_questions(topic, classify_topic(topic)[0])
        assert questions[0] == topic
        assert all(" you" not in q.lower().replace(topic.lower(), "") for q in questions[1:])
        assert any(subject in q for q in questions[1:]), questions


# --- the topic's form decides the questions, not a class the subject's words suggest --------------

FORM_EXPECTED = {
    # a how-to: the user's question, what causes (or what is) its object, which ways work
    "How do you prevent rust on old cars?": [
        "How do you prevent rust on old cars?",
        "What causes rust on old cars?",
        "Which ways to prevent rust on old cars work best, and what does the evidence say?",
    ],
    "How to fix a leaking tap": [
        "How to fix a leaking tap?",
        "What causes a leaking tap?",
        "Which ways to fix a leaking tap work best, and what does the evidence say?",
    ],
    "How can I learn Rust?": [
        "How can I learn Rust?",
        "What is Rust?",
        "Which ways to learn Rust work best, and what does the evidence say?",
    ],
    # its causes
    "Causes of the 1929 stock market crash": [
        "What are the causes of the 1929 stock market crash?",
        "Which causes of the 1929 stock market crash does the evidence support most strongly?",
        "How do experts explain the 1929 stock market crash, and where do they disagree?",
    ],
    "Causes of World War I": [
        "What are the causes of World War I?",
        "Which causes of World War I does the evidence support most strongly?",
        "How do experts explain World War I, and where do they disagree?",
    ],
    "What causes volcanic eruptions?": [
        "What causes volcanic eruptions?",
        "Which causes of volcanic eruptions does the evidence support most strongly?",
        "How do experts explain volcanic eruptions, and where do they disagree?",
    ],
    # its impact: past when asked so (or a historical subject), present otherwise
    "What was the impact of the printing press?": [
        "What was the impact of the printing press?",
        "What did the printing press change, and for whom?",
        "What is the long-term legacy of the printing press, and how do historians debate it?",
    ],
    "What is the impact of remote work?": [
        "What is the impact of remote work?",
        "What has remote work changed, and for whom?",
        "What does the evidence say about how large the impact of remote work is?",
    ],
}


@pytest.mark.parametrize("topic", [*EXPECTED, *FORM_EXPECTED])
def test_questions_are_grammatical_and_follow_the_topics_form(topic: str) -> None:
    plan = OfflineBrain().plan(topic, max_researchers=3, wants_allocation=True)
    assert plan.research_questions == (EXPECTED | FORM_EXPECTED)[topic]


@pytest.mark.parametrize(
    ("topic", "shape", "subject"),
    [
        ("How do you prevent rust on old cars?", "how_to", "rust on old cars"),
        ("How can I learn Rust?", "how_to", "Rust"),
        ("Causes of the 1929 stock market crash", "causes", "the 1929 stock market crash"),
        ("What caused the 1929 stock market crash?", "causes", "the 1929 stock market crash"),
        ("What was the impact of the printing press?", "impact", "the printing press"),
        ("The effects of the Black Death", "impact", "the Black Death"),
        ("What are the health effects of intermittent fasting?", "plain", "intermittent fasting"),  # qualified
        ("How do mRNA vaccines work?", "plain", "mRNA vaccines"),
    ],
)
def test_the_form_names_its_shape_and_subject(topic: str, shape: str, subject: str) -> None:
    form = topic_form(topic)
    assert (form.shape, form.subject) == (shape, subject)


def test_a_clause_after_the_verb_is_no_how_to_object() -> None:
    assert topic_form("How do you know when bread is done?").shape == "plain"


def test_a_long_how_to_is_read_in_linear_time() -> None:
    topic = "How do you prevent " + "rust on old cars and " * 5000 + "vans?"
    assert topic_form(topic).shape == "how_to"  # word by word: no pattern to backtrack on
