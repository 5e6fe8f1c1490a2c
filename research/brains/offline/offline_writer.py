"""The offline writer: an extractive draft that reads as one argument, not a collage.

- Each source sentence goes to the one question it answers best (never under a question it merely
  mentions), so a myocarditis sentence stays out of "mechanism" when "safety" is asked too.
- A sentence that leans on the one before ("It...", "The experience...") is quoted with that
  sentence, or not at all.
- One paragraph per question, its sentences in reading order within each source.
- The summary opens with the sentences that say what the subject is or does.
- Nothing that is markup (images, links, HTML) or reads as an instruction is ever copied; what is
  quoted keeps its characters (identifiers, numbers, units) and is escaped into the markdown.
- Read aloud, it is the desk's prose: no source's first person, no method or abstract boilerplate,
  no demonstrative whose referent was left out (research/text/prose.py); each section opens with the
  sentence that answers its question best, and every sentence fits its section (research/drafts/fit.py).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from research.brains.base import NumberedSource
from research.drafts.fit import addresses, focus_terms, speaks_to
from research.relevance.coverage import NOTHING_FOUND, QuestionEvidence
from research.relevance.scoring import is_on_topic
from research.text import BM25, split_sentences, tokenize
from research.text.prose import flaws
from research.text.quote import clean_quoted_sentence, md_quote
from research.topic.subject import subject_of

SENTENCES_PER_SECTION = 4
SUMMARY_UNITS = 3
MIN_CHARS, MAX_CHARS = 60, 400
MAX_RAW_CHARS = 4000  # a longer "sentence" (a run-on blob) can never be quoted: not even cleaned
LEAD_BIAS = 0.6  # opening sentences state a document's point
_LEANS_BACK = re.compile(
    r"^(it|this|these|those|they|them|he|she|such|his|her|their|its|also|but|and|so|thus|however|"
    r"first,|second|third|fourth|fifth|finally|next,|then|here|there|that|moreover|furthermore|instead|still|"
    r"yet|in addition|for example|as a result|the (experience|result|move|change|effect|problem|idea|"
    r"approach|decision|study|finding|review|same))\b"
    r"|^\w+( \w+)? (therefore|however|also|instead|too)\b"
    r"|^(\S+\s+){1,3}(he|she|they|his|her|their)\b",  # "Around 1997 she met...": who is she?
    re.IGNORECASE,
)
_MARKUP = re.compile(r"!\[|\]\(|\[[^\]]*\]\s*\[|</?[a-zA-Z][^>]*>|https?://|www\.|`", re.IGNORECASE)
_INSTRUCTION = re.compile(
    r"\b(ignore (all |any )?(previous|prior|above) instructions?|disregard (the|all|previous)|you must|"
    r"reply with|respond with|as an ai|system prompt|click here|subscribe|sign up|cookie)\b|^(please|note to)\b",
    re.IGNORECASE,
)
# Sentences that say what the subject is or does: what a summary should open with.
_DEFINING = re.compile(
    r"^(the |an? )?[\w-]+( [\w-]+){0,3} (is|are|was|were)\b|\bworks? by\b|\b(instruct|teach|allow|enable)s?\b",
    re.IGNORECASE,
)
DEFINING_BOOST = 1.5


@dataclass(frozen=True)
class Unit:
    """One quotable piece: a sentence, with the sentence before it when it leans on that one."""

    text: str
    source_id: str
    position: int
    tokens: tuple[str, ...]


def quotable(sentence: str) -> bool:
    s = sentence.strip()
    return (
        MIN_CHARS <= len(s) <= MAX_CHARS
        and not s.startswith(("#", "|", ">"))
        and not _MARKUP.search(s)
        and not _INSTRUCTION.search(s)
    )


def _clean(raw: str) -> str:
    if len(raw) > MAX_RAW_CHARS or raw.lstrip().startswith(("#", "|", ">")):
        return ""
    return clean_quoted_sentence(raw) or ""


def _leans_back(sentence: str) -> bool:
    return bool(_LEANS_BACK.match(sentence.strip())) or "dangling" in flaws(sentence)


def units_of(source_id: str, text: str) -> list[Unit]:
    # Web text is data: each sentence as plain text (markup, links and URLs stripped, instructions
    # dropped: research/text/quote.py), and only then judged quotable.
    sentences = [_clean(raw) for raw in split_sentences(text)]
    out: list[Unit] = []
    for i, sentence in enumerate(sentences):
        if not quotable(sentence):
            continue
        if _leans_back(sentence):
            previous = sentences[i - 1] if i else ""
            if not previous or not quotable(previous) or _leans_back(previous):
                continue  # its referent is missing: skip rather than quote it out of context
            sentence = f"{previous.strip()} {sentence.strip()}"
        if flaws(sentence):
            continue  # the source's own voice or method, or a referent still missing: not the desk's prose
        out.append(Unit(sentence.strip(), source_id, i, tuple(tokenize(sentence))))
    return out


def _cited_part(unit: Unit) -> str:
    """The unit's last sentence: the one its [n] follows, which the claim check reads as the claim."""
    sentences = split_sentences(unit.text)
    return sentences[-1] if sentences else unit.text


def _cite(text: str, n: int) -> str:
    body = md_quote(text.rstrip())
    return f"{body[:-1]} [{n}]{body[-1]}" if body and body[-1] in ".!?" else f"{body} [{n}]"


def _paragraph(units: list[Unit], by_id: dict[str, int]) -> str:
    """The best answer first (`units` come best first), the rest in reading order per source."""
    rest = sorted(units[1:], key=lambda u: (by_id[u.source_id], u.position))
    return " ".join(_cite(u.text, by_id[u.source_id]) for u in units[:1] + rest)


