"""What a person sees of trust: claim support behind each [n] in the draft panel, the reviewer's
reasons, and the evidence notice of an empty run (real runs, a real browser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from research.brains.base import WriteRequest
from research.brains.offline.offline_brain import OfflineBrain
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.browser


def _run(data_dir: Path, topic: str) -> str:
    settings = Settings(_env_file=None, data_dir=data_dir, log_dir=data_dir / "logs", sources="library", llm="offline")
    return ResearchRunner(settings).run(ResearchRequest(topic=topic, allocation="111"))


def test_the_draft_panel_shows_claim_support(page, app_url, app_data_dir, monkeypatch):
    original = OfflineBrain.write

    def write(self, request: WriteRequest):  # one fabricated claim for the reviewer
        body = original(self, request)
        return body.replace("## Summary\n\n", "## Summary\n\nPenguins brewed the first vaccine on the moon [1]. ", 1)

    monkeypatch.setattr(OfflineBrain, "write", write)
    run_id = _run(app_data_dir, "How do mRNA vaccines work?")
    page.goto(f"{app_url}/?run={run_id}")
    expect(page.get_by_text("Claim check (v2", exact=False)).to_be_visible()
    expect(page.get_by_text("Citation precision: 100%", exact=False)).to_be_visible()
    expect(page.get_by_text("(the writer's v1:", exact=False)).to_be_visible()
    page.get_by_text("Why the reviewer wrote v2", exact=False).click()
    expect(page.get_by_text("Removed an unsupported claim", exact=False)).to_be_visible()
    page.get_by_text("The passage behind each citation", exact=False).click()
    expect(page.locator("[data-testid=stMain] blockquote").first).to_be_visible()
    assert page.get_by_text("Penguins brewed", exact=False).count() >= 1  # named in the reason, not in v2
    screenshot(page, "browser-trust-claims")


def test_an_empty_run_shows_the_evidence_notice(page, app_url, app_data_dir):
    run_id = _run(app_data_dir, "How are bagpipes made?")
    page.goto(f"{app_url}/?run={run_id}")
    expect(page.get_by_text("No relevant evidence.", exact=False)).to_be_visible()
    expect(page.get_by_text("No relevant sources were found for this topic", exact=False)).to_be_visible()
    screenshot(page, "browser-trust-empty")
