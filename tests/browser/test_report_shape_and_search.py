"""What a person sees of report shapes and source search, in a real browser: a brief with a
target length chosen in Run options, the shape named over its draft; a search over the Sources
table that narrows it and highlights the passage; a claim's link to its passage."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot
from tests.browser.research_form import fill_research_form

pytestmark = pytest.mark.browser


def test_a_brief_chosen_in_run_options_then_search_and_a_claims_passage(page, app_url):
    page.goto(app_url)
    fill_research_form(page, "How do mRNA vaccines work?", "110")
    page.get_by_text("Run options", exact=True).click()
    page.get_by_role("combobox", name="Report shape").click()
    page.get_by_role("option", name="Brief: a paragraph and bullets").click()
    words = page.get_by_role("spinbutton", name="Target words")
    words.fill("150")
    words.press("Enter")
    screenshot(page, "browser-report-shape-options")
    page.get_by_role("button", name="Run research").click()

    expect(page.get_by_text("Report shape: Brief, about 150 words", exact=False)).to_be_visible(timeout=120_000)
    main = page.locator("[data-testid=stMain]")
    expect(main.get_by_role("heading", name="Key points")).to_be_visible()

    search = page.get_by_role("textbox", name="Search within this run's sources")
    search.fill("lipid nanoparticle")
    search.press("Enter")
    expect(page.get_by_text("sources hold every word", exact=False)).to_be_visible()
    highlight = main.locator("[data-testid=stMarkdownContainer] span", has_text="lipid nanoparticle").first
    expect(highlight).to_be_visible()
    assert main.locator("script").count() == 0
    screenshot(page, "browser-source-search")

    page.get_by_text("The passage behind each citation", exact=False).click()
    page.get_by_role("button", name="Find in sources").first.click()
    expect(search).not_to_have_value("lipid nanoparticle")
    expect(page.get_by_text("sources hold every word", exact=False)).to_be_visible()
    screenshot(page, "browser-claim-passage-link")
