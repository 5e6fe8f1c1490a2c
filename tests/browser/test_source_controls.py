"""Source controls and reliability as a person uses them: set in the Run options, shown as the
run's limits, applied to what the researchers keep (each drop with its rule), and the Sources
table's reliability filter (a real run, a real browser)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from research.runs.store import RunStore
from research.schemas.source_quality import SourceControls
from tests.browser.conftest import RUN_TIMEOUT_MS, screenshot
from tests.browser.research_form import fill_research_form

pytestmark = pytest.mark.browser


def test_source_controls_apply_to_a_run_and_the_table_filters_by_reliability(page, app_url, app_data_dir: Path):
    page.goto(app_url)
    fill_research_form(page, "How did Impressionism change painting?", "011")
    page.get_by_text("Run options", exact=True).click()
    year_from = page.get_by_role("spinbutton", name="Year from")
    year_from.fill("2010")
    year_from.press("Enter")
    never = page.get_by_role("textbox", name="Never from")
    never.fill("medium.com")
    never.press("Enter")
    page.get_by_text("Peer-reviewed only", exact=True).click()
    expect(
        page.get_by_text(re.compile("This run keeps: years 2010–…; never from medium.com; peer-reviewed"))
    ).to_be_visible()
    screenshot(page, "browser-source-controls")
    page.get_by_role("button", name="Run research").click()

    expect(page.locator(".st-key-run-header")).to_contain_text("Finished", timeout=RUN_TIMEOUT_MS)
    run_id = re.search(r"\?run=([0-9a-f]{12})", page.url).group(1)  # type: ignore[union-attr]
    [started] = [e for e in RunStore(app_data_dir / "runs.sqlite").events(run_id) if e.type == "run_started"]
    assert started.data.source_controls == SourceControls(
        year_from=2010, exclude_domains=("medium.com",), peer_reviewed_only=True
    )
    # The book researcher's card says what the years dropped, and why.
    card = page.locator(".st-key-researcher-card-book-1")
    card.get_by_text(re.compile(r"dropped \(.*outside the years")).click()
    expect(card.get_by_text("published 1998, before 2010", exact=False).first).to_be_visible()  # one per query

    count = page.get_by_text(re.compile(r"\d+ of \d+ sources"))
    before = count.inner_text()
    page.get_by_role("button", name="medium", exact=True).click()  # leave only high, low, unrated
    expect(count).not_to_have_text(before)
    expect(page.get_by_text("Reliability starts at 0.50", exact=False)).to_be_visible()
    screenshot(page, "browser-source-reliability")
