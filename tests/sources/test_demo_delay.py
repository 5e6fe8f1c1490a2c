"""Settings.demo_delay paces library searches (for live demos and the browser tests)."""

from __future__ import annotations

import time

from research.settings import Settings
from research.sources.provider_base import Retrieval
from research.sources.router import SourceRouter


class _Library:
    name, kind = "library", "web"

    def search(self, query: str, *, limit: int) -> Retrieval:
        return Retrieval(providers_used=[self.name])


def _timed_retrieve(settings: Settings) -> float:
    router = SourceRouter(settings, lambda kind: _Library(), providers=lambda kind, s: [])
    started = time.monotonic()
    result = router.retrieve("web", "q", 1)
    assert result.providers_used == ["library"]
    return time.monotonic() - started


def test_library_searches_wait_the_demo_delay(tmp_path):
    assert _timed_retrieve(Settings(data_dir=tmp_path, sources="library", demo_delay=0.3)) >= 0.3
    assert _timed_retrieve(Settings(data_dir=tmp_path, sources="library")) < 0.1


def test_the_library_fallback_is_paced_too(tmp_path):
    assert _timed_retrieve(Settings(data_dir=tmp_path, sources="auto", demo_delay=0.3)) >= 0.3
