"""One chat-completions request, streamed and read as raw SSE: no model object per chunk.

Through `ChatOpenAI.stream()` the openai SDK builds a ChatCompletionChunk for every SSE event (and
routes response_format requests through its structured-stream helper), and langchain converts each
into an AIMessageChunk and adds it to the reply so far: most of the desk's client CPU on a fast
server. Here the same request (langchain-openai's own payload, sent by the model's own openai client:
its base URL, headers, timeout and retries) is read as SSE lines; each `data:` event is json-decoded
and only the delta fields the desk uses are kept (content, tool-call pieces, finish reason, usage).
The reply is built once, at the end, as the chunked path built it (langchain's tool-call merge and
parse, its usage metadata), and every fault is raised as langchain-openai raised it: status errors,
timeouts and refused connections as its error classes, an `error` event mid-stream as an APIError,
a response_format reply cut at its cap as the SDK's LengthFinishReasonError.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

import openai
from langchain_core.callbacks import CallbackManager, CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata, add_usage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.runnables import Runnable, RunnableBinding, ensure_config
from langchain_core.utils._merge import merge_lists
from langchain_openai.chat_models.base import (
    BaseChatOpenAI,
    _create_usage_metadata,
    _handle_openai_api_error,
    _handle_openai_bad_request,
)
from openai._httpx2 import request_exceptions, timeout_exceptions
from openai.types.chat import ChatCompletion
from openai.types.completion_usage import CompletionUsage

from research.brains.llm.chat_request import drained, streamed

# One SSE line longer than this is not a chat delta (a delta is a few hundred bytes; a server that
# sends a whole reply in one event stays far below it): the stream is refused, not buffered on.
MAX_LINE_BYTES = 4 * 1024 * 1024
_DONE = "[DONE]"


class EmptyStream(ValueError):
    """A stream that ended without a single chunk (llama-cpp-python's answer to a prompt over its
    context): a failed call, as `.stream()` failed it (LangChain's message for it, kept)."""

    def __init__(self) -> None:
        super().__init__("No generation chunks were returned")


@dataclass
class ReplyParts:
    """What the stream said, gathered as it arrives (plain values, nothing built per chunk)."""

    pieces: list[str] = field(default_factory=list)
    tool_chunks: list[list[dict[str, Any]]] = field(default_factory=list)  # one list per delta
    usages: list[tuple[dict[str, Any], str | None]] = field(default_factory=list)  # (usage, service tier)
    last_usage: dict[str, Any] | None = None  # the last chunk's usage (what the structured helper kept)
    finish: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)  # model name etc. from the finishing chunk
    events: int = 0


def direct_model(runnable: Runnable[list[BaseMessage], Any]) -> tuple[BaseChatOpenAI, dict[str, Any]] | None:
    """The ChatOpenAI model and bound options behind `runnable`, when its stream can be read
    directly; None for anything else (another model, the Responses API, a rate limiter, headers
    wanted in the metadata), which keeps LangChain's own stream."""
    if not isinstance(runnable, RunnableBinding) or runnable.config:
        return None
    llm = runnable.bound
    if not isinstance(llm, BaseChatOpenAI) or llm.client is None:
        return None
    kwargs = dict(runnable.kwargs)
    if (
        llm.disable_streaming
        or llm.rate_limiter is not None
        or llm.include_response_headers
        or llm.output_version == "v1"
        or llm._uses_gateway  # noqa: SLF001 - its gateway metadata comes from the response headers
        or llm._use_responses_api({**kwargs, **llm.model_kwargs})  # noqa: SLF001
    ):
        return None
    return llm, kwargs


