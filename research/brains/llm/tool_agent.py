"""The LLM side of an agent-mode researcher: one tool-calling step of a ChatOpenAI model with the
worker's tools bound (`bind_tools`), metered by the run's UsageMeter like every other model call:
each attempt reserves a call, a failed one is recorded as failed, and transport faults are retried
by the project's policy (model_retry.py; the SDK's retries are off).

A model that cannot call tools (the server refuses `tools` with a 4xx) raises ToolsUnsupported, so
the researcher falls back to the pipeline for that worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import openai
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI

from research.brains.base import Brain
from research.brains.llm.model_retry import MODEL_RETRIES, is_transient, retry_delay
from research.brains.llm.usage_meter import UsageMeter, usage_from_message


class ToolsUnsupported(RuntimeError):
    """The model cannot (or will not) call tools: run this researcher as a pipeline instead."""


class LLMToolAgent:
    def __init__(self, llm: ChatOpenAI, meter: UsageMeter, *, retries: int = MODEL_RETRIES) -> None:
        self.llm = llm
        self.meter = meter
        self.name = llm.model_name
        self.retries = retries
        self.sleep: Callable[[float], None] = time.sleep

    def step(self, messages: Sequence[BaseMessage], tools: Sequence[BaseTool]) -> AIMessage:
        bound = self.llm.bind_tools(list(tools))
        attempt = 0
        while True:
            self.meter.reserve_call()  # raises BudgetExceeded when the run's budget is spent
            try:
                reply = bound.invoke(list(messages))
            except (openai.BadRequestError, openai.UnprocessableEntityError, openai.NotFoundError) as exc:
                self.meter.record_failure(self.llm.model_name)
                raise ToolsUnsupported(f"the model server refused tool calls (HTTP {exc.status_code})") from exc
            except Exception as exc:
                self.meter.record_failure(self.llm.model_name)
                if attempt >= self.retries or not is_transient(exc):
                    raise
                self.sleep(retry_delay(exc, attempt))
                attempt += 1
                continue
            self.meter.record(self.llm.model_name, usage_from_message(reply))
            return reply


def tool_agent_for(brain: Brain) -> LLMToolAgent | None:
    """The tool-calling model behind a brain, or None for the offline brain (its policy decides)."""
    primary = getattr(brain, "primary", brain)  # FallbackBrain wraps the LLM brain
    hook = getattr(primary, "tool_chat", None)
    if not callable(hook):
        return None
    llm, meter = hook()
    return LLMToolAgent(llm, meter)
