"""The LLM brain's call machinery: caps per role, context fitting, slots, streaming, metering.

Every model call of a run goes through one ModelCaller:

- a reply cap per role (RESEARCH_REPLY_TOKENS_*), sent as `max_completion_tokens` (what
  langchain-openai sends) and, to servers other than OpenAI's, as `max_tokens` too: llama-cpp-python
  0.3.x reads only `max_tokens` and would otherwise generate until its context is full;
- a reply cut by its cap (finish reason "length") is used and noted with a warning;
- prompts fit the context (RESEARCH_CONTEXT_TOKENS, or the figure the server named in a context
  overflow, remembered for the run): the least relevant sources go first; an overflow trims and
  retries once before the step falls back;
- every call reserves a budget unit and is metered, failed attempts included (labelled failed);
  the SDK's retries are off, and a transport fault is retried here (model_retry.py), each attempt
  a metered call of its own, so the server sees exactly the calls the meter counts.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import openai
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from research.brains.llm.capabilities import cache_dir, is_context_overflow, store_for
from research.brains.llm.context_fit import fit_messages, prompt_chars, prompt_chars_allowed
from research.brains.llm.model_output import InvalidModelOutput
from research.brains.llm.model_retry import MODEL_RETRIES, is_transient, retry_delay
from research.brains.llm.model_stream import CallRecord, Progress, server_slots, stream_reply
from research.brains.llm.step_context import current_step
from research.brains.llm.structured import invoke_structured
from research.brains.llm.usage_meter import UsageMeter, usage_from_message
from research.events.agent_log import agent_log, warn
from research.schemas.state_shapes import Usage
from research.settings import Settings

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
OPENAI_BASE = "https://api.openai.com/v1"
ROLE_OF_SCHEMA = {
    "QueryPlan": "queries",
    "ResearchPlan": "plan",
    "SupervisorDecision": "plan",
    "AnalystVerdict": "judge",
}
# The writer's reference list is rebuilt from the citations: stop before the model writes its own.
ROLE_STOPS = {"writer": ["\n## Sources", "\n## References", "\nSources:\n"]}
ESTIMATE_CHARS_PER_TOKEN = 4
_SERVER_CONTEXT = re.compile(r"maximum context length is (\d+) tokens", re.IGNORECASE)


class ReplyDeadline(RuntimeError):
    """A structured reply was still streaming at RESEARCH_LLM_REPLY_SECONDS (cut, unusable)."""


class ModelCaller:
    def __init__(
        self, settings: Settings, meter: UsageMeter, *, source: str = "openai", retries: int = MODEL_RETRIES
    ) -> None:
        self.settings = settings
        self.meter = meter
        self.retries = retries  # attempts after the first on a transport fault, each one metered
        self.sleep: Callable[[float], None] = time.sleep  # tests replace it to skip the backoff
        self.source = source  # the warnings' source (never the base URL: it may carry credentials)
        base = (settings.openai_base_url or OPENAI_BASE).rstrip("/")
        self.is_openai = base == OPENAI_BASE
        self.memory = store_for(cache_dir())  # per user, keyed by server + model: not per run store
        self.slots = server_slots(base, settings.llm_concurrency)
        self._context_tokens = settings.context_tokens
        self._lock = threading.Lock()

    def cap(self, role: str) -> int:
        return int(getattr(self.settings, f"reply_tokens_{role}"))

    # --- the two kinds of call -----------------------------------------------------------------
    def structured(
        self,
        llm: ChatOpenAI,
        schema: type[M],
        messages: list[BaseMessage],
        role: str | None = None,
        *,
        sampling: dict[str, Any] | None = None,
    ) -> M:
        """`sampling`: server-specific sampler fields sent in the request body (never to OpenAI's API)."""
        role = role or ROLE_OF_SCHEMA.get(schema.__name__, "plan")

        def attempt(prompt: list[BaseMessage]) -> M:
            parsed, _usage = invoke_structured(
                llm,
                schema,
                prompt,
                invoke=lambda r, p: self._call(
                    lambda: self._attempt(llm, role, r, p, structured=True, sampling=sampling)
                ),
                memory=self.memory,
            )
            return parsed

        return self._fitted(role, messages, attempt)

    def text(self, llm: ChatOpenAI, messages: list[BaseMessage], role: str) -> AIMessage:
        return self._fitted(
            role, messages, lambda prompt: self._call(lambda: self._attempt(llm, role, llm, prompt, structured=False))
        )

    # --- context --------------------------------------------------------------------------------
    def _fitted(self, role: str, messages: list[BaseMessage], attempt: Callable[[list[BaseMessage]], T]) -> T:
        cap = self.cap(role)
        prompt = self._fit(role, messages, cap)
        try:
            return attempt(prompt)
        except Exception as exc:  # noqa: BLE001 - only an overflow is handled here
            if not is_context_overflow(exc):
                raise
            figure = _SERVER_CONTEXT.search(str(exc))
            with self._lock:
                if figure:
                    self._context_tokens = int(figure.group(1))
            allowed = prompt_chars_allowed(int(figure.group(1)), cap) if figure else prompt_chars(prompt) // 2
            smaller, dropped = fit_messages(prompt, min(allowed, prompt_chars(prompt) * 3 // 4))
            if not dropped:
                raise
            self._warn(
                role, f"prompt over the model's context: dropped the {dropped} least relevant sources and retried"
            )
            return attempt(smaller)

    def _fit(self, role: str, messages: list[BaseMessage], cap: int) -> list[BaseMessage]:
        with self._lock:
            context = self._context_tokens
        if not context:
            return messages
        fitted, dropped = fit_messages(messages, prompt_chars_allowed(context, cap))
        if dropped:
            self._warn(
                role,
                f"dropped the {dropped} least relevant sources to fit the model's "
                f"{context:,}-token context (RESEARCH_CONTEXT_TOKENS)",
            )
        return fitted

    # --- one request ----------------------------------------------------------------------------
    def _call(self, attempt_once: Callable[[], AIMessage]) -> AIMessage:
        """One request (`attempt_once`, an `_attempt`), retried on a transport fault; every attempt
        reserves and meters a call."""
        attempt = 0
        while True:
            try:
                return attempt_once()
            except Exception as exc:
                if attempt >= self.retries or not is_transient(exc):
                    raise
                self.sleep(retry_delay(exc, attempt))
                attempt += 1

    def _attempt(
        self,
        llm: ChatOpenAI,
        role: str,
        runnable: Runnable[list[BaseMessage], Any],
        prompt: list[BaseMessage],
        *,
        structured: bool,
        sampling: dict[str, Any] | None = None,
    ) -> AIMessage:
        self.meter.reserve_call()  # may raise BudgetExceeded: no request, no unit used
        model = str(getattr(llm, "model_name", "") or "")
        cap = self.cap(role)
        options: dict[str, Any] = {"max_tokens": cap}
        if not self.is_openai:
            options["extra_body"] = {"max_tokens": cap, **(sampling or {})}
        if role in ROLE_STOPS:
            options["stop"] = ROLE_STOPS[role]
        record = CallRecord(role=role, model=model, cap=cap)
        started = time.monotonic()
        # A structured writer reply is JSON: the grounded writer previews its rendered sections instead.
        progress = Progress(current_step(), model, draft=role == "writer" and not structured, cap=cap)
        try:
            with self.slots:  # waits for a free slot; the request (and its timeout) starts after
                reply, finish = stream_reply(
                    runnable.bind(**options),
                    prompt,
                    deadline_seconds=self.settings.llm_reply_seconds,
                    progress=progress,
                )
        except openai.LengthFinishReasonError:
            # A structured reply cut at its cap (raised for response_format streams, as the SDK did: chat_sse.py).
            record.failed, record.finish_reason, record.completion_tokens = True, "length", progress.tokens
            record.seconds = round(time.monotonic() - started, 2)
            self.meter.log_call(record)
            _log_call(record)
            self.meter.record(
                model,
                Usage(
                    calls=1,
                    failed_calls=1,
                    completion_tokens=progress.tokens,
                    prompt_tokens=prompt_chars(prompt) // ESTIMATE_CHARS_PER_TOKEN,
                ),
            )
            self._warn(
                role,
                f"reply cut at its cap of {cap} tokens (RESEARCH_REPLY_TOKENS_{role.upper()}) before its JSON ended",
            )
            raise
        except Exception:
            record.failed, record.seconds = True, round(time.monotonic() - started, 2)
            self.meter.log_call(record)
            _log_call(record)
            self.meter.record_failure(model)
            raise
        usage = usage_from_message(reply)
        if not usage.total_tokens and progress.tokens:
            # llama-cpp-python sends no usage chunk when streaming: count what was streamed (one
            # chunk per token there) and estimate the prompt, so the token budget still holds.
            usage = usage.model_copy(
                update={
                    "completion_tokens": progress.tokens,
                    "prompt_tokens": prompt_chars(prompt) // ESTIMATE_CHARS_PER_TOKEN,
                }
            )
            record.estimated = True
        record.completion_tokens, record.finish_reason = usage.completion_tokens, finish
        record.seconds = round(time.monotonic() - started, 2)
        if finish == "deadline" and structured:
            record.failed = True
            usage = usage.model_copy(update={"failed_calls": 1})
        self.meter.log_call(record)
        self.meter.record(model, usage)
        _log_call(record)
        if finish == "length":
            self._warn(
                role, f"reply cut at its cap of {cap} tokens (RESEARCH_REPLY_TOKENS_{role.upper()}); used as it is"
            )
        elif finish == "deadline":
            seconds = self.settings.llm_reply_seconds
            if structured:
                raise ReplyDeadline(f"the reply had not ended after {seconds:g} s (RESEARCH_LLM_REPLY_SECONDS)")
            self._warn(role, f"reply cut after {seconds:g} s (RESEARCH_LLM_REPLY_SECONDS); used as it is")
        if not structured and not str(reply.text).strip():
            raise InvalidModelOutput("the model returned an empty reply")
        return reply

    def _warn(self, role: str, message: str) -> None:
        step = current_step()
        rid = step.researcher_id if step else None
        name = step.step if step else role
        warn(self.source, f"{rid + ' ' if rid else ''}{name}: {message}", researcher_id=rid)


def _log_call(record: CallRecord) -> None:
    """One line per model call in the agent log (what the real-model lane checks the caps with)."""
    agent_log.info(
        "[MODEL] role=%s model=%s cap=%d completion_tokens=%d finish=%s failed=%s seconds=%.2f estimated=%s",
        record.role,
        record.model,
        record.cap,
        record.completion_tokens,
        record.finish_reason,
        record.failed,
        record.seconds,
        record.estimated,
    )