class ChatStream:
    """One streamed request: iterate it for progress ticks, then take `message()`.

    Iterating yields, per SSE event, the text of a delta that carries content or tool-call pieces
    (a tool-call piece ticks as ""), and None for any other event or comment, so the caller can
    check its deadline even while a server sends only keep-alive comments. `close()` ends the
    request early (a deadline) and releases the connection.
    """

    def __init__(self, llm: BaseChatOpenAI, kwargs: dict[str, Any], prompt: list[BaseMessage]) -> None:
        self.llm = llm
        stop = kwargs.pop("stop", None)
        # What langchain-openai's `_stream` sends: the same payload builder, usage asked for the same way.
        kwargs["stream"] = True
        if llm._should_stream_usage(None, **kwargs):  # noqa: SLF001
            kwargs["stream_options"] = {"include_usage": True}
        self.payload = llm._get_request_payload(prompt, stop=stop, **kwargs)  # noqa: SLF001
        self.structured = "response_format" in self.payload
        self.parts = ReplyParts()
        self._run = _start_trace(llm, prompt, stop, kwargs)
        self._iterator = self._read()
        self._ended = False

    def __iter__(self) -> Iterator[str | None]:
        return self._iterator

    def close(self) -> None:
        self._iterator.close()

    def _read(self) -> Generator[str | None]:
        try:
            with streamed(self.llm.client, self.payload) as response:
                http = response.http_response
                chunks = http.iter_bytes()
                try:
                    for data in _sse_data(chunks, http.request):
                        if data is None:
                            yield None
                        elif data.startswith(_DONE):
                            yield from drained(http, chunks)
                            break
                        else:
                            yield self._take(json.loads(data), http.request)
                except timeout_exceptions() as err:
                    raise openai.APITimeoutError(request=http.request) from err
                except request_exceptions() as err:
                    raise openai.APIConnectionError(request=http.request) from err
        except openai.BadRequestError as exc:
            self._failed(exc)
            _handle_openai_bad_request(exc)
        except openai.APIError as exc:
            self._failed(exc)
            _handle_openai_api_error(exc)
        except BaseException as exc:
            self._failed(exc)
            raise
        self._ended = True

    def _take(self, data: Any, request: Any) -> str | None:
        """One decoded event: kept in `parts`; returns its progress tick."""
        if isinstance(data, dict) and data.get("error"):
            error = data["error"]
            message = error.get("message") if isinstance(error, dict) else None
            if not message or not isinstance(message, str):
                message = "An error occurred during streaming"
            raise openai.APIError(message=message, request=request, body=error)
        parts = self.parts
        parts.events += 1
        if not isinstance(data, dict):
            return None
        usage = data.get("usage")
        parts.last_usage = usage if isinstance(usage, dict) and usage else None
        if parts.last_usage:
            parts.usages.append((parts.last_usage, data.get("service_tier")))
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(choice, dict) or not isinstance(delta, dict):
            return None
        if finish := choice.get("finish_reason"):
            parts.finish = finish
            for key in ("model", "system_fingerprint", "service_tier"):
                if value := data.get(key):
                    parts.metadata["model_name" if key == "model" else key] = value
        content = delta.get("content")
        if not isinstance(content, str):
            content = ""
        tools = _tool_chunks(delta.get("tool_calls"))
        if content:
            parts.pieces.append(content)
        if tools:
            parts.tool_chunks.append(tools)
        return content if content or tools else None

    def message(self) -> AIMessage:
        """The whole reply (after the stream ended or was closed), as the chunked path built it."""
        parts = self.parts
        if self._ended and not parts.events:
            empty = EmptyStream()
            self._failed(empty)
            raise empty
        if self._ended and self.structured and parts.finish in ("length", "content_filter"):
            # The SDK's structured-stream helper raises here, once the stream has ended.
            completion = _completion(self.payload, parts)
            cut: Exception = (
                openai.LengthFinishReasonError(completion=completion)
                if parts.finish == "length"
                else openai.ContentFilterFinishReasonError(completion=completion)
            )
            self._failed(cut)
            raise cut
        usage = _usage(parts, structured=self.structured)
        metadata: dict[str, Any] = {"model_provider": "openai"}
        if parts.finish:
            metadata.update(finish_reason=parts.finish, **parts.metadata)
        merged = merge_lists(None, *parts.tool_chunks) or []
        whole = AIMessageChunk(
            content="".join(parts.pieces),
            tool_call_chunks=[
                tool_call_chunk(name=t.get("name"), args=t.get("args"), id=t.get("id"), index=t.get("index"))
                for t in merged
            ],
            usage_metadata=usage,
            response_metadata=metadata,
        )
        message = message_chunk_to_message(whole)
        assert isinstance(message, AIMessage)  # noqa: S101 - an AIMessageChunk converts to one
        if self._run is not None:
            self._run.on_llm_end(LLMResult(generations=[[ChatGeneration(message=message)]]))
            self._run = None
        return message

    def _failed(self, error: BaseException) -> None:
        if self._run is not None:
            self._run.on_llm_error(error, response=LLMResult(generations=[]))
            self._run = None


