"""What shape a topic has, so offline questions about it are grammatical.

"How are bagpipes made?" is a question with a subject ("bagpipes", plural) and a predicate
("made"); "Why did the Roman Empire fall?" nominalises to "the fall of the Roman Empire";
"Explain quantum entanglement" and "heat pumps" are noun phrases; "Rust vs Go for backend
services" compares two things in a context. Templates then get a noun phrase that fits their slot
and the verb and pronoun forms that agree with it (is/are, it/they).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from research.topic.aspects import aspect_of
from research.topic.question_words import (
    BE,
    DETERMINERS,
    DO,
    GENERIC_PREDICATES,
    MODAL,
    NOMINAL,
    PREPOSITIONS,
    VERBS,
    WH,
    adjective,
    is_plural,
    looks_verb,
    participle,
)
from research.topic.subject import VERSUS

FormKind = Literal["noun_phrase", "wh", "yes_no", "imperative", "comparison"]
# What the topic asks about its subject, for the templates: a how-to ("How do you prevent rust on
# old cars?"), its causes ("Causes of the 1929 stock market crash", "What causes migraines?"), its
# impact ("What was the impact of the printing press?"), or the subject itself (the class's templates).
Shape = Literal["plain", "how_to", "causes", "impact"]
CAUSE_WORDS = frozenset({"cause", "causes", "caused"})
IMPACT_WORDS = frozenset({"impact", "impacts", "consequences", "influence", "significance", "effect", "effects"})
# A how-to's object that is a clause ("How do you know when bread is done") is no noun phrase.
_CLAUSE_WORDS = frozenset({"if", "whether", "that"}) | WH

_IMPERATIVE = re.compile(
    r"^(explain|describe|summari[sz]e|discuss|outline|analy[sz]e|tell me about|give me an overview of|"
    r"give an overview of|write about|research|investigate|review|explore)\s+",
    re.IGNORECASE,
)
_NEWS_LEAD = re.compile(
    r"^(?:the\s+)?(?:latest|recent|breaking|current)(?:\s+(?:news|developments|updates|events))?:?"
    r"(?:\s+(?:on|about|in|of|for|from))?\s+",
    re.IGNORECASE,
)
# Who asks ("How do you...", "How can I..."): never the subject of the questions.
ASKERS = frozenset({"you", "i", "we", "one", "people", "someone"})
_COMPARE_LEAD = re.compile(r"^(compare|comparing|contrast)\s+", re.IGNORECASE)
# A match starts only at a run's first space and never gives a space back: linear on long runs.
_CONTEXT = re.compile(r"(?<!\s)\s++(for|in|on|when|as|at|under)\s+", re.IGNORECASE)


@dataclass
class TopicForm:
    kind: FormKind
    subject: str  # a noun phrase that fits "What is the mechanism behind ___?"
    plural: bool
    asked: str | None = None  # the user's own question, when it says more than the templates
    left: str = ""  # comparisons: the two things compared and their context (" for backend services")
    right: str = ""
    context: str = ""
    shape: Shape = "plain"
    verb: str = ""  # a how-to's verb ("prevent"), its object being the subject
    past: bool = False  # the topic asks in the past tense ("What was the impact of ...")

    def agree(self) -> dict[str, str]:
        """Verb and pronoun forms that agree with the subject, for the templates."""
        p = self.plural
        return {
            "be": "are" if p else "is",
            "was": "were" if p else "was",
            "does": "do" if p else "does",
            "it": "they" if p else "it",
            "its": "their" if p else "its",
            "has": "have" if p else "has",
        }


def topic_form(topic: str) -> TopicForm:
    text = " ".join(topic.strip().split()).rstrip("?.! ")
    words = text.split()
    if not words:
        return TopicForm("noun_phrase", topic.strip(), False)
    if _NEWS_LEAD.match(text) and len(_NEWS_LEAD.sub("", text).split()) >= 1:
        text = _NEWS_LEAD.sub("", text)  # "Latest news on the Mars rover": about the rover
        words = text.split()
        if words[0][:1].islower() and words[0] not in DETERMINERS and not is_plural(words[0]):
            words = ["the", *words]  # "Breaking: earthquake in Chile" -> "the earthquake in Chile"
            text = " ".join(words)
    first = words[0].lower()
    if VERSUS.search(text) or _COMPARE_LEAD.match(text):
        return _comparison(_COMPARE_LEAD.sub("", _IMPERATIVE.sub("", text)))
    imperative = _IMPERATIVE.match(text)
    if imperative:
        rest = text[imperative.end() :]
        if rest.split()[0].lower() in WH:  # "Explain how vaccines work": the clause's subject
            return _form("imperative", _clause_subject(rest.split()[1:]) or rest, None)
        return _form("imperative", rest, None)
    if first in WH:
        return _wh(words, text)
    if first in BE | DO | MODAL and len(words) > 1:
        subject = _cut(words[1:], be=first in BE) or " ".join(words[1:])
        return _form("yes_no", subject, _as_question(text))
    return _form("noun_phrase", text, None)


def _wh(words: list[str], text: str) -> TopicForm:
    rest = words[1:]
    if not rest:
        return _form("noun_phrase", text, None)
    aux = rest[0].lower()
    how_to = _how_to(words, text)
    if how_to is not None:
        return how_to
    if words[0].lower() == "what" and aux in CAUSE_WORDS and len(rest) > 1:
        # "What causes migraines", "What caused the 1929 stock market crash": its causes
        form = _form("wh", " ".join(rest[1:]), _as_question(text))
        form.shape, form.past = "causes", aux == "caused"
        return form
    if aux in BE:
        body = rest[1:]
        subject = _cut(body, be=True) or " ".join(body)
        predicate = len(" ".join(body)) > len(subject)
        return _form("wh", subject, _as_question(text) if predicate else None, text)
    if aux in DO | MODAL:
        body = rest[1:]
        index = _verb_index(body)
        if index is None:
            return _form("wh", " ".join(body), _as_question(text))
        subject = " ".join(body[:index])
        if subject.lower() in ASKERS and index + 1 < len(body):
            # "How do you prevent rust on old cars": the asker is not the subject, what they act on is
            return _form("wh", " ".join(body[index + 1 :]), _as_question(text))
        verb = body[index].lower()
        generic = verb in GENERIC_PREDICATES and index == len(body) - 1
        nominal = NOMINAL.get(verb) if index == len(body) - 1 else None
        return _form("wh", nominal.format(np=subject) if nominal else subject, None if generic else _as_question(text))
    # "Who invented the telephone", "What causes migraines", "Which countries use nuclear power"
    index = 0 if looks_verb(rest[0]) else _verb_index(rest)
    if index is None:
        return _form("wh", " ".join(rest), _as_question(text))
    obj = rest[index + 1 :]
    while obj and obj[0].lower() in PREPOSITIONS:
        obj = obj[1:]
    return _form("wh", " ".join(obj) or " ".join(rest), _as_question(text))


def _how_to(words: list[str], text: str) -> TopicForm | None:
    """ "How do you prevent rust on old cars", "How can I learn Rust", "How to fix a leaking tap":
    a verb and its object, whoever asks. None when the words are not that shape (word by word)."""
    if words[0].lower() != "how" or len(words) < 4:
        return None
    second = words[1].lower()
    if second == "to":
        verb, obj = words[2], words[3:]
    elif second in DO | MODAL and words[2].lower() in ASKERS and len(words) >= 5:
        verb, obj = words[3], words[4:]
    else:
        return None
    if not verb.isalpha() or not verb.islower() or obj[0].lower() in _CLAUSE_WORDS:
        return None
    subject = _lower_initial(" ".join(obj).strip(" ,;:"))
    return TopicForm("wh", subject, is_plural(subject), asked=_as_question(text), shape="how_to", verb=verb)


def _comparison(text: str) -> TopicForm:
    parts = VERSUS.split(text, maxsplit=1)
    if len(parts) < 2:
        parts = re.split(r"\s+(?:and|with|to)\s+", text, maxsplit=1)
    left, right = (parts + [""])[:2]
    context = ""
    match = _CONTEXT.search(right)
    if match:
        right, context = right[: match.start()], " " + right[match.start() :].strip()
    left, right = left.strip(" ,;:"), right.strip(" ,;:")
    if right[:1].islower() and left[:1].isupper() and left[1:].islower() and " " not in left:
        left = left.lower()  # "Cats vs dogs": sentence case, not a name
    return TopicForm("comparison", f"{left} and {right}", True, left=left, right=right, context=context)


def _form(kind: FormKind, subject: str, asked: str | None, original: str = "") -> TopicForm:
    subject = _lower_initial(subject.strip(" ,;:"))
    aspect = aspect_of(subject)
    shape: Shape = "plain"
    if aspect and not re.search(r"\s(" + "|".join(sorted(PREPOSITIONS)) + r")\s", aspect):
        # "the health effects of intermittent fasting": the templates ask about the thing itself,
        # and the user's own question (or the aspect as one) keeps what was asked about it.
        shape = _aspect_shape(subject[: len(subject) - len(aspect)])
        whole = subject if subject.lower().startswith("the ") else "the " + subject
        if shape == "causes" and not original:  # "Causes of World War I": its own words, lower case
            whole = f"the causes of {aspect}"
        asked = asked or (_as_question(original) if original else f"What {_be(whole)} {whole}?")
        subject = aspect
    if re.match(r"^(a|an)\s+", subject, re.IGNORECASE):
        subject = subject.split(" ", 1)[1]
    if aspect_of(subject) and subject.split()[0].lower() not in DETERMINERS:
        subject = "the " + subject  # "impact of social media on teenagers" needs its article
    past = bool(original) and len(original.split()) > 1 and original.split()[1].lower() in ("was", "were")
    return TopicForm(kind, subject, is_plural(subject), asked=asked, shape=shape, past=past)


def _aspect_shape(lead: str) -> Shape:
    """What an aspect phrase's lead ("the causes of ", "the health effects of ") asks: causes,
    impact (an unqualified effect: "the effects of", not "the side effects of"), or plain."""
    words = [w.lower() for w in lead.split()]
    if words and words[0] == "the":
        words = words[1:]
    if len(words) < 2 or words[-1] != "of":
        return "plain"
    head, qualified = words[-2], len(words) > 2
    if head in CAUSE_WORDS:
        return "causes"
    if head in IMPACT_WORDS and not (qualified and head.startswith("effect")):
        return "impact"
    return "plain"


def _be(subject: str) -> str:
    return "are" if is_plural(subject) else "is"


def _cut(words: list[str], *, be: bool) -> str:
    """The subject at the start of `words`: up to a participle, predicate adjective or (not after
    "is/are") a base verb. "" when nothing cuts it (the whole is the subject)."""
    for i, word in enumerate(words):
        if i == 0 or word[:1].isupper():
            continue
        lower = word.lower()
        if participle(lower) or adjective(lower) or (not be and lower in VERBS):
            return " ".join(words[:i])
        if lower.endswith("er") and i + 1 < len(words) and words[i + 1].lower() == "than":
            return " ".join(words[:i])
    return ""


def _verb_index(words: list[str]) -> int | None:
    for i, word in enumerate(words):
        if i > 0 and word.lower() in VERBS and not word[:1].isupper():
            return i
    if len(words) in (2, 3) and not words[-1][:1].isupper():  # "How do birds navigate": intransitive
        return len(words) - 1
    return None


def _clause_subject(words: list[str]) -> str:
    if words and words[0].lower() in BE | DO | MODAL:
        words = words[1:]
    index = _verb_index(words)
    return " ".join(words[:index]) if index else " ".join(words)


def _lower_initial(text: str) -> str:
    """ "Heat pumps" -> "heat pumps"; "Roman Empire", "CRISPR" and "Rust" (beside "Go") stay."""
    words = text.split()
    if not words:
        return text
    first = words[0]
    sentence_case = not any(w[:1].isupper() for w in words[1:])
    if (
        first[:1].isupper()
        and first[1:].islower()
        and (sentence_case or first.lower() in DETERMINERS)
        and (len(words) > 1 or first.lower() in DETERMINERS)
    ):
        return " ".join([first.lower(), *words[1:]])
    return text


def _as_question(text: str) -> str:
    return text[:1].upper() + text[1:] + "?"
