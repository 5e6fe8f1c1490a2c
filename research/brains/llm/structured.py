"""Structured output that survives the servers people actually run.

OpenAI honours `response_format` json_schema; many local OpenAI-compatible servers reject it
(HTTP 400, or llama-cpp-python's HTTP 500 naming `response_format`), some reject named tool
choice too, and reasoning models wrap JSON in think blocks. `invoke_structured` tries, in order:

1. json_schema   `response_format` with the strict JSON schema
2. json_mode     `{"type": "json_object", "schema": ...}`: JSON mode with the schema, which
                 llama-cpp-python turns into a grammar (the reply cannot leave the schema)
3. json_object   plain JSON mode (the schema in the prompt), as Ollama, LM Studio and vLLM take it
4. function_calling  a forced call of a tool whose parameters are the schema
5. json_prompt   a plain call asking for JSON, parsed leniently, with one repair turn that sends
                 the validation error back

and remembers, per base URL + model, the first method that worked (capabilities.py: in memory
and in the data dir, so later processes pay for no failed attempts). Transport faults (timeouts,
real 5xx, 429 after the client's retries, refused connections) are not format problems: they
propagate unchanged for the caller's fallback to handle.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, Literal, Protocol, TypeVar

import openai
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from research.brains.llm.capabilities import (
    CapabilityStore,
    forget_all_in_memory,
    is_shape_rejection,
    server_label,
    store_for,
)
from research.brains.llm.grammar_schema import MAX_ITEMS, grammar_schema
from research.brains.llm.model_output import InvalidModelOutput, extract_json_object, strict_json_schema
from research.brains.llm.usage_meter import usage_from_message
from research.prompts import JSON_REPAIR_INSTRUCTION, JSON_REPLY_INSTRUCTION
from research.schemas.state_shapes import Usage

M = TypeVar("M", bound=BaseModel)
Method = Literal["json_schema", "json_mode", "json_object", "function_calling", "json_prompt"]
METHODS: tuple[Method, ...] = ("json_schema", "json_mode", "json_object", "function_calling", "json_prompt")
# The methods whose schema becomes a grammar that holds every list to MAX_ITEMS (grammar_schema.py).
GRAMMAR_BOUND: frozenset[Method] = frozenset({"json_mode"})
_MAX_ERROR_CHARS = 200
# What a call runs: the model, bound to a format or tools (its output is a message, or a dict holding one).
ChatRunnable = Runnable[list[BaseMessage], Any]
Invoke = Callable[[ChatRunnable, list[BaseMessage]], AIMessage]


class StructuredOutputError(InvalidModelOutput):
    """No method produced output matching the schema (the reasons are in the message)."""


class _InvalidOutput(ValueError):
    """The server answered, but not with a valid instance of the schema."""


def server_key(llm: Any) -> str:
    """Which server + model a remembered method belongs to ("base_url|model")."""
    base = str(getattr(llm, "openai_api_base", None) or "https://api.openai.com/v1")
    return server_label(base, str(getattr(llm, "model_name", "") or ""))


def remembered_method(llm: Any, memory: CapabilityStore | None = None) -> Method | None:
    method = (memory or store_for(None)).get(server_key(llm))
    return method if method in METHODS else None


def list_room(llm: Any, most: int, memory: CapabilityStore | None = None) -> int:
    """How many items one structured reply of `llm` can hold: the grammar's list bound (MAX_ITEMS)
    where the method remembered for its server + model makes the schema a grammar that bounds lists
    (json_mode, llama-cpp), and where no method is known yet (the first call may end there);
    `most` (the caller's own cap, which keeps its prompt and reply bounded) everywhere else."""
    method = remembered_method(llm, memory)
    bounded = method is None or method in GRAMMAR_BOUND
    return max(1, min(most, MAX_ITEMS) if bounded else most)


def forget_methods() -> None:
    """Clear what this process learned about servers (tests; files are re-read on next use)."""
    forget_all_in_memory()


def invoke_structured(
    llm: Any,
    schema: type[M],
    messages: list[BaseMessage],
    *,
    before_call: Callable[[], None] | None = None,
    on_usage: Callable[[Usage], None] | None = None,
    invoke: Invoke | None = None,
    memory: CapabilityStore | None = None,
) -> tuple[M, Usage]:
    """Ask `llm` for an instance of `schema`; returns it with the usage of every call made.

    `before_call` runs before each request (the budget check: it may raise BudgetExceeded);
    `on_usage` receives each reply's usage as it arrives, so usage is metered even when a later
    step fails. `invoke(runnable, prompt)` makes the call (default `runnable.invoke`; the LLM
    brain streams, caps and meters there). `memory` keeps the working method (default: this
    process only).
    """
    memory = memory or store_for(None)
    key = server_key(llm)
    remembered = memory.get(key)
    start = remembered if remembered in METHODS else METHODS[0]
    total = Usage()

    def call(runnable: ChatRunnable, prompt: list[BaseMessage]) -> AIMessage:
        nonlocal total
        if before_call is not None:
            before_call()
        out = invoke(runnable, prompt) if invoke is not None else runnable.invoke(prompt)
        raw = out["raw"] if isinstance(out, dict) else out
        usage = usage_from_message(raw)
        total = total + usage
        if on_usage is not None:
            on_usage(usage)
        return raw

    reasons: list[str] = []
    # What is remembered is what the server accepts, not which method happened to get valid output
    # this time: one invalid reply from a small model must not move every later call down the list.
    accepted: Method | None = None
    for method in METHODS[METHODS.index(start) :]:
        try:
            parsed = _ATTEMPTS[method](llm, schema, messages, call)
        except ContextOverflowError:
            raise  # the prompt is too long for every method alike
        except openai.APIStatusError as exc:
            if method == "json_prompt" or not is_shape_rejection(exc):  # an overflow is not one either
                raise  # a plain request rejected, or a real fault: not a format problem
            reasons.append(f"{method}: HTTP {exc.status_code} {_short(exc.message)}")
            continue
        except _InvalidOutput as exc:
            accepted = accepted or method
            reasons.append(f"{method}: {_short(str(exc))}")
            continue
        except openai.LengthFinishReasonError:
            accepted = accepted or method
            # The reply hit its token cap mid-JSON (a response_format stream raises it): the
            # method works, this reply did not; the next method may fit in the cap.
            reasons.append(f"{method}: the reply was cut at its token cap before the JSON ended")
            continue
        memory.put(key, accepted or method)
        return parsed, total
    if accepted:
        memory.put(key, accepted)
    raise StructuredOutputError(f"{schema.__name__}: no valid structured output ({'; '.join(reasons)})")


Call = Callable[[ChatRunnable, list[BaseMessage]], AIMessage]


def _json_schema(llm: Any, schema: type[M], messages: list[BaseMessage], call: Call) -> M:
    # Bound directly rather than through `with_structured_output`: with include_raw that wraps the
    # call in two RunnableParallel steps, each starting a thread-pool thread per call, and we parse
    # the raw reply ourselves anyway (a think block would make the SDK's parser raise). The schema
    # is a dict, already strict-safe (all required, no defaults), as OpenAI's strict mode demands.
    raw = call(llm.bind(response_format=_response_format(schema)), messages)
    return _validate_text(schema, _text(raw))


def _json_mode(llm: Any, schema: type[M], messages: list[BaseMessage], call: Call) -> M:
    # llama-cpp-python builds a grammar from "schema"; OpenAI-style JSON mode wants "JSON" in the prompt.
    shape = grammar_schema(schema)
    fmt = {"type": "json_object", "schema": shape}
    raw = call(llm.bind(response_format=fmt), [*messages, HumanMessage(_json_instruction(schema, shape))])
    return _validate_text(schema, _text(raw))


def _json_object(llm: Any, schema: type[M], messages: list[BaseMessage], call: Call) -> M:
    raw = call(llm.bind(response_format={"type": "json_object"}), [*messages, HumanMessage(_json_instruction(schema))])
    return _validate_text(schema, _text(raw))


def _json_instruction(schema: type[BaseModel], shape: dict[str, Any] | None = None) -> str:
    return JSON_REPLY_INSTRUCTION.format(
        name=schema.__name__, schema=json.dumps(shape or strict_json_schema(schema), separators=(",", ":"))
    )


def _function_calling(llm: Any, schema: type[M], messages: list[BaseMessage], call: Call) -> M:
    runnable = llm.bind_tools([schema], tool_choice=schema.__name__, parallel_tool_calls=False)
    raw = call(runnable, messages)
    if raw.tool_calls:
        return _validate_object(schema, raw.tool_calls[0]["args"])
    if raw.invalid_tool_calls:
        return _validate_text(schema, str(raw.invalid_tool_calls[0].get("args") or ""))
    return _validate_text(schema, _text(raw))  # servers that ignore tool_choice answer in content


@functools.lru_cache(maxsize=64)
def _response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """OpenAI's json_schema response format for `schema` (built once per schema class)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": strict_json_schema(schema), "strict": True},
    }


def _json_prompt(llm: Any, schema: type[M], messages: list[BaseMessage], call: Call) -> M:
    prompt = [*messages, HumanMessage(_json_instruction(schema))]
    first = call(llm, prompt)
    try:
        return _validate_text(schema, _text(first))
    except _InvalidOutput as exc:
        repair = JSON_REPAIR_INSTRUCTION.format(error=_short(str(exc), 600), name=schema.__name__)
        second = call(llm, [*prompt, AIMessage(_text(first)[:4000]), HumanMessage(repair)])
        return _validate_text(schema, _text(second))


class _Attempt(Protocol):
    """One method of asking for structured output: an instance of `schema`, or _InvalidOutput."""

    def __call__(self, llm: Any, schema: type[M], messages: list[BaseMessage], call: Call) -> M: ...


_ATTEMPTS: dict[Method, _Attempt] = {
    "json_schema": _json_schema,
    "json_mode": _json_mode,
    "json_object": _json_object,
    "function_calling": _function_calling,
    "json_prompt": _json_prompt,
}


def _text(message: AIMessage) -> str:
    return str(message.text)


def _validate_text(schema: type[M], text: str) -> M:
    try:
        obj = extract_json_object(text)
    except ValueError as exc:
        raise _InvalidOutput(str(exc)) from None
    return _validate_object(schema, obj)


def _validate_object(schema: type[M], obj: Any) -> M:
    try:
        return schema.model_validate(obj)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise _InvalidOutput(f"the JSON does not match {schema.__name__}: {problems}") from None


def _short(text: str, limit: int = _MAX_ERROR_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