def _tool_chunks(raw: Any) -> list[dict[str, Any]]:
    """A delta's tool-call pieces as langchain reads them (a malformed list is dropped whole)."""
    if not raw:
        return []
    try:
        return [
            {
                "name": rtc["function"].get("name"),
                "args": rtc["function"].get("arguments"),
                "id": rtc.get("id"),
                "index": rtc["index"],
                "type": "tool_call_chunk",
            }
            for rtc in raw
        ]
    except (KeyError, TypeError, AttributeError):
        return []


def _usage(parts: ReplyParts, *, structured: bool) -> UsageMetadata | None:
    if structured:
        # The structured helper reports the last chunk's usage (None when that chunk had none).
        tier = parts.usages[-1][1] if parts.usages else None
        return _create_usage_metadata(parts.last_usage, tier) if parts.last_usage else None
    total: UsageMetadata | None = None
    for usage, tier in parts.usages:
        one = _create_usage_metadata(usage, tier)
        total = one if total is None else add_usage(total, one)
    return total


def _completion(payload: dict[str, Any], parts: ReplyParts) -> ChatCompletion:
    """The stand-in completion a LengthFinishReasonError carries (as the SDK's snapshot would)."""
    usage = CompletionUsage.model_construct(**parts.last_usage) if parts.last_usage else None
    return ChatCompletion.model_construct(
        id="", choices=[], created=0, model=str(payload.get("model") or ""), object="chat.completion", usage=usage
    )


def _start_trace(
    llm: BaseChatOpenAI, prompt: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> CallbackManagerForLLMRun | None:
    """The call's run for LangChain callbacks (LangSmith tracing), opened as `.stream()` opens it;
    None when nothing listens. No per-token callbacks: nothing here consumes them."""
    config = ensure_config()
    params = llm._get_invocation_params(stop=stop, **kwargs)  # noqa: SLF001
    manager = CallbackManager.configure(
        config.get("callbacks"),
        llm.callbacks,
        llm.verbose,
        config.get("tags"),
        llm.tags,
        {**(config.get("metadata") or {}), **llm._get_ls_params_with_defaults(stop=stop, **kwargs)},  # noqa: SLF001
        llm.metadata,
    )
    if not manager.handlers:
        return None
    (run,) = manager.on_chat_model_start(
        llm._serialized,  # noqa: SLF001
        [prompt],
        invocation_params=params,
        options={"stop": stop, **{key: params[key] for key in kwargs if key in params}},
        name=config.get("run_name"),
        batch_size=1,
    )
    return run


def _sse_data(chunks: Iterator[bytes], request: Any) -> Iterator[str | None]:
    """The data of each SSE event (its `data:` lines joined by newlines, as the SDK joins them),
    and None for a keep-alive comment. `event:`, `id:` and `retry:` lines change nothing a chat
    reply needs; an event with no data line is skipped. Linear in the bytes received."""
    data: list[str] = []
    for line in _lines(chunks, request):
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith(b":"):
            yield None
        else:
            name, _, value = line.partition(b":")
            if name == b"data":
                data.append((value[1:] if value.startswith(b" ") else value).decode("utf-8"))
    if data:
        yield "\n".join(data)  # a last event the server did not end with a blank line


def _lines(chunks: Iterator[bytes], request: Any) -> Iterator[bytes]:
    """Lines ending at CR, LF or CRLF (also a CRLF split between two chunks), without the ending."""
    pending: list[bytes] = []  # the start of a line still arriving
    size = 0
    skip_lf = False
    for chunk in chunks:
        if not chunk:
            continue
        if skip_lf and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        skip_lf = False
        for piece in chunk.splitlines(keepends=True):
            body = piece.rstrip(b"\r\n")
            if len(body) == len(piece):  # no line end yet: the chunk ended mid-line
                pending.append(piece)
                size += len(piece)
                skip_lf = False
                if size > MAX_LINE_BYTES:
                    raise openai.APIError(
                        message=f"a line of the model's stream is over {MAX_LINE_BYTES:,} bytes",
                        request=request,
                        body=None,
                    )
                continue
            skip_lf = piece.endswith(b"\r")
            yield b"".join([*pending, body]) if pending else body
            pending, size = [], 0
    if pending:
        yield b"".join(pending)
