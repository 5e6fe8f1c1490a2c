"""A whole run as a user starts it: `python -m research TOPIC --llm openai --json` in a subprocess,
configured only through the documented environment variables, against loopback fakes of every
service and of an OpenAI-compatible model server. The run must use every enabled provider, cite
only its own sources, count the model calls the server saw, and leak neither key anywhere.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

from research.drafts.citations import CITATION, SOURCES_HEADING
from tests.environment import clean_environ
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.replies import PAGE_PHRASE
from tests.integration.runs import OPENAI_KEY, TAVILY_KEY, TOPIC, files_containing
from tests.integration.services import LIVE_PROVIDERS, ServiceFakes
from tests.research_cli import research_cli

REPO_ROOT = Path(__file__).resolve().parents[2]
NETWORK_GUARD = Path(__file__).resolve().parent / "netguard"  # its sitecustomize refuses non-loopback
PROXY_VARIABLES = re.compile(r"(?i)^(http|https|all|no)_proxy$")


def run_environment(tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer) -> dict[str, str]:
    env = {k: v for k, v in clean_environ().items() if not PROXY_VARIABLES.match(k)}
    env.update(
        PYTHONPATH=os.pathsep.join([str(NETWORK_GUARD), str(REPO_ROOT)]),
        NO_PROXY="127.0.0.1,localhost",
        OPENAI_BASE_URL=model.base_url,
        OPENAI_API_KEY=OPENAI_KEY,
        TAVILY_API_KEY=TAVILY_KEY,
        RESEARCH_SOURCES="live",
        RESEARCH_ALLOW_PRIVATE_URLS="1",  # the scraped pages are on the fake, at 127.0.0.1
        RESEARCH_RATE_LIMITS="off",  # no arXiv 3 s spacing against a fake
        RESEARCH_HTTP_TIMEOUT="2",
        RESEARCH_LLM_TIMEOUT="10",
        RESEARCH_DATA_DIR=str(tmp_path / "data"),
        RESEARCH_LOG_DIR=str(tmp_path / "logs"),
        **services.environ(),  # RESEARCH_TAVILY_URL, RESEARCH_ARXIV_URL, RESEARCH_OPENALEX_URL, ...
    )
    return env


def test_a_whole_live_run_through_the_cli(tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer) -> None:
    env = run_environment(tmp_path, services, model)
    documented = {
        "RESEARCH_TAVILY_URL",
        "RESEARCH_ARXIV_URL",
        "RESEARCH_OPENALEX_URL",
        "RESEARCH_OPENLIBRARY_URL",
        "RESEARCH_WIKIPEDIA_URL",
    }
    assert documented <= set(env)
    proc = research_cli(TOPIC, "--llm", "openai", "--json", env=env, cwd=tmp_path, timeout=90)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["status"] == "finished"

    # Every enabled provider supplied sources, each through its own fake; none of them failed.
    providers = {s["provider"] for s in result["sources"]}
    assert providers == set(LIVE_PROVIDERS), providers
    for name in LIVE_PROVIDERS:
        assert services.requests_of(name), f"{name} was never asked"
    assert not [w for w in result["warnings"] if w["source"] in LIVE_PROVIDERS], result["warnings"]
    tavily_auth = {r.headers.get("Authorization") for r in services.requests_of("tavily")}
    assert tavily_auth == {f"Bearer {TAVILY_KEY}"}  # the key from the environment was really used

    # The scraper fetched the pages Tavily pointed at, and their text is in the run's source store.
    assert services.page_requests()
    with sqlite3.connect(tmp_path / "data" / "runs.sqlite") as db:
        texts = [row[0] for row in db.execute("SELECT text FROM source_texts WHERE run_id = ?", (result["run_id"],))]
    assert any(PAGE_PHRASE in text for text in texts)

    # Every citation resolves to a source of this run.
    source_ids = {s["id"] for s in result["sources"]}
    body = result["draft"].split(SOURCES_HEADING)[0]
    markers = {m.group(1) for m in CITATION.finditer(body)}
    assert markers and markers <= set(result["citations"])
    assert set(result["citations"].values()) <= source_ids

    # The model usage the run reports is what the model server saw.
    assert result["usage"]["calls"] > 0
    assert result["usage"]["calls"] == model.stats.calls
    assert result["usage"]["prompt_tokens"] == model.stats.prompt_tokens
    assert result["usage"]["completion_tokens"] == model.stats.completion_tokens

    # Neither key anywhere: output, progress lines, the log, the run store, the checkpoints.
    data, logs = tmp_path / "data", tmp_path / "logs"
    assert (logs / "multiagent.log").stat().st_size > 0
    assert (data / "runs.sqlite").exists() and (data / "checkpoints.sqlite").exists()
    for secret in (OPENAI_KEY, TAVILY_KEY):
        assert secret not in proc.stdout and secret not in proc.stderr
        assert files_containing(secret, data, logs) == []
