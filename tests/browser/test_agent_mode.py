"""What a person sees of agent mode: tool calls arriving on a researcher card live, and a worker's transcript."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot
from tests.browser.research_form import fill_research_form

pytestmark = pytest.mark.browser


def test_agent_mode_run_shows_tool_calls_live_and_the_worker_transcript(page, app_url):
    page.goto(app_url)
    fill_research_form(page, "Impressionism", "110")
    page.locator(".st-key-researcher_mode").get_by_text("Agent", exact=True).click()
    page.get_by_role("button", name="Run research").click()

    card = page.locator(".st-key-researcher-card-web-1")
    # Live (each library search is paced at 2 s): the first call is on the card before the run ends.
    expect(card).to_contain_text(re.compile(r"1 tool call|2 tool calls"), timeout=30_000)
    expect(page.locator(".st-key-run-header")).to_contain_text("Running")
    expect(card).to_contain_text("search_library query=Impressionism")
    screenshot(page, "agent-01-live-tool-calls")

    expect(page.locator(".st-key-run-header")).to_contain_text("Finished", timeout=120_000)
    expect(card).to_contain_text("done")
    page.get_by_text("Worker transcripts").click()
    transcript = page.get_by_role("tabpanel").first
    # The expander's tabs render after a rerun: on a loaded machine that takes longer than 5 s.
    expect(transcript).to_contain_text("Supervisor Directive: web-1 (web, angle 1", timeout=60_000)
    expect(transcript).to_contain_text("calls search_library query=")
    expect(transcript).to_contain_text("closing note")
    transcript.scroll_into_view_if_needed()
    screenshot(page, "agent-02-worker-transcript")
