"""A run cut at its ceiling leaves nothing behind: its late reply stays on its own meter (never the
next run's), and on llama-cpp, which finishes a non-streamed request whose client is gone, the
server is started again on the same port before the next run."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

import bench.llama_server
from bench.peers.budget import RunBudget
from bench.peers.figure import TOPICS, _topic_rows
from bench.peers.meter import MeteringProxy
from bench.peers.setting import ModelSetting, model_setting
from bench.peers.world import PeerWorld
from tests.fakes.openai_server import FakeOpenAIServer

CEILING = 120.0  # seconds to wait on a state change, far above what it takes on a busy machine


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + CEILING
    while not condition():
        assert time.monotonic() < deadline, f"waited {CEILING:g} s for {what}"
        time.sleep(0.05)


def test_a_late_reply_counts_for_the_meter_it_started_on() -> None:
    release = threading.Event()

    def held(request: dict) -> str:
        release.wait(CEILING)
        return "late"

    with FakeOpenAIServer(held) as fake, MeteringProxy(fake.base_url) as proxy:
        body = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
        late = threading.Thread(
            target=lambda: httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=CEILING)
        )
        late.start()
        _until(lambda: fake.stats.in_flight == 1, "the request to reach the model")
        proxy.reset()  # the next run starts while the cut run's request is still on the server
        release.set()
        late.join(CEILING)
        fake.responder = lambda request: "on time"
        httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=CEILING).raise_for_status()
        meter = proxy.meter()
    assert meter.requests == 1 and meter.calls[0].completion_text == "on time"


@dataclass
class _Server:
    """Stands in for bench.llama_server.LlamaServer: records its starts and stops."""

    log_path: Path
    threads: int = 1
    port: int = 40_001
    model: Path | None = None
    alias: str = "m"
    n_ctx: int = 0
    events: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> _Server:
        STARTED.append(self)
        self.events.append("start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.events.append("stop")


STARTED: list[_Server] = []


def test_the_server_is_started_again_on_its_port_and_stopped_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    STARTED.clear()
    monkeypatch.setattr(bench.llama_server, "LlamaServer", _Server)
    monkeypatch.setattr(bench.llama_server, "qwen_model_path", lambda: tmp_path / "qwen.gguf")
    with model_setting("qwen", tmp_path) as setting:
        first_log = setting.server_log
        assert setting.restart is not None
        setting.restart()
        assert setting.restarts == 1 and setting.server_log == tmp_path / "qwen-server-1.log" != first_log
    first, second = STARTED
    assert (second.port, second.threads, second.model) == (first.port, first.threads, tmp_path / "qwen.gguf")
    assert first.events == ["start", "stop"] and second.events == ["start", "stop"]


def test_a_local_run_cut_at_its_ceiling_restarts_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PEERS_TIMEOUT", "3")
    monkeypatch.setenv("PEERS_SYSTEMS", "desk")
    restarts: list[int] = []
    near_miss = next(t for t in TOPICS if t.group == "near-miss")
    with (
        PeerWorld(tmp_path / "world") as world,
        FakeOpenAIServer(latency=3600) as stalled,  # a model that never answers in time
        MeteringProxy(stalled.base_url) as proxy,
    ):
        setting = ModelSetting("qwen", "m", proxy, restart=lambda: restarts.append(1))
        (row,) = _topic_rows(setting, world, near_miss, {}, tmp_path / "runs", RunBudget(1), [])
    assert row["finished"] is False and row["error"] == "timed out after 3 s" and row["ceiling_seconds"] == 3
    assert restarts == [1]
