"""One streamed reply logs a bounded number of `model_progress` events, paced by its token count
and never by the clock: a 300-chunk reply through the loopback model logs the same few events
whether the server sends it at once or a second per chunk, the live counter advances with each
and the last carries the exact total; a reply that runs far past its cap stays bounded too."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from research.brains.llm import model_stream
from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.model_stream import PROGRESS_EVENTS, Progress
from research.brains.llm.step_context import StepContext, in_step
from research.events import Event
from research.runs.view import fold
from research.schemas.state_shapes import ResearcherTask, Source
from tests.fakes.openai_server import FakeOpenAIServer
from tests.settings_presets import model_call_settings

TASK = ResearcherTask(researcher_id="web-1", kind="web", question="How do mRNA vaccines instruct cells?", topic="mRNA")
SOURCE = Source(id="s1", title="LNP", url="https://example.org/a", kind="web", provider="fake", snippet="x")
CHUNKS = 300


def _reply_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, seconds_per_read: float) -> list[dict]:
    """The model_progress payloads of one notes reply of CHUNKS chunks; the stream's clock reads
    advance by `seconds_per_read` (0: the real clock), as a slow server would make them."""
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(model_stream, "emit", lambda data, **_where: sent.append((data.event_type, data.model_dump())))
    if seconds_per_read:
        ticks = itertools.count(step=seconds_per_read)
        monkeypatch.setattr(model_stream, "time", SimpleNamespace(monotonic=lambda: float(next(ticks))))
    with FakeOpenAIServer(lambda request: "word " * CHUNKS, stream_chunk_chars=5) as server:
        brain = LLMBrain(
            model_call_settings(server.base_url, tmp_path / "data", api_key="sk-local", model="local-model")
        )
        with in_step("notes", TASK.researcher_id):
            brain.notes(TASK, [SOURCE], lambda _id: "")
        assert len(server.requests) == 1  # one reply
    monkeypatch.undo()
    return [d for kind, d in sent if kind == "model_progress"]


def test_a_300_chunk_reply_logs_a_few_progress_events_the_last_with_the_exact_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _reply_progress(tmp_path / "fast", monkeypatch, seconds_per_read=0)
    slow = _reply_progress(tmp_path / "slow", monkeypatch, seconds_per_read=1.0)  # a second per chunk
    for ticks in (fast, slow):
        tokens = [d["tokens"] for d in ticks]
        assert len(ticks) <= PROGRESS_EVENTS + 1, tokens
        assert tokens == sorted(tokens) and len(set(tokens[:-1])) == len(tokens) - 1  # each one advances
        assert ticks[-1]["done"] and ticks[-1]["tokens"] == CHUNKS and not any(d["done"] for d in ticks[:-1])
    assert [d["tokens"] for d in slow] == [d["tokens"] for d in fast]  # paced by tokens, not the clock
    assert [d["tokens"] for d in fast] == [50, 100, 150, 200, 250, 300, 300]  # notes' cap 700: a step of 50

    # The researcher card's live counter follows them up, and the reply's end clears it.
    events = [
        Event(type="model_progress", run_id="r", seq=n, researcher_id="web-1", data=d) for n, d in enumerate(fast, 1)
    ]
    shown = [fold(events[:n]).researchers["web-1"].model_tokens for n in range(1, len(events) + 1)]
    assert shown == [50, 100, 150, 200, 250, 300, 0]


def test_a_writer_reply_steps_by_a_share_of_its_cap() -> None:
    sent: list[int] = []
    progress = Progress(StepContext("write"), "m", cap=2000)
    progress._flush = lambda now, *, done=False: sent.append(progress.tokens)  # type: ignore[method-assign]
    for _ in range(2000):
        progress.chunk("w")
    progress.end()
    assert sent == [125 * n for n in range(1, PROGRESS_EVENTS + 1)] + [2000]


def test_a_reply_far_past_its_cap_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(model_stream, "emit", lambda data, **_where: sent.append(data.model_dump()))
    progress = Progress(StepContext("notes", "web-1"), "m", cap=100)  # a server that ignores max_tokens
    for _ in range(100_000):
        progress.chunk("w")
    progress.end()
    ticks = [d for d in sent if "tokens" in d]
    assert len(ticks) <= PROGRESS_EVENTS + 12  # doubling past the cap's steps: log2(100_000 / 800) more
    assert ticks[-1]["done"] and ticks[-1]["tokens"] == 100_000
