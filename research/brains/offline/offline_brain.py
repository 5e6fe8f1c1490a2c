"""The offline brain: deterministic planning, judging and extractive writing. No key, no network.

It reads like a careful research assistant with no model: questions from the topic's class,
type-specific query templates, a coverage check per question, and a digest built from the best
sentences of the sources themselves, each one cited.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from research.brains.base import JudgeRequest, Plan, ReviseRequest, TextLookup, WriteRequest
from research.events.agent_log import warn
from research.relevance.coverage import MIN_SOURCES_PER_QUESTION, focus_matches, question_coverage
from research.relevance.scoring import is_on_topic
from research.schemas.llm_shapes import AnalystVerdict, QuestionCoverage
from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import ResearcherTask, Source, Usage
from research.text import BM25, split_sentences, tokenize
from research.text.quote import clean_quoted_sentence
from research.topic.language import ENGLISH, offline_language_warning, topic_language
from research.topic.offline_plan import (
    ALLOCATION_GUIDANCE,
    GUIDANCE_LABEL,
    classify_topic,
    research_questions,
)
from research.topic.subject import subject_of

MIN_SENTENCE_CHARS = 60
# Sentences that lean on the one before ("It...", "Second, ...") read badly when quoted alone.
_ANAPHORIC = re.compile(
    r"^(it|this|these|those|they|he|she|such|his|her|their|its|also|but|and|so|thus|second|third|fourth|"
    r"fifth|finally|then|here|there|that)\b",
    re.IGNORECASE,
)
ANAPHORA_PENALTY = 0.4
# Weight of a sentence's position in its document (1 / (1 + index)) when notes pick sentences.
SECTION_LEAD_BIAS = 0.2

# Per kind, one set of templates per angle (see the supervisor's _ANGLES): disjoint, so two
# researchers of one kind never send the same query, even when they share a question.
_QUERY_TEMPLATES: dict[ResearcherKind, tuple[tuple[str, ...], ...]] = {
    "web": (  # angle 1 alone covers official sites, news, expert blogs and forums
        ("{s} {focus} official guide", "{s} {focus} news analysis", "{s} {focus} expert blog forum discussion"),
        ("{s} {focus} documentation explained", "{s} {focus} practitioner experience", "{s} {focus} case study"),
        ("{s} {focus} comparison criticism", "{s} {focus} pros and cons", "{s} {focus} community debate"),
    ),
    "academic": (
        (
            "{s} {focus} systematic review",
            "{s} {focus} meta-analysis study methodology",
            "{s} {focus} empirical research",
        ),
        ("{s} {focus} randomized trial", "{s} {focus} quantitative analysis", "{s} {focus} review article"),
        ("{s} {focus} recent advances", "{s} {focus} limitations critique", "{s} {focus} open problems"),
    ),
    "book": (
        ("introduction to {s} {focus}", "handbook of {s} {focus}", "companion to {s} history {focus}"),
        ("history of {s} {focus}", "{s} {focus} textbook", "{s} {focus} historical context"),
        ("{s} {focus} critical essays", "{s} {focus} encyclopedia", "{s} {focus} reader anthology"),
    ),
}


_QUESTION_FILLER = set(
    tokenize(
        "what how why who when which does did is are the of and in on for its their was were "
        "behind say about remain open main define defines address problems"
    )
)


class OfflineBrain:
    name = "offline"
    kind = "offline"

    def plan(self, topic: str, *, max_researchers: int, wants_allocation: bool) -> Plan:
        language = topic_language(topic)
        if language != ENGLISH:  # its word lists would make nonsense questions and find nothing
            warn("offline", offline_language_warning(language))
        topic_class, cues = classify_topic(topic)
        cue_text = f" (cues: {', '.join(cues[:4])})" if cues else ""
        return Plan(
            research_questions=research_questions(topic, topic_class),
            reasoning=f"Classified the topic as {topic_class}{cue_text}; one question per aspect a reader needs.",
            allocation=ALLOCATION_GUIDANCE[topic_class] if wants_allocation else None,
            allocation_reasoning=f"Guidance: {GUIDANCE_LABEL[topic_class]}.",
            origin="offline",
        )

    def queries(self, task: ResearcherTask, kind: ResearcherKind) -> list[str]:
        if task.focus_queries:
            return _unique(task.focus_queries)[:3]
        subject = subject_of(task.topic or task.question)
        focus = " ".join(_focus_terms(task.question, subject)[:3])
        angles = _QUERY_TEMPLATES[kind]
        templates = angles[_angle_index(task.angle) % len(angles)]
        return _unique(" ".join(t.format(s=subject, focus=focus).split()) for t in templates)

    def notes(self, task: ResearcherTask, sources: list[Source], text_of: TextLookup) -> str:
        if not sources:
            return f"No sources found for: {task.question}"
        picked = _best_sentences(task.question, task.topic, sources, text_of, limit=3)
        lines = [f"- {sentence} ({source.title})" for sentence, source in picked]
        return f'{len(sources)} sources for "{task.question}".\n' + "\n".join(lines)

    def judge(self, request: JudgeRequest) -> AnalystVerdict:
        sources = request.sources
        coverage: list[QuestionCoverage] = []
        critique: list[str] = []
        missing: list[str] = []
        queries: list[str] = []
        subject = subject_of(request.topic)
        # The shared computation (research/relevance/coverage.py): the writer's sections and the
        # run's evidence read the same answer per question.
        for evidence in question_coverage(request.topic, request.questions, sources, request.text_of):
            question, note = evidence.question, evidence.note
            coverage.append(evidence.as_coverage())
            if evidence.covered:
                critique.append(f'Covered: "{question}" ({note}).')
            else:
                critique.append(
                    f'Thin: "{question}" has {note}; needs at least {MIN_SOURCES_PER_QUESTION} from 2 origins.'
                )
                missing.append(question)
                focus = " ".join(_focus_terms(question, subject)[:3])
                queries.append(" ".join(f"{subject} {focus}".split()))
        failed = [r.researcher_id for r in request.reports if r.status == "failed"]
        if failed:
            critique.append(f"Researchers that failed: {', '.join(failed)}.")
        empty = [r.researcher_id for r in request.reports if r.status == "empty"]
        if empty:
            critique.append(f"Researchers that found nothing relevant: {', '.join(empty)}.")
        kinds = {s.kind for s in sources}
        if sources and len(kinds) == 1:
            critique.append(f"All sources are {next(iter(kinds))} sources; conclusions rest on one kind of evidence.")
        if not sources:
            critique.append("No sources were found at all.")
        status = "NEEDS_IMPROVEMENT" if missing else "APPROVED"
        return AnalystVerdict(
            status=status,
            critique=critique,
            missing_topics=missing,
            recommended_queries=_unique(queries),
            coverage=coverage,
        )

    def write(self, request: WriteRequest) -> str:
        """One coherent, cited paragraph per question (research/brains/offline/offline_writer.py)."""
        from research.brains.offline.offline_writer import write_draft

        return write_draft(
            request.topic,
            request.questions,
            request.sources,
            request.text_of,
            request.known_gaps,
            request.coverage,
            layout=request.layout,
        )

    def revise(self, request: ReviseRequest) -> str:
        """A deterministic restructure (shorten, expand, reorder, bullets, focus): see revise_offline."""
        from research.brains.offline.offline_revise import offline_revise

        return offline_revise(request.draft, request.instruction, request.sources, request.text_of)

    def take_usage(self) -> Usage:
        return Usage()


def _angle_index(angle: str) -> int:
    match = re.search(r"(\d+)", angle or "")
    return int(match.group(1)) - 1 if match else 0


def _focus_terms(question: str, subject: str) -> list[str]:
    subject_tokens = set(tokenize(subject))
    words = re.findall(r"[A-Za-z][A-Za-z\-]+", question)
    return _unique(
        w.lower()
        for w in words
        if (toks := tokenize(w)) and toks[0] not in _QUESTION_FILLER and toks[0] not in subject_tokens
    )


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = item.strip().lower()
        if key and key not in seen:
            seen.add(key)
            out.append(item.strip())
    return out


def _source_text(source: Source, text_of: TextLookup) -> str:
    return text_of(source.id) or source.snippet


def _on_subject(subject: str, text_or_terms: str | set[str]) -> bool:
    return is_on_topic(subject, text_or_terms)


def _best_sentences(
    query: str,
    topic: str,
    sources: list[Source],
    text_of: TextLookup,
    *,
    limit: int,
    per_source: int = 2,
    lead_bias: float = SECTION_LEAD_BIAS,
) -> list[tuple[str, Source]]:
    """The sentences most relevant to `query`, from sources on the topic's subject, at most
    `per_source` each. Off-subject sources (a broad query's stray hits) are never quoted.

    A sentence's BM25 score is weighted by how well its whole source answers the query (a passing
    mention in a document about something else ranks below the document about it), by its position
    (opening sentences state a document's point: `lead_bias`), and down for sentences that lean on
    the one before. When the query has its own terms, a sentence must speak to at least one.
    """
    subject = subject_of(topic)
    focus_tokens = tokenize(" ".join(_focus_terms(query, subject)))
    # The question's own terms count double: every sentence here is already about the subject.
    query_tokens = focus_tokens * 2 + tokenize(subject) if focus_tokens else tokenize(query)
    documents: list[tuple[Source, list[str]]] = []
    for source in sources:
        text = _source_text(source, text_of)
        if _on_subject(subject, f"{source.title} {text}"):
            documents.append((source, tokenize(f"{source.title} {source.title} {text}")))
    if not documents:
        return []
    doc_scores = BM25([tokens for _, tokens in documents]).scores(query_tokens)
    best_doc = max(doc_scores) or 1.0
    doc_weight = {source.id: 0.5 + score / best_doc for (source, _), score in zip(documents, doc_scores, strict=False)}

    candidates: list[tuple[str, Source, int]] = []
    for source, _ in documents:
        for position, raw in enumerate(split_sentences(_source_text(source, text_of))):
            sentence = clean_quoted_sentence(raw) if not raw.startswith("#") else None  # web text is data
            if sentence and MIN_SENTENCE_CHARS <= len(sentence) <= 400:
                candidates.append((sentence, source, position))
    if not candidates:
        return []
    sentence_tokens = [tokenize(sentence) for sentence, _, _ in candidates]
    bm25_scores = BM25(sentence_tokens).scores(query_tokens)
    focus_stems = set(focus_tokens)
    scores: list[float] = []
    for i, (sentence, source, position) in enumerate(candidates):
        if focus_stems and not focus_matches(focus_stems, set(sentence_tokens[i])):
            scores.append(0.0)
            continue
        score = bm25_scores[i] * doc_weight[source.id] * (1.0 + lead_bias / (1 + position))
        scores.append(score * (ANAPHORA_PENALTY if _ANAPHORIC.match(sentence) else 1.0))
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    picked: list[tuple[str, Source]] = []
    per: dict[str, int] = defaultdict(int)
    seen_tokens: list[set[str]] = []
    for i in ranked:
        if scores[i] <= 0 or len(picked) >= limit:
            break
        sentence, source, _ = candidates[i]
        tokens = set(sentence_tokens[i])
        if per[source.id] >= per_source or any(_overlap(tokens, t) > 0.7 for t in seen_tokens):
            continue
        per[source.id] += 1
        seen_tokens.append(tokens)
        picked.append((sentence, source))
    return picked


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, min(len(a), len(b)))
