"""The other pages load in a real browser, without errors, and read as a person expects."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot
from tests.ui.canned import store_canned_run

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("link", "heading", "expected"),
    [
        ("History", "History", "Canned topic for history"),
        ("Library", "Library", "Add documents"),
        ("Settings", "Settings", "Data directory"),
    ],
)
def test_page_renders_without_errors(page, app_url, app_data_dir, link, heading, expected):
    store_canned_run(app_data_dir, "Canned topic for history")
    page.goto(app_url)
    # Wait for the app's own navigation (Streamlit lists the pages/ folder until the first run).
    expect(page.get_by_role("heading", name="Research Desk")).to_be_visible()
    page.get_by_role("link", name=link).click()
    expect(page.get_by_role("heading", name=heading, level=1)).to_be_visible()
    if link == "Settings":
        expect(page.locator("[data-testid=stDataFrame]").nth(1)).to_be_visible()
    else:
        expect(page.get_by_text(expected).first).to_be_attached()
    page.wait_for_timeout(800)
    assert page.locator("[data-testid=stException]").count() == 0
    screenshot(page, f"browser-page-{link.lower()}")
