"""The LLM brain: any OpenAI-compatible chat model through langchain-openai's ChatOpenAI.

Two tiers: the fast model (`RESEARCH_FAST_MODEL`) writes queries and notes, the main model
(`RESEARCH_MODEL`) plans, judges and writes. Every call goes through the run's UsageMeter, which
counts tokens for the usage events and raises BudgetExceeded once the run's budget is spent.
One LLMBrain serves one run (its budget is the run's budget); its methods are thread-safe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypeVar
from urllib.parse import parse_qs

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from research import prompts
from research.brains.base import JudgeRequest, Plan, ReviseRequest, TextLookup, WriteRequest
from research.brains.llm.grounded_reviser import revise_grounded
from research.brains.llm.grounded_schema import Condensation, Restatement, SectionSentences
from research.brains.llm.grounded_writer import DraftPreview, write_grounded
from research.brains.llm.model_caller import ModelCaller
from research.brains.llm.model_output import InvalidModelOutput, strip_think
from research.brains.llm.model_retry import MODEL_RETRIES
from research.brains.llm.plan_decision import (
    SupervisorDecisionReply,
    plan_from_decision,
    reply_questions,
    validate_decision,
)
from research.brains.llm.relevance_judge import REPLY_TOKENS_PER_VERDICT, RelevanceJudge
from research.brains.llm.structured import list_room
from research.brains.llm.usage_meter import UsageMeter
from research.brains.llm.writer_sampling import anti_copy_sampling
from research.drafts import guard as draft_guard
from research.drafts.markers import strip_internal_markers
from research.events.agent_log import warn
from research.schemas.llm_shapes import AnalystVerdict, QueryPlan, QuestionCoverage
from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import ResearcherReport, ResearcherTask, Source, Usage
from research.settings import Settings
from research.topic.language import ENGLISH, topic_language

# Local servers ignore the key but the OpenAI SDK refuses to start without one.
PLACEHOLDER_API_KEY = "not-needed"
MAX_QUESTIONS = 5
MAX_QUERIES = 3
MAX_QUERY_CHARS = 200
MAX_RECOMMENDED_QUERIES = 4
# How much of each source the model sees per step (characters): enough to judge, bounded cost.
NOTES_SOURCE_CHARS = 1500
NOTES_MAX_SOURCES = 8
JUDGE_SOURCE_CHARS = 400
JUDGE_MAX_SOURCES = 40
JUDGE_NOTES_CHARS = 1200
M = TypeVar("M", bound=BaseModel)
_LIST_MARKER = re.compile(r"^(?:[-*•]|\d{1,2}[.)])\s+")
# A bare domain, with or without a path: "cdc.gov/vaccines" (a query word with a known TLD).
_DOMAIN = re.compile(r"(?:[a-z0-9-]{1,63}\.){1,6}(?:com|org|net|gov|edu|io|int|info|co|uk|eu|de|fr)(?:/\S*)?")
_SERVICE_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,30}:(\S+)")
_IDENTIFIER = re.compile(r"[0-9][0-9./v]*")
_URL_NOISE = frozenset(
    {"http", "https", "www", "com", "org", "net", "gov", "edu", "io", "int", "info", "co", "uk", "eu", "de", "fr"}
    | {"html", "htm", "php", "aspx", "asp", "pdf", "index", "en", "us"}
)
_UNADDRESSED = re.compile(
    r"\bnot (?:yet |fully |directly )?(?:addressed|covered|answered)\b|\b(?:unaddressed|unanswered)\b"
    r"|\bdo(?:es)? not (?:address|cover|answer)\b",
    re.IGNORECASE,
)


def chat_model(settings: Settings, model: str, *, max_retries: int = 0, streaming: bool = False) -> ChatOpenAI:
    """The client for one model. The SDK's own retries stay off (`max_retries=0`) in the brain:
    they would send requests the run's meter never sees (ModelCaller retries, metered)."""
    key = settings.openai_api_key or SecretStr(PLACEHOLDER_API_KEY)
    # `streaming` is only passed when True: an explicit False would also stop `.stream()` and a
    # graph's "messages" stream mode from streaming tokens.
    extra: dict[str, Any] = {"streaming": True} if streaming else {}
    if settings.llm_temperature is not None:
        extra["temperature"] = settings.llm_temperature
    return ChatOpenAI(
        model=model,
        base_url=settings.openai_base_url,
        api_key=key,
        timeout=settings.llm_timeout,
        max_retries=max_retries,
        use_responses_api=False,  # model names like gpt-5-pro would otherwise switch to /v1/responses
        stream_usage=True,  # usage arrives even when a graph's "messages" stream makes calls stream
        **extra,
    )


