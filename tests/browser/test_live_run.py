"""What a person sees: a run typed into the page fills every panel live, and edits survive a reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot

pytestmark = pytest.mark.browser

EDITED_LINE = "Reviewed by the desk: the delivery section needs a second source."


def _textbox(page, name: str):
    return page.get_by_role("textbox", name=name, exact=True)


def _start_run(page, app_url: str, topic: str, notation: str) -> None:
    page.goto(app_url)
    _textbox(page, "Research topic").fill(topic)
    _textbox(page, "Allocation").fill(notation)
    _textbox(page, "Allocation").press("Enter")
    expect(page.get_by_text(f"of at most 3 researchers: {notation[0]} web")).to_be_visible()
    # The notation moved the sliders.
    expect(page.get_by_role("slider", name="Web researchers")).to_have_value(notation[0])
    expect(page.get_by_role("slider", name="Book researchers")).to_have_value(notation[2])


def test_a_run_fills_the_panels_live_and_a_saved_edit_survives_reload(page, app_url):
    _start_run(page, app_url, "How do mRNA vaccines work?", "210")
    screenshot(page, "browser-01-inputs")
    page.get_by_role("button", name="Run research").click()

    # Live: a researcher card is on screen while the run is still running.
    card = page.locator(".st-key-researcher-card-web-1")
    expect(card).to_be_visible()
    expect(page.locator(".st-key-pipeline-strip")).to_contain_text("working")
    expect(page.locator(".st-key-run-header")).to_contain_text("Running")
    assert re.search(r"\?run=[0-9a-f]{12}", page.url)
    screenshot(page, "browser-02-live")
    # Touching a widget mid-run must not kill the run.
    page.get_by_role("slider", name="Book researchers").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")

    expect(page.locator(".st-key-run-header")).to_contain_text("Finished")
    expect(card).to_contain_text("done")
    expect(page.locator("[data-testid=stDataFrame]").first).to_be_visible()
    # The grid draws on a canvas; its accessible twin counts the rows (header + sources).
    grid = page.locator("[data-testid=stDataFrame] [aria-rowcount]").first
    expect(grid).to_have_attribute("aria-rowcount", re.compile(r"^(?:[2-9]|[1-9]\d+)$"))
    critique = page.locator(".st-key-critique-round-1")
    expect(critique).to_contain_text(re.compile("APPROVED|NEEDS_IMPROVEMENT"))
    expect(page.locator("[class*=st-key-draft-body-]")).to_contain_text("Sources")
    screenshot(page, "browser-03-finished")

    # Edit the draft and save it as a new version.
    page.get_by_text("Edit draft", exact=True).click()
    editor = _textbox(page, "Draft")
    expect(editor).to_be_visible()
    editor.fill(editor.input_value().replace("## Sources", f"{EDITED_LINE} [99]\n\n## Sources"))
    editor.press("Control+Enter")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("[99] has no entry in the Sources list.")).to_be_visible()
    screenshot(page, "browser-04-editing")

    # A reload re-attaches through the URL and shows the saved version.
    page.reload()
    expect(page.locator(".st-key-run-header")).to_contain_text("Finished")
    expect(page.get_by_role("combobox", name="Version")).to_have_value(re.compile(r"^v2 · Edited"))
    expect(page.locator("[class*=st-key-draft-body-]")).to_contain_text(EDITED_LINE)
    screenshot(page, "browser-05-after-reload")


def test_a_refresh_mid_run_reattaches_to_the_running_run(page, app_url):
    _start_run(page, app_url, "The first Impressionist exhibition", "012")
    page.get_by_role("button", name="Run research").click()
    expect(page.locator(".st-key-researcher-card-book-1")).to_be_visible()
    run_url = page.url
    page.reload()
    assert page.url == run_url
    expect(page.locator(".st-key-researcher-card-book-1")).to_be_visible()
    expect(page.locator(".st-key-run-header")).to_contain_text("Finished")
    expect(page.locator(".st-key-critique-round-1")).to_be_visible()
