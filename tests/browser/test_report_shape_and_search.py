"""What a person sees of report shapes and source search, in a real browser: a brief with a target
length, the shape named over its draft; a search over the Sources table that narrows it and
highlights the passage; a claim's link to its passage; the shape chosen in Run options becomes the
run's (the same choice through AppTest: tests/ui/test_report_shape_page.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from research.report_shape import ReportShape
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.browser.conftest import RUN_TIMEOUT_MS, screenshot
from tests.browser.research_form import fill_research_form

pytestmark = pytest.mark.browser


def _brief_run(data_dir: Path) -> str:
    settings = Settings(_env_file=None, data_dir=data_dir, log_dir=data_dir / "logs", sources="library", llm="offline")
    request = ResearchRequest(
        topic="How do mRNA vaccines work?", allocation="110", report_shape=ReportShape(shape="brief", target_words=150)
    )
    return ResearchRunner(settings).run(request)


def test_a_brief_then_search_and_a_claims_passage(page, app_url, app_data_dir):
    page.goto(f"{app_url}/?run={_brief_run(app_data_dir)}")
    expect(page.get_by_text("Report shape: Brief, about 150 words", exact=False)).to_be_visible()
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


def test_the_shape_chosen_in_run_options_is_the_runs(page, app_url):
    page.goto(app_url)
    fill_research_form(page, "How do mRNA vaccines work?", "110")
    page.get_by_text("Run options", exact=True).click()
    shape = page.locator(".st-key-opt-report-shape")
    brief = shape.get_by_role("radio", name="Brief")
    # One click, as a person would; on a busy machine a click that lands while the page is still
    # redrawing the form (the allocation's Enter) can be lost, and then a person clicks again.
    for _ in range(5):
        expect(page.locator("[data-testid=stStatusWidget]")).to_have_count(0)  # the page is idle
        shape.get_by_text("Brief", exact=True).click()
        try:
            expect(brief).to_be_checked(timeout=10_000)
            break
        except AssertionError:
            continue
    expect(brief).to_be_checked()
    page.get_by_role("button", name="Run research").click()
    expect(page.get_by_text("Report shape: Brief", exact=False)).to_be_visible(timeout=RUN_TIMEOUT_MS)
    expect(page.locator("[data-testid=stMain]").get_by_role("heading", name="Key points")).to_be_visible()
    screenshot(page, "browser-report-shape-chosen")
