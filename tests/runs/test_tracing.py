"""LangSmith tracing: off unless switched on; when on, the run's trace goes to the configured
endpoint named by run id and node, with configured secrets and page text kept out of it (checked
on what a loopback endpoint receives)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from langsmith.utils import get_env_var

from research.runs import tracing
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.fakes.langsmith_endpoint import FakeLangSmith
from tests.settings_presets import library_settings

SECRET = "tvly-trace-SECRET-0042"
LS_KEY = "lsv2_pt_trace_KEY_0099"
TOPIC = "How do mRNA vaccines work?"


@pytest.fixture(autouse=True)
def _fresh_langsmith_env() -> Iterator[None]:
    """langsmith caches the environment it read first: each test reads its own."""
    get_env_var.cache_clear()
    yield
    tracing.forget_clients()
    get_env_var.cache_clear()


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLangSmith]:
    with FakeLangSmith() as fake:
        monkeypatch.setenv("LANGSMITH_TRACING", "true")
        monkeypatch.setenv("LANGSMITH_ENDPOINT", fake.address)
        monkeypatch.setenv("LANGSMITH_API_KEY", LS_KEY)
        monkeypatch.setenv("LANGSMITH_PROJECT", "desk-trace-test")
        tracing.forget_clients()
        yield fake
        tracing.flush_traces()
        tracing.forget_clients()


def _received(fake: FakeLangSmith, needle: str, timeout: float = 60.0) -> str:
    """Flush, then poll until `needle` has arrived (the client sends from a background thread)."""
    deadline = time.monotonic() + timeout
    while True:
        tracing.flush_traces()
        text = fake.text()
        if needle in text or time.monotonic() > deadline:
            return text
        time.sleep(0.1)


def test_a_traced_run_is_named_by_run_id_and_node_and_carries_no_secret_or_page_text(
    endpoint: FakeLangSmith, tmp_path
) -> None:
    settings = library_settings(tmp_path / "data", tmp_path / "logs", llm="offline", tavily_api_key=SECRET)
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic=f"{TOPIC} (key {SECRET})", allocation="111"))
    assert runner.store.get_run(run_id).status == "finished"

    text = _received(endpoint, "writer")
    assert f"research-run {run_id}" in text and "desk-trace-test" in text
    for node in ("supervisor", "researcher", "analyst", "writer"):
        assert node in text, node
    assert any(r.headers.get("X-API-Key") == LS_KEY or r.headers.get("x-api-key") == LS_KEY for r in endpoint.received)
    assert SECRET not in text and LS_KEY not in text

    # The run's page text (what the library gave the researcher) never leaves in a trace.
    texts = [runner.store.get_text(run_id, sid) for sid in _source_ids(runner, run_id)]
    # Every sentence-sized stretch of every page: none may appear in what was sent.
    passages = [t[i : i + 80] for t in texts if t for i in range(0, max(0, len(t) - 80), 400)]
    assert passages, "the run must have stored page text to check"
    assert not [p for p in passages if p in text]


def _source_ids(runner: ResearchRunner, run_id: str) -> list[str]:
    from research.runs.view import fold

    return list(fold(runner.store.events(run_id)).sources)


def test_without_the_switch_nothing_is_sent(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    with FakeLangSmith() as fake:
        monkeypatch.delenv("LANGSMITH_TRACING", raising=False)
        monkeypatch.setenv("LANGSMITH_ENDPOINT", fake.address)
        tracing.forget_clients()
        assert "callbacks" not in tracing.run_trace_config("r1")
        settings = Settings(_env_file=None, data_dir=tmp_path / "d", log_dir=tmp_path / "l", sources="library")
        ResearchRunner(settings).run(ResearchRequest(topic=TOPIC, allocation="100"))
        tracing.flush_traces()
        assert fake.received == []


def test_the_mask_hides_text_keys_secrets_and_long_strings() -> None:
    masked = tracing.mask_trace(
        {
            "topic": f"heat pumps {SECRET}",
            "messages": [{"content": "page text"}],
            "sources": [{"id": "s1", "snippet": "a passage", "title": "T"}],
            "long": "x" * 500,
            "n": 3,
        },
        [SECRET],
    )
    assert masked == {
        "topic": "heat pumps [secret]",
        "messages": "[hidden]",
        "sources": [{"id": "s1", "snippet": "[hidden]", "title": "T"}],
        "long": "[hidden: 500 chars]",
        "n": 3,
    }
