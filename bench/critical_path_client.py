"""`python -m bench.critical_path_client [--calls 40]`: the model client's CPU per streamed call,
LangChain's chunked `.stream()` against the raw SSE reader (research/brains/llm/chat_sse.py), on
the loopback OpenAI fake, alternately in one process.

Only the calling thread's CPU clock counts (`time.thread_time`), so the fake server's threads and
other processes on a busy machine do not: this is the CPU a reply costs the desk's critical path,
the work the nine researchers' replies queue for on the GIL. Two reply shapes: a text reply (the
notes) and a `response_format` json_schema reply (the structured steps, which the chunked path
sent through the SDK's structured-stream helper).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from bench.harness import median
from research.brains.llm.llm_brain import chat_model
from research.brains.llm.model_stream import Progress, _stream_chunks, stream_reply
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer

REPLY_CHARS = 1200  # about 300 tokens
CHUNK_CHARS = 4  # a chunk per token, as a hosted model or llama-cpp streams
SHAPES = {
    "text": {"max_tokens": 400},
    "json_schema": {
        "max_tokens": 400,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "Notes",
                "schema": {
                    "type": "object",
                    "properties": {"notes": {"type": "string"}},
                    "required": ["notes"],
                    "additionalProperties": False,
                },
                "strict": True,
            },
        },
    },
}
PROMPT = [HumanMessage("Write notes on heat pumps.")]


def _responder(request: dict[str, Any]) -> Any:
    text = ("Heat pumps move heat rather than make it. " * 40)[:REPLY_CHARS]
    return {"notes": text} if request.get("response_format") else text


def measure(calls: int) -> dict[str, Any]:
    readers = {"chunked": _stream_chunks, "raw": stream_reply}
    seconds: dict[str, dict[str, list[float]]] = {shape: {r: [] for r in readers} for shape in SHAPES}
    with tempfile.TemporaryDirectory() as data, FakeOpenAIServer(_responder, stream_chunk_chars=CHUNK_CHARS) as server:
        settings = Settings(
            _env_file=None, openai_base_url=server.base_url, openai_api_key="sk-bench", model="m", data_dir=Path(data)
        )
        llm = chat_model(settings, "m")
        for shape, bound in SHAPES.items():
            runnable = llm.bind(**bound)
            for reader in readers.values():  # warm-up: imports, the connection
                reader(runnable, PROMPT, deadline_seconds=60, progress=Progress(None, "m"), clock=time.monotonic)
            for i in range(calls):
                order = list(readers.items()) if i % 2 == 0 else list(readers.items())[::-1]
                for name, reader in order:
                    start = time.thread_time()
                    reader(runnable, PROMPT, deadline_seconds=60, progress=Progress(None, "m"), clock=time.monotonic)
                    seconds[shape][name].append(time.thread_time() - start)
    out: dict[str, Any] = {"calls": calls, "reply_chars": REPLY_CHARS, "chunk_chars": CHUNK_CHARS, "shapes": {}}
    for shape, by_reader in seconds.items():
        chunked, raw = median(by_reader["chunked"]), median(by_reader["raw"])
        out["shapes"][shape] = {
            "chunked_ms": round(chunked * 1000, 2),
            "raw_ms": round(raw * 1000, 2),
            "raw_over_chunked": round(raw / chunked, 3),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.critical_path_client", description=__doc__)
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.calls), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