class LLMBrain:
    kind = "openai"

    def __init__(
        self,
        settings: Settings,
        *,
        max_retries: int = MODEL_RETRIES,
        streaming: bool = False,
        meter: UsageMeter | None = None,
    ) -> None:
        self.settings = settings
        self.name = settings.model
        self._main = chat_model(settings, settings.model, streaming=streaming)
        fast = settings.effective_fast_model
        self._fast = self._main if fast == settings.model else chat_model(settings, fast, streaming=streaming)
        self.meter = meter or UsageMeter(max_calls=settings.max_llm_calls, max_tokens=settings.max_tokens)
        # `max_retries`: the project's retries on a transport fault, each a metered call.
        self.caller = ModelCaller(settings, self.meter, source=self.kind, retries=max_retries)
        # The run's batched relevance judgement (used when RESEARCH_RELEVANCE_JUDGE=model).
        self.relevance = RelevanceJudge(
            lambda schema, messages: self._structured(self._fast, schema, messages, "judge"),
            room=lambda most: self.list_room(most, role="judge", item_tokens=REPLY_TOKENS_PER_VERDICT, fast=True),
        )
        # Names the server in warnings without its URL (a URL may carry credentials).
        self.server_label = (
            f"model {self.name} at {'OpenAI' if self.caller.is_openai else 'the OPENAI_BASE_URL server'}"
        )

    # --- Brain protocol -----------------------------------------------------------------------

    def plan(self, topic: str, *, max_researchers: int, wants_allocation: bool) -> Plan:
        note = (
            prompts.ALLOCATION_WANTED_NOTE.format(max_researchers=max_researchers)
            if wants_allocation
            else prompts.ALLOCATION_FIXED_NOTE
        )
        messages = [
            SystemMessage(
                prompts.SUPERVISOR_SYSTEM.format(
                    max_researchers=max_researchers, untrusted_rule=prompts.UNTRUSTED_DATA_RULE
                )
            ),
            HumanMessage(prompts.SUPERVISOR_USER.format(topic=topic, allocation_note=note) + _language_note(topic)),
        ]
        reply = self._structured(self._main, SupervisorDecisionReply, messages)
        decision, problem = validate_decision(reply, max_researchers)
        if problem:  # one repair turn, with the validation error
            repair = [
                *messages,
                AIMessage(reply.model_dump_json()),
                HumanMessage(prompts.PLAN_REPAIR_INSTRUCTION.format(error=problem)),
            ]
            reply = self._structured(self._main, SupervisorDecisionReply, repair)
            decision, problem = validate_decision(reply, max_researchers)
        questions = _unique_lines(reply_questions(reply))[:MAX_QUESTIONS]
        return plan_from_decision(decision, reply, problem, questions, wants_allocation)

    def queries(self, task: ResearcherTask, kind: ResearcherKind) -> list[str]:
        focus = (
            prompts.QUERY_FOCUS_NOTE.format(iteration=task.iteration, focus=prompts.bullet_list(task.focus_queries))
            if task.focus_queries
            else ""
        )
        messages = [
            SystemMessage(
                prompts.QUERY_SYSTEM.format(
                    kind=kind,
                    kind_guidance=prompts.QUERY_KIND_GUIDANCE[kind],
                    untrusted_rule=prompts.UNTRUSTED_DATA_RULE,
                )
            ),
            HumanMessage(
                prompts.QUERY_USER.format(
                    topic=task.topic or task.question,
                    question=task.question,
                    angle=task.angle or "the question as a whole",
                    focus_note=focus,
                    kind=kind,
                )
                + _language_note(task.topic or task.question)
            ),
        ]
        result = self._structured(self._fast, QueryPlan, messages)
        queries = [_clean_query(q) for q in result.queries]
        queries = _unique_lines(q for q in queries if q)[:MAX_QUERIES]
        if not queries:
            raise InvalidModelOutput("the model wrote no usable queries")
        return queries

    def notes(self, task: ResearcherTask, sources: list[Source], text_of: TextLookup) -> str:
        if not sources:
            return f"No sources found for: {task.question}"  # nothing to summarise: no call spent
        blocks = [_source_block(f'id="{s.id}"', s, text_of, NOTES_SOURCE_CHARS) for s in sources[:NOTES_MAX_SOURCES]]
        messages = [
            SystemMessage(prompts.NOTES_SYSTEM.format(kind=task.kind, untrusted_rule=prompts.UNTRUSTED_DATA_RULE)),
            HumanMessage(
                prompts.NOTES_USER.format(
                    question=task.question, topic=task.topic or task.question, sources=prompts.render_sources(blocks)
                )
            ),
        ]
        return self._text(self._fast, messages, role="notes")

    def judge(self, request: JudgeRequest) -> AnalystVerdict:
        blocks = [
            _source_block(f'id="{s.id}"', s, request.text_of, JUDGE_SOURCE_CHARS, prefer_snippet=True)
            for s in request.sources[:JUDGE_MAX_SOURCES]
        ]
        notes = "\n\n".join(_report_block(r) for r in request.reports) or "(no researcher notes)"
        messages = [
            SystemMessage(
                prompts.ANALYST_SYSTEM.format(iteration=request.iteration, untrusted_rule=prompts.UNTRUSTED_DATA_RULE)
            ),
            HumanMessage(
                prompts.ANALYST_USER.format(
                    topic=request.topic,
                    questions=prompts.numbered_list(request.questions),
                    notes=notes,
                    sources=prompts.render_sources(blocks),
                )
            ),
        ]
        verdict = self._structured(self._main, AnalystVerdict, messages)
        return _complete_verdict(verdict, request.questions, has_sources=bool(request.sources))

    def write(self, request: WriteRequest) -> str:
        """Section by section from numbered passages, each sentence naming its passage (grounded_writer.py)."""
        preview = DraftPreview()
        anti_copy = anti_copy_sampling(self.settings)  # writing and restating; condensing copies by design

        def ask(schema: type[SectionSentences], messages: list[BaseMessage]) -> SectionSentences:
            return self.caller.structured(self._main, schema, messages, "writer", sampling=anti_copy)

        def restate(schema: type[Restatement], messages: list[BaseMessage]) -> Restatement:
            sampling = None if issubclass(schema, Condensation) else anti_copy
            return self.caller.structured(self._main, schema, messages, "writer", sampling=sampling)

        def note(message: str) -> None:
            warn(self.kind, f"write: {message}")

        restating = restate if self.settings.writer_restate_copies else None
        return draft_guard.tidy_spacing(write_grounded(request, ask, note, preview.section, restating))

    def revise(self, request: ReviseRequest) -> str:
        """Section by section on the user's instruction, grounded like the writer (grounded_reviser.py)."""

        def ask(schema: type[SectionSentences], messages: list[BaseMessage]) -> SectionSentences:
            return self._structured(self._main, schema, messages, role="writer")

        revised = revise_grounded(request, ask, lambda message: warn(self.kind, f"revise: {message}"))
        # Unknown citations and links are removed by revise_draft, which reports each as a warning.
        return draft_guard.tidy_spacing(draft_guard.strip_reference_section(revised))

    def list_room(self, most: int, *, role: str, item_tokens: int, fast: bool = False) -> int:
        """How many items (judgements, verdicts) one structured call of `role` may ask for: the
        grammar's list bound on a server whose remembered method bounds lists (llama-cpp's JSON
        mode) or is not known yet; else `most`, the caller's cap for its prompt, and no more than
        the role's reply cap holds at `item_tokens` an item."""
        fits = max(1, min(most, self.caller.cap(role) // max(1, item_tokens)))
        return list_room(self._fast if fast else self._main, fits, self.caller.memory)

    def take_usage(self) -> Usage:
        return self.meter.take()

    def tool_chat(self) -> tuple[ChatOpenAI, UsageMeter]:
        """The researchers' model and this run's meter, for agent-mode tool loops (brains/llm/tool_agent.py)."""
        return self._fast, self.meter

    def secret_values(self) -> list[str]:
        return self.settings.secret_values()

    # --- calls --------------------------------------------------------------------------------

    # Streaming, reply caps, context fitting, per-server slots and metering: model_caller.ModelCaller.
    def _structured(self, llm: ChatOpenAI, schema: type[M], messages: list[BaseMessage], role: str | None = None) -> M:
        return self.caller.structured(llm, schema, messages, role)

    def _text(self, llm: ChatOpenAI, messages: list[BaseMessage], role: str = "notes") -> str:
        reply = self.caller.text(llm, messages, role)
        text = strip_internal_markers(strip_think(str(reply.text))).strip()
        if not text:
            raise InvalidModelOutput("the model returned an empty reply")
        return text


def _source_block(label: str, source: Source, text_of: TextLookup, limit: int, *, prefer_snippet: bool = False) -> str:
    text = source.snippet if prefer_snippet and source.snippet else (text_of(source.id) or source.snippet)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return prompts.render_source(label, kind=source.kind, title=source.title, url=source.url, text=text)


def _report_block(report: ResearcherReport) -> str:
    notes = "\n".join(line.strip() for line in report.notes.splitlines() if line.strip())[:JUDGE_NOTES_CHARS]
    header = (
        f"[{report.researcher_id}] {report.kind} researcher, question: {report.question} "
        f"({len(report.source_ids)} sources, {report.status})"
    )
    return f"{header}\n{prompts.neutralise(notes)}"


def _complete_verdict(verdict: AnalystVerdict, questions: list[str], *, has_sources: bool) -> AnalystVerdict:
    """Make the verdict usable by the graph: coverage for every question, gaps when not approved,
    and a status that follows the analyst's own coverage (no APPROVED beside "not addressed")."""
    coverage = _matched_coverage(verdict.coverage, questions)
    status = verdict.status
    critique = list(verdict.critique)
    missing = _unique_lines(verdict.missing_topics)
    if not has_sources and status == "APPROVED":
        status = "NEEDS_IMPROVEMENT"  # nothing was found: approving would produce an empty report
        critique.append("No sources were gathered, so nothing can be approved yet.")
    uncovered = [c.question for c in coverage if not c.covered]
    unaddressed = [line for line in critique if _UNADDRESSED.search(line)]
    if status == "APPROVED" and (uncovered or unaddressed):
        status = "NEEDS_IMPROVEMENT"
        critique.append(
            f"Not approved: by the analyst's own coverage {len(uncovered)} of {len(coverage)} questions "
            "are not covered."
            if uncovered
            else "Not approved: the analyst's critique says a question is not addressed."
        )
        missing = missing or uncovered or unaddressed
    recommended = _unique_lines(_clean_query(q) for q in verdict.recommended_queries)
    if status == "NEEDS_IMPROVEMENT":
        missing = missing or uncovered or list(questions)
        recommended = recommended or [_clean_query(m) for m in missing]
    else:
        missing, recommended = [], []
    return AnalystVerdict(
        status=status,
        critique=critique,
        missing_topics=missing,
        recommended_queries=_unique_lines(q for q in recommended if q)[:MAX_RECOMMENDED_QUERIES],
        coverage=coverage,
    )


def _matched_coverage(given: list[QuestionCoverage], questions: list[str]) -> list[QuestionCoverage]:
    """One coverage per question: the one naming it exactly, else the one at its place when the
    analyst answered every question in order (a small model rewords them), else "not assessed"."""
    by_question = {c.question.strip().lower(): c for c in given}
    in_order = len(given) == len(questions)
    out = []
    for i, question in enumerate(questions):
        found = by_question.get(question.strip().lower()) or (given[i] if in_order else None)
        if found is None:
            found = QuestionCoverage(question=question, covered=False, note="not assessed by the analyst")
        out.append(found.model_copy(update={"question": question}))
    return out


def _clean_query(query: str) -> str:
    """A search query: no list marker, no quotes, and no URL (a URL's words stand in for it)."""
    query = _LIST_MARKER.sub("", " ".join(str(query).split()))  # "1. foo" / "- foo" -> "foo"
    query = " ".join(_url_words(token) if _is_url(token) else _service_words(token) for token in query.split())
    return " ".join(query.strip().strip("\"'").split())[:MAX_QUERY_CHARS].strip()


def _service_words(token: str) -> str:
    """A service's query syntax is not a search query: "OpenAlex:search?q=rust+on+cars&fq=..." ->
    "rust on cars"; an identifier ("arXiv:1804.07325", which a small model invents) -> ""."""
    match = _SERVICE_TOKEN.fullmatch(token)
    if match is None:
        return token
    rest = match.group(1)
    if "?" in rest or "=" in rest:
        params = parse_qs(rest.split("?", 1)[-1])
        return " ".join(" ".join(params.get("q") or params.get("query") or params.get("search") or []).split())
    return "" if _IDENTIFIER.fullmatch(rest) else token


def _is_url(token: str) -> bool:
    lowered = token.lower().strip("\"'<>()[],;")
    return "://" in lowered or lowered.startswith("www.") or bool(_DOMAIN.fullmatch(lowered[:MAX_QUERY_CHARS]))


def _url_words(token: str) -> str:
    """https://www.cdc.gov/vaccines/covid-19/mrna.html -> "cdc vaccines covid 19 mrna"."""
    # A path segment of digits alone is a date or a page id (npr.org/2021/03/14/875611177/...),
    # and a long run of digits anywhere is an id: neither is a search word.
    segments = [seg for seg in token.split("://", 1)[-1].split("/") if not seg.isdigit()]
    parts = re.split(r"[^A-Za-z0-9]+", " ".join(segments))
    return " ".join(p for p in parts if len(p) > 1 and p.lower() not in _URL_NOISE and not (p.isdigit() and len(p) > 4))


def _unique_lines(items: Iterable[object]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        text = " ".join(str(item).split())
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


def _language_note(topic: str) -> str:
    """Keeps a non-English topic's language for its questions and queries ("" for English)."""
    language = topic_language(topic)
    return "" if language == ENGLISH else prompts.TOPIC_LANGUAGE_NOTE.format(language=language)
