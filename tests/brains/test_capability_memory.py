"""The structured-output method a server + model needs is remembered for the user (the cache dir),
keyed by the server's scheme, host, port and path and the model, never by credentials: a fresh
data dir pays no failed attempts again, and nothing secret reaches the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from research.brains.llm.capabilities import FILE_NAME, cache_dir, server_id, server_label
from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.structured import forget_methods
from research.schemas.state_shapes import ResearcherTask
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer

TASK = ResearcherTask(researcher_id="web-1", kind="web", question="How do heat pumps work?", topic="heat pumps")
VALID = {"queries": ["heat pump cycle", "heat pump efficiency"]}
KEY = "sk-cache-SECRET-42"


def settings_for(base_url: str, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = dict(
        _env_file=None, openai_base_url=base_url, openai_api_key=KEY, model="local-model", llm_timeout=5
    )
    values.update(overrides, data_dir=data_dir)
    return Settings(**values)


def test_the_cache_dir_follows_xdg_and_falls_back_to_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "research-desk"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "research-desk"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # the spec says: ignore a relative one
    assert cache_dir() == tmp_path / "home" / ".cache" / "research-desk"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
        ("HTTPS://API.Example.ORG/v1", "https://api.example.org:443/v1"),
        (
            "https://user:sk-in-userinfo@proxy.example.org/v1?api-key=sk-in-query#frag",
            "https://proxy.example.org:443/v1",
        ),
        ("http://[::1]:11434/v1", "http://[::1]:11434/v1"),
    ],
)
def test_servers_are_keyed_by_scheme_host_port_and_path_only(url: str, expected: str) -> None:
    assert server_id(url) == expected
    assert server_label(url, "m") == f"{expected}|m"


def test_a_fresh_data_dir_pays_no_failed_attempts_again(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: VALID) as server:
        server.like_llama_cpp = True  # json_schema answered with HTTP 500, JSON mode accepted
        LLMBrain(settings_for(server.base_url, tmp_path / "first")).queries(TASK, "web")
        assert [r["response_format"]["type"] for r in server.requests] == ["json_schema", "json_object"]
        forget_methods()  # a new process
        server.reset()

        LLMBrain(settings_for(server.base_url, tmp_path / "second-data-dir")).queries(TASK, "web")
        assert [r["response_format"]["type"] for r in server.requests] == ["json_object"]


def test_credentials_in_the_base_url_or_the_key_never_reach_the_file(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: VALID) as server:
        server.like_llama_cpp = True
        with_userinfo = server.base_url.replace("http://", "http://ada:sk-userinfo-SECRET@")
        LLMBrain(settings_for(with_userinfo, tmp_path / "data")).queries(TASK, "web")
        text = (cache_dir() / FILE_NAME).read_text()
        assert f"{server.base_url}|local-model" in text
        assert "sk-userinfo-SECRET" not in text and "ada" not in text and KEY not in text

        forget_methods()
        server.reset()  # the same server without the userinfo is the same server
        LLMBrain(settings_for(server.base_url, tmp_path / "data")).queries(TASK, "web")
        assert [r["response_format"]["type"] for r in server.requests] == ["json_object"]
