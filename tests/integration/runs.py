"""Running one whole research run in-process against the fakes, and reading back what it left.

A fresh CircuitBreaker per run: the process-wide one would carry one test's failed providers into
the next test.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.events import Event
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.health import ProvidersFor
from research.sources.library.library_store import Library, LibraryProvider
from research.sources.router import CircuitBreaker, SourceRouter, live_providers
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.services import ServiceFakes

TOPIC = "How do mRNA vaccines work?"
OPENAI_KEY = "sk-test-SECRET-123"
TAVILY_KEY = "tvly-SECRET-456"


def run_settings(tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer | None, **overrides: Any) -> Settings:
    """Auto sources, every provider on the fakes, the LLM brain on the fake model (offline without one)."""
    values: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "log_dir": tmp_path / "logs",
        "sources": "auto",
        "http_timeout": 1.0,
        "allow_private_urls": True,
        "tavily_api_key": TAVILY_KEY,
        "llm": "openai" if model else "offline",
        "llm_timeout": 5.0,
        **services.settings_fields(),
    }
    if model is not None:
        values.update(openai_base_url=model.base_url, openai_api_key=OPENAI_KEY)
    values.update(overrides)
    return Settings(_env_file=None, **values)


@dataclass
class Outcome:
    runner: ResearchRunner
    run_id: str
    events: list[Event]
    result: dict[str, Any]  # the CLI's --json shape

    @property
    def warnings(self) -> list[dict[str, str]]:
        return self.result["warnings"]

    def warnings_from(self, source: str) -> list[str]:
        return [w["message"] for w in self.warnings if w["source"] == source]

    @property
    def providers(self) -> set[str]:
        return {s["provider"] for s in self.result["sources"]}

    def sources_of(self, provider: str) -> list[dict[str, Any]]:
        return [s for s in self.result["sources"] if s["provider"] == provider]


def run_once(
    settings: Settings, topic: str = TOPIC, *, providers: ProvidersFor = live_providers, **request: Any
) -> Outcome:
    library = Library(settings.library_db)
    router = SourceRouter(
        settings, lambda kind: LibraryProvider(library, kind), providers=providers, breaker=CircuitBreaker()
    )
    runner = ResearchRunner(settings, library=library, sources=router)
    run_id = runner.run(ResearchRequest(topic=topic, **request))
    events = runner.store.events(run_id)
    return Outcome(runner, run_id, events, to_json(fold(events)))


def files_containing(secret: str, *roots: Path) -> list[str]:
    """Every file under `roots` whose raw bytes contain `secret` (SQLite WAL files included)."""
    needle = secret.encode()
    return [
        str(p) for root in roots if root.exists() for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()
    ]
