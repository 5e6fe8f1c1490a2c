"""The model's relevance judgement: one batched structured call over a query's kept sources.

The offline score (research/relevance/) has already kept the sources that share the topic's
subject words; the model reads each kept source's title and snippet and says whether it is about
the topic's subject in the sense the topic means it (a paper on the Rust language is not about
rust on old cars). One request per batch: as many sources as the server's structured replies can
hold (the grammar's list bound, MAX_ITEMS, where the remembered method is llama-cpp's JSON mode; up
to MAX_PER_CALL, within the judge's reply cap, on a server that takes json_schema), each source judged once per run
(a later query's hit is answered from memory), at most MAX_CALLS requests per run: after that,
and whenever a call fails, the offline score alone decides. Every source the model rejects
becomes a `sources_dropped` entry with the model's reason. Off unless `RESEARCH_RELEVANCE_JUDGE=model`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

from research import prompts
from research.brains.llm.grammar_schema import MAX_ITEMS, text_field
from research.schemas.state_shapes import DroppedSource, Source

BATCH = MAX_ITEMS  # the grammar's list bound: one verdict per source of the batch, on llama-cpp
MAX_PER_CALL = 20  # without that bound: ~20 x 300-character snippets, a bounded prompt
REPLY_TOKENS_PER_VERDICT = 45  # a verdict with its 120-character reason, for the reply cap's share
MAX_CALLS = 12
SNIPPET_CHARS = 300
REASON_CHARS = 120
MODEL_DROP = "the model judged it off the subject: "  # how a model drop's reason begins
WAIT_SECONDS = 3600.0  # a ceiling only: the judging call sets the event when it ends, even failing


class SourceRelevance(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source: int = Field(description="the source's number as given")
    reason: str = text_field(
        "a few words: what the source is about, and whether that is the topic's subject", REASON_CHARS
    )
    relevant: bool = Field(description="true when the source is about the topic's subject")


class RelevanceJudgements(BaseModel):
    model_config = ConfigDict(extra="ignore")
    verdicts: list[SourceRelevance] = Field(max_length=40)


@functools.lru_cache(maxsize=MAX_PER_CALL + 1)
def judgements_schema(count: int) -> type[RelevanceJudgements]:
    """RelevanceJudgements whose `source` may only be 1..count in the schema sent (a grammar on llama-cpp)."""
    numbers: list[JsonValue] = list(range(1, max(1, min(count, MAX_PER_CALL)) + 1))
    verdict = create_model(
        "SourceRelevance",
        __base__=SourceRelevance,
        source=(int, Field(description="the source's number as given", json_schema_extra={"enum": numbers})),
    )
    return create_model(
        "RelevanceJudgements", __base__=RelevanceJudgements, verdicts=(list[verdict], Field(max_length=40))
    )


Ask = Callable[[type[RelevanceJudgements], list[BaseMessage]], RelevanceJudgements]
Room = Callable[[int], int]  # the caller's cap -> how many items the server's reply can hold


def grammar_room(most: int) -> int:
    """The room when nothing says otherwise: the grammar's list bound."""
    return min(most, BATCH)


@dataclass(frozen=True)
class Verdict:
    relevant: bool
    reason: str


@dataclass
class Judged:
    """What the judgement made of one query's sources: the kept ones, and the dropped with why."""

    kept: list[Source] = field(default_factory=list)
    dropped: list[DroppedSource] = field(default_factory=list)
    calls: int = 0


class RelevanceJudge:
    """One run's model relevance judgement (thread-safe: a run's researchers retrieve in parallel)."""

    def __init__(self, ask: Ask, *, max_calls: int = MAX_CALLS, room: Room = grammar_room) -> None:
        self._ask = ask
        self._room = room
        self.max_calls = max_calls
        self.calls = 0
        self._known: dict[str, Verdict] = {}
        self._pending: dict[str, threading.Event] = {}  # being judged by another query's call
        self._lock = threading.Lock()

    def judge(self, topic: str, question: str, sources: list[Source]) -> Judged:
        """Raises on a failed call: the caller keeps the offline verdicts (with a warning)."""
        todo: list[Source] = []
        waits: list[threading.Event] = []
        with self._lock:  # claim what nobody has judged; wait for what another query is judging
            for source in sources:
                key = _key(source)
                if key in self._pending:
                    waits.append(self._pending[key])
                elif key not in self._known and key not in {_key(t) for t in todo}:
                    self._pending[key] = threading.Event()
                    todo.append(source)
        out = Judged()
        try:
            start = 0
            while start < len(todo):
                # Sized per call: the first call to a server may teach which method it takes.
                size = max(1, min(self._room(MAX_PER_CALL), MAX_PER_CALL))
                batch = todo[start : start + size]
                start += size
                with self._lock:
                    if self.calls >= self.max_calls:
                        break  # capped: the rest keep the offline score
                    self.calls += 1
                out.calls += 1
                verdicts = self._batch(topic, question, batch)
                with self._lock:
                    self._known.update({_key(batch[i]): v for i, v in verdicts.items()})
                    self._release(batch)
        finally:
            with self._lock:
                self._release(todo)
        for event in waits:
            event.wait(WAIT_SECONDS)
        for source in sources:
            verdict = self._known.get(_key(source))
            if verdict is None or verdict.relevant:
                out.kept.append(source)
            else:
                out.dropped.append(
                    DroppedSource(
                        title=source.title[:300],
                        url=source.url,
                        reason=f"{MODEL_DROP}{verdict.reason}"[:300],
                        score=source.relevance if source.relevance is not None else 0.0,
                    )
                )
        return out

    def _release(self, sources: list[Source]) -> None:
        for source in sources:
            event = self._pending.pop(_key(source), None)
            if event is not None:
                event.set()

    def _batch(self, topic: str, question: str, batch: list[Source]) -> dict[int, Verdict]:
        """The model's verdict per index of `batch` (a source it did not answer keeps the offline one)."""
        blocks = [
            prompts.render_source(
                f'n="{k}"', kind=s.kind, title=s.title, url="", text=" ".join(s.snippet.split())[:SNIPPET_CHARS]
            )
            for k, s in enumerate(batch, 1)
        ]
        messages = [
            SystemMessage(prompts.RELEVANCE_SYSTEM.format(untrusted_rule=prompts.UNTRUSTED_DATA_RULE)),
            HumanMessage(
                prompts.RELEVANCE_USER.format(
                    topic=prompts.neutralise(topic),
                    question=prompts.neutralise(question),
                    sources=prompts.render_sources(blocks),
                )
            ),
        ]
        reply = self._ask(judgements_schema(len(batch)), messages)
        verdicts: dict[int, Verdict] = {}
        for item in reply.verdicts:
            if 1 <= item.source <= len(batch) and item.source - 1 not in verdicts:
                reason = " ".join(str(item.reason).split())[:REASON_CHARS] or "no reason given"
                verdicts[item.source - 1] = Verdict(bool(item.relevant), reason)
        return verdicts


def _key(source: Source) -> str:
    return source.id or source.url or source.title
