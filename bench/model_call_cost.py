"""`python -m bench.model_call_cost [--calls 300]`: what one streamed model call costs the desk beyond
the model's own time, on the loopback OpenAI fake with no latency, one call after another.

Per call (medians): the time from the call's start to the request's arrival at the fake (building
and sending it), from the reply being due at the fake to the call's return (reading the stream,
the body's end, the reply built), the calling thread's CPU, and the TCP connections the fake
accepted for all the calls (1 when the client keeps its connection).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from bench.harness import median
from research.brains.llm.llm_brain import chat_model
from research.brains.llm.model_stream import Progress, stream_reply
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer

TEXT = "Heat pumps move heat rather than make it, using a refrigerant cycle [1]. " * 8
PROMPT = [SystemMessage("Role: researcher. " * 50), HumanMessage("Write notes on heat pumps. " * 80)]


class _TimedServer(FakeOpenAIServer):
    """Notes each request's arrival and when its reply was due, on the caller's clock."""

    def __init__(self) -> None:
        super().__init__(lambda _request: TEXT)
        self.marks: list[tuple[float, float]] = []

    def _reply(self, http: Any, request: dict[str, Any], fault: Any, api_key: str, due: float) -> None:
        now, mono = time.perf_counter(), time.monotonic()
        self.marks.append((now, now + (due - mono)))
        super()._reply(http, request, fault, api_key, due)


def measure(calls: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data, _TimedServer() as server:
        settings = Settings(
            _env_file=None, openai_base_url=server.base_url, openai_api_key="sk-bench", model="m", data_dir=Path(data)
        )
        llm = chat_model(settings, "m").bind(max_tokens=400)

        def call() -> None:
            stream_reply(llm, PROMPT, deadline_seconds=60, progress=Progress(None, "m"), clock=time.monotonic)

        for _ in range(5):  # warm-up: imports, the first connection
            call()
        opened = server.connections
        send, read, cpu = [], [], []
        for _ in range(calls):
            server.marks.clear()
            start, cpu_start = time.perf_counter(), time.thread_time()
            call()
            end = time.perf_counter()
            cpu.append(time.thread_time() - cpu_start)
            arrived, due = server.marks[0]
            send.append(arrived - start)
            read.append(end - due)
        return {
            "calls": calls,
            "send_ms": round(median(send) * 1000, 3),
            "read_ms": round(median(read) * 1000, 3),
            "over_model_ms": round((median(send) + median(read)) * 1000, 3),
            "client_cpu_ms": round(median(cpu) * 1000, 3),
            "connections": server.connections - opened,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.model_call_cost", description=__doc__)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.calls), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
