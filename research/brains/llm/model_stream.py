"""One model call as the LLM brain makes it: a slot on the server, a capped streaming reply with
live progress, a deadline for the whole reply, and what happened (for the meter and warnings).

- Slots: at most RESEARCH_LLM_CONCURRENCY calls in flight per server (base URL). The request is
  sent only once a slot is free, so the client's timeout counts from when it is sent, not while
  it waits behind a one-slot local server.
- Streaming: every call streams (SSE), so a long reply shows progress: a `model_progress` event
  (and the writer's text so far, as a `draft_delta` piece) each time the reply has grown by a
  step of tokens, the step being a fixed share of the reply's cap (PROGRESS_EVENTS per reply, never
  under PROGRESS_TOKENS), then one at the end with the exact total. Paced by token count, never by
  the clock: one reply logs the same events on a slow server as on a fast one, in a replay or a
  test, and never more than about PROGRESS_EVENTS (past that the step doubles each time).
- Deadline: the client's timeout is per read; a server that keeps streaming and never ends is cut
  after RESEARCH_LLM_REPLY_SECONDS (finish reason "deadline").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.runnables import Runnable

from research.brains.llm.chat_sse import ChatStream, direct_model
from research.brains.llm.model_output import strip_think
from research.brains.llm.step_context import StepContext
from research.events import emit
from research.events.payloads_model import DraftDeltaData, ModelProgressData

PROGRESS_EVENTS = 16  # progress events of one reply within its cap, the final one aside
PROGRESS_TOKENS = 50  # the smallest step, and the step of a reply whose cap is not known
STEP_NODE = {
    "plan": "supervisor",
    "queries": "researcher",
    "notes": "researcher",
    "judge": "analyst",
    "write": "writer",
    "revise": "writer",
}

_slots: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


def server_slots(server: str, limit: int) -> threading.BoundedSemaphore:
    """The process-wide slots for one server (shared by every run that calls it)."""
    with _slots_lock:
        key = (server.rstrip("/"), limit)
        if key not in _slots:
            _slots[key] = threading.BoundedSemaphore(limit)
        return _slots[key]


@dataclass
class CallRecord:
    """One model call, as the meter keeps it (no prompt, no reply text: nothing secret)."""

    role: str  # queries | plan | notes | judge | writer
    model: str
    cap: int  # max_tokens sent
    completion_tokens: int = 0
    finish_reason: str | None = None  # stop | length | tool_calls | deadline | None when failed
    failed: bool = False
    seconds: float = 0.0
    estimated: bool = False  # tokens counted from the stream, not reported by the server


class Progress:
    """Progress events for one streaming reply, paced by its token count (no-ops outside a graph run).

    `cap`: the reply's max_tokens, which sets the step (None: PROGRESS_TOKENS)."""

    def __init__(self, step: StepContext | None, model: str, *, draft: bool = False, cap: int | None = None) -> None:
        self.step = step
        self.model = model
        self.draft = draft and step is not None and step.step == "write"
        self.tokens = 0
        self.chars = 0
        self.events = 0  # progress events sent so far, the final one included
        self._t0 = time.monotonic()
        self._step = max(PROGRESS_TOKENS, -(-cap // PROGRESS_EVENTS)) if cap else PROGRESS_TOKENS
        self._next_at = self._step
        self._raw = ""
        self._sent = ""  # the preview text sent so far

    def chunk(self, text: str) -> None:
        self.tokens += 1
        if self.draft:
            self._raw += text
        if self.tokens >= self._next_at:
            # A reply past its cap's share of steps (a server that ignores the cap): the step doubles.
            self._next_at = self.tokens + (self._step if self.events < PROGRESS_EVENTS else self.tokens)
            self._flush(time.monotonic())

    def end(self) -> None:
        self._flush(time.monotonic(), done=True)

    def _flush(self, now: float, *, done: bool = False) -> None:
        self.events += 1
        if self.step is None:
            return
        rid = self.step.researcher_id
        if self.draft:
            # Reasoning blocks never reach the preview: an open <think> hides everything after it.
            visible = strip_think(
                self._raw.split("<think>")[0] if self._raw.count("<think>") > self._raw.count("</think>") else self._raw
            )
            if len(visible) > self.chars and visible.startswith(self._sent):
                piece = visible[self.chars :]
                self.chars, self._sent = len(visible), visible
                emit(DraftDeltaData(text=piece, chars=self.chars))
        data = ModelProgressData(
            node=STEP_NODE.get(self.step.step, self.step.step),
            step=self.step.step,
            model=self.model,
            tokens=self.tokens,
            seconds=round(now - self._t0, 2),
            done=done,
        )
        emit(data, researcher_id=rid)


def stream_reply(
    runnable: Runnable[list[BaseMessage], Any],
    prompt: list[BaseMessage],
    *,
    deadline_seconds: float,
    progress: Progress,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[AIMessage, str | None]:
    """Stream one reply to the end (or the deadline); returns it whole with its finish reason.

    A ChatOpenAI call is read as raw SSE (chat_sse.py: no model object per chunk); anything else
    goes through LangChain's `.stream()`."""
    direct = direct_model(runnable)
    if direct is None:
        return _stream_chunks(runnable, prompt, deadline_seconds=deadline_seconds, progress=progress, clock=clock)
    started = clock()
    finish: str | None = None
    stream = ChatStream(*direct, prompt)
    try:
        for tick in stream:
            if tick is not None:
                progress.chunk(tick)
            if clock() - started > deadline_seconds:
                finish = "deadline"
                break
    finally:
        stream.close()  # a request cut early: releases the HTTP response
        progress.end()
    return stream.message(), finish or stream.parts.finish


def _stream_chunks(
    runnable: Runnable[list[BaseMessage], Any],
    prompt: list[BaseMessage],
    *,
    deadline_seconds: float,
    progress: Progress,
    clock: Callable[[], float],
) -> tuple[AIMessage, str | None]:
    started = clock()
    whole: AIMessageChunk | None = None
    finish: str | None = None
    stream = runnable.stream(prompt)
    try:
        for chunk in stream:
            if not isinstance(chunk, AIMessageChunk):
                continue
            whole = chunk if whole is None else whole + chunk
            if chunk.content or chunk.tool_call_chunks:
                progress.chunk(chunk.text if isinstance(chunk.content, (str, list)) else "")
            if clock() - started > deadline_seconds:
                finish = "deadline"
                break
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            close()  # a generator cut early: releases the HTTP response
        progress.end()
    if whole is None:
        return AIMessage(content=""), finish
    message = message_chunk_to_message(whole)
    return message, finish or (whole.response_metadata or {}).get("finish_reason")  # type: ignore[return-value]
