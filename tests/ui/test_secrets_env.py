"""Streamlit secrets become the environment names Settings reads; the environment wins."""

from __future__ import annotations

import os

from research.api import Settings
from tests.ui.conftest import plain
from ui.secrets_env import secrets_to_env


def test_known_keys_and_the_research_section_are_mapped(monkeypatch):
    environ: dict[str, str] = {"RESEARCH_SOURCES": "library"}
    names = secrets_to_env(
        {
            "OPENAI_API_KEY": "sk-from-secrets",
            "unrelated": "ignored",
            "research": {"sources": "live", "max_iterations": 4, "allow_private_urls": True},
            "RESEARCH_MODEL": "gpt-x",
        },
        environ,
    )
    assert environ == {
        "RESEARCH_SOURCES": "library",  # already set: the environment wins
        "OPENAI_API_KEY": "sk-from-secrets",
        "RESEARCH_MAX_ITERATIONS": "4",
        "RESEARCH_ALLOW_PRIVATE_URLS": "true",
        "RESEARCH_MODEL": "gpt-x",
    }
    assert sorted(names) == [
        "OPENAI_API_KEY",
        "RESEARCH_ALLOW_PRIVATE_URLS",
        "RESEARCH_MAX_ITERATIONS",
        "RESEARCH_MODEL",
    ]
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.openai_api_key.get_secret_value() == "sk-from-secrets"
    assert (settings.max_iterations, settings.sources, settings.model) == (4, "library", "gpt-x")


def test_secrets_file_reaches_the_app_settings(make_app):
    at = make_app()
    at.secrets["research"] = {"max_iterations": 4}
    try:
        at.run()
    finally:
        os.environ.pop("RESEARCH_MAX_ITERATIONS", None)  # the app exported it for the process
    sidebar = "\n".join(m.value for m in at.sidebar.markdown)
    assert "**Revision cap:** 4 rounds" in sidebar


def test_the_sidebar_says_runs_execute_on_the_server_in_remote_mode(make_app, monkeypatch):
    monkeypatch.setenv("RESEARCH_SERVER_URL", "http://127.0.0.1:9")  # never asked: the page only says where
    at = make_app().run()
    sidebar = [plain(m.value) for m in at.sidebar.markdown]
    assert any("Runs on: the LangGraph server at http://127.0.0.1:9" in line for line in sidebar), sidebar
    assert not at.exception
