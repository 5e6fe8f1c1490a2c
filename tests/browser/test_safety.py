"""Hostile text from sources and topics is shown as text in a real browser, never executed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot
from tests.ui.canned import HOSTILE_SNIPPET, HOSTILE_TITLE, store_canned_run

pytestmark = pytest.mark.browser


def test_html_in_topic_titles_and_snippets_stays_text(page, app_url, app_data_dir):
    topic = "<img src=x onerror=alert('topic')> Impressionism <b>bold</b>"
    run_id = store_canned_run(app_data_dir, topic)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{app_url}/?run={run_id}")
    heading = page.locator("h3").filter(has_text="Impressionism")
    expect(heading).to_have_text(topic)
    expect(page.locator("[data-testid=stDataFrame]").first).to_be_visible()
    page.get_by_text("Transcript", exact=True).click()  # worker notes quote snippets and titles
    expect(page.get_by_text(f"{HOSTILE_SNIPPET} ({HOSTILE_TITLE})", exact=True)).to_be_visible()
    page.wait_for_timeout(1000)
    assert page.locator("img[src=x]").count() == 0
    assert page.locator("[data-testid=stMain] b").filter(has_text="bold").count() == 0
    assert page.locator("[data-testid=stMain] b").filter(has_text="Bold claim").count() == 0
    assert not dialogs
    screenshot(page, "browser-06-hostile-text")
