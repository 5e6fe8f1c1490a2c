"""What a person sees of agent mode: tool calls arriving on a researcher card live, and a worker's transcript."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, expect

from tests.browser.conftest import RUN_TIMEOUT_MS, screenshot
from tests.browser.research_form import fill_research_form
from tests.streamlit_server import offline_env, streamlit_server

pytestmark = pytest.mark.browser


HELD = Path(__file__).with_name("held_streamlit.py")


@pytest.fixture
def held_app(app_data_dir: Path, tmp_path: Path):
    """The app with library searches the test holds (tests/browser/held_streamlit.py)."""
    hold = tmp_path / "hold-searches"
    env = offline_env(app_data_dir, RESEARCH_TEST_HOLD_FILE=str(hold))
    with streamlit_server(env, tmp_path / "streamlit.log", launcher=HELD) as url:
        yield url, hold


def open_expander(expander: Locator) -> None:
    """Click an expander's summary once the page holds one copy of it. While a rerun redraws the
    panels, the copy from before stays on the page until the rerun ends (a click on two copies
    fails at once, it does not wait), so this waits for one and tries again if a rerun began."""
    for _ in range(20):
        expect(expander).to_have_count(1)
        try:
            expander.locator("summary").click()
            return
        except PlaywrightError as exc:
            if "strict mode violation" not in str(exc):
                raise
    raise AssertionError("the expander was redrawn on every try")


def test_agent_mode_run_shows_tool_calls_live_and_the_worker_transcript(page, held_app):
    app_url, hold = held_app
    hold.touch()  # each researcher's second search waits: the run is live for as long as the test looks
    page.goto(app_url)
    fill_research_form(page, "Impressionism", "110")
    page.locator(".st-key-researcher_mode").get_by_text("Agent", exact=True).click()
    page.get_by_role("button", name="Run research").click()

    card = page.locator(".st-key-researcher-card-web-1")
    # Live: the first call is on the card while the run is still running.
    expect(card).to_contain_text(re.compile(r"1 tool call|2 tool calls"))
    expect(page.locator(".st-key-run-header")).to_contain_text("Running")
    expect(card).to_contain_text("search_library query=Impressionism")
    screenshot(page, "agent-01-live-tool-calls")
    # A transcript opened mid-run stays open while it grows and when the run ends.
    transcript = page.locator(".st-key-worker-transcript-web-1")
    open_expander(transcript)
    expect(transcript.first.get_by_text("Supervisor Directive: web-1 (web, angle 1")).to_be_visible()
    hold.unlink()

    expect(page.locator(".st-key-run-header")).to_contain_text("Finished", timeout=RUN_TIMEOUT_MS)
    # The run's last redraw may show a panel's copy from before it for a moment (a panel above it
    # grew): both copies hold the final state, and the redrawn transcript keeps it open.
    expect(card.first).to_contain_text("done")
    shown = transcript.first
    expect(shown).to_contain_text("calls search_library query=")
    expect(shown.get_by_text("closing note")).to_be_visible()
    expect(transcript).to_have_count(1)
    shown.scroll_into_view_if_needed()
    screenshot(page, "agent-02-worker-transcript")