def write_draft(
    topic: str,
    questions: list[str],
    sources: list[NumberedSource],
    text_of: Callable[[str], str],
    known_gaps: list[str],
    coverage: tuple[QuestionEvidence, ...] = (),
) -> str:
    return _compose(topic, questions, sources, text_of, known_gaps, coverage)[0]


def answered_questions(
    topic: str,
    questions: list[str],
    sources: list[NumberedSource],
    text_of: Callable[[str], str],
    coverage: tuple[QuestionEvidence, ...] = (),
) -> set[str]:
    """The questions whose section this writer fills with a cited passage (the rest say nothing
    relevant was found): the run's coverage settles on it before the evidence is assessed."""
    return _compose(topic, questions, sources, text_of, [], coverage)[1]


def _compose(
    topic: str,
    questions: list[str],
    sources: list[NumberedSource],
    text_of: Callable[[str], str],
    known_gaps: list[str],
    coverage: tuple[QuestionEvidence, ...],
) -> tuple[str, set[str]]:
    answered: set[str] = set()
    subject = subject_of(topic)
    answered_by = {c.question: set(c.source_ids) for c in coverage}
    subject_tokens = set(tokenize(subject))
    by_id = {ns.source.id: ns.n for ns in sources}
    units: list[Unit] = []
    for ns in sources:
        text = text_of(ns.source.id) or ns.source.snippet
        if is_on_topic(subject, f"{ns.source.title} {text}"):
            units += units_of(ns.source.id, text)
    title = " ".join(topic.split())
    lines = [f"# {title[:1].upper()}{title[1:]}", "", "## Summary", ""]
    if not units:
        lines.append("The sources gathered for this topic had no passage that could be quoted.")
        return _finish(lines, questions, known_gaps), answered
    index = BM25([list(u.tokens) for u in units])
    lead = [1.0 + LEAD_BIAS / (1 + u.position) for u in units]
    # Each question's scores, normalised by its best unit so questions compare fairly.
    per_question: list[list[float]] = []
    for question in questions:
        focus = focus_terms(question, subject_tokens)
        raw = index.scores(focus * 2 + list(subject_tokens)) if focus else index.scores(tokenize(question))
        raw = [
            s if (not focus or speaks_to(focus, set(u.tokens))) and addresses(_cited_part(u), question, topic) else 0.0
            for s, u in zip(raw, units, strict=False)
        ]
        top = max(raw) or 1.0
        per_question.append([s / top for s in raw])
    core = set(tokenize(" ".join(t for t in subject.split())))
    summary_raw = index.scores(list(subject_tokens) + tokenize(topic))
    summary_scores = [
        s * (1.0 + 2 * LEAD_BIAS / (1 + u.position)) * (DEFINING_BOOST if _DEFINING.search(u.text) else 1.0)
        if core <= set(u.tokens)
        else 0.0  # a summary sentence names the whole subject
        for s, u in zip(summary_raw, units, strict=False)
    ]
    used: set[int] = set()
    seen_tokens: list[set[str]] = []

    def take(candidates: list[int], limit: int, per_source: int) -> list[Unit]:
        picked: list[Unit] = []
        per: dict[str, int] = defaultdict(int)
        for i in candidates:
            unit = units[i]
            tokens = set(unit.tokens)
            if (
                i in used
                or per[unit.source_id] >= per_source
                or any(len(tokens & t) / max(1, min(len(tokens), len(t))) > 0.6 for t in seen_tokens)
            ):
                continue
            used.add(i)
            per[unit.source_id] += 1
            seen_tokens.append(tokens)
            picked.append(unit)
            if len(picked) >= limit:
                break
        return picked

    summary_order = sorted((i for i in range(len(units)) if summary_scores[i] > 0), key=lambda i: -summary_scores[i])
    summary = take(summary_order, SUMMARY_UNITS, per_source=1)
    lines.append(
        " ".join(_cite(u.text, by_id[u.source_id]) for u in summary)
        or "The gathered sources do not say what the subject is in so many words."
    )
    for q_index, question in enumerate(questions):
        # A unit belongs to the question it answers best; it may serve another only if unused there.
        # Only the sources the run's coverage found answering this question may be cited here.
        allowed = answered_by.get(question)
        answering = [
            i
            for i in range(len(units))
            if per_question[q_index][i] > 0
            and subject_tokens & set(units[i].tokens)  # stays about the subject, not a side topic
            and (allowed is None or units[i].source_id in allowed)
        ]
        mine = [i for i in answering if per_question[q_index][i] >= max(p[i] for p in per_question) - 1e-9]
        mine.sort(key=lambda i: -per_question[q_index][i] * lead[i])
        picked = take(mine, SENTENCES_PER_SECTION, per_source=2)
        if not picked and allowed:  # answered, though its passages answer another question better
            answering.sort(key=lambda i: -per_question[q_index][i] * lead[i])
            picked = take(answering, SENTENCES_PER_SECTION, per_source=2)
        lines += ["", f"## {question.rstrip('?')}", ""]
        lines.append(_paragraph(picked, by_id) if picked else NOTHING_FOUND)
        if picked:
            answered.add(question)
    return _finish(lines, [], known_gaps), answered


def _finish(lines: list[str], questions: list[str], known_gaps: list[str]) -> str:
    for question in questions:
        lines += ["", f"## {question.rstrip('?')}", "", NOTHING_FOUND]
    if known_gaps:
        lines += ["", "## Known gaps", ""] + [f"- {gap}" for gap in known_gaps]
    return "\n".join(lines).strip() + "\n"
