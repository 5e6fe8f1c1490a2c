"""What a presenter and an analyst see: a stored run replayed panel by panel, its exports, the
Compare page, and the app's own layout even on the very first load of a page URL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from research.api import replay_offsets
from tests.browser.clocked_streamlit import FileClock
from tests.browser.conftest import screenshot
from tests.streamlit_server import offline_env, streamlit_server
from tests.ui.stored_runs import TOPIC, offline_runner, real_runs
from ui.comparison_store import ComparisonStore

pytestmark = pytest.mark.browser


CLOCKED = Path(__file__).with_name("clocked_streamlit.py")


@pytest.fixture
def clocked_app(app_data_dir: Path, tmp_path: Path):
    """The app on the stored runs with a replay clock the test moves (tests/browser/clocked_streamlit.py)."""
    clock = FileClock(tmp_path / "clock", 1_000_000.0)
    env = offline_env(app_data_dir, RESEARCH_TEST_CLOCK_FILE=str(clock.path))
    with streamlit_server(env, tmp_path / "streamlit.log", launcher=CLOCKED) as url:
        yield url, clock


def _click_until_shown(button, target, text: str, attempts: int = 6) -> None:
    """Click until `target` shows `text`: a click that lands while the replay's fragment re-renders
    is lost (seen in CI: still "playing" 120 s after the click, on a stopped clock)."""
    for _ in range(attempts):
        if button.is_visible():
            button.click()
        try:
            expect(target).to_contain_text(text, timeout=20_000)
            return
        except AssertionError:
            continue
    expect(target).to_contain_text(text)


def test_a_stored_run_replays_panel_by_panel_with_pause(page, clocked_app, app_data_dir):
    app_url, clock = clocked_app
    (run_id,) = real_runs(app_data_dir, ["210"], demo_delay=0.5)  # researchers take a while: a moment to stop at
    events = offline_runner(app_data_dir).store.events(run_id)
    offsets = replay_offsets(events, 1.0)
    started = next(i for i, e in enumerate(events) if e.type == "researcher_started")
    finished = next(i for i, e in enumerate(events) if e.type == "researcher_finished")
    assert offsets[finished] > offsets[started], "the stored run must have a researcher at work to stop at"
    page.goto(f"{app_url}/?run={run_id}")
    expect(page.locator(".st-key-run-header")).to_contain_text("Finished")
    expect(page.get_by_role("combobox", name="Replay speed")).to_have_value("1x")
    page.get_by_role("button", name="Replay", exact=True).click()

    progress = page.locator(".st-key-replay-progress")
    expect(progress).to_contain_text("playing at 1x")
    # The panels fill as they did live: a researcher at work, no verdict and no draft yet.
    start = clock.now
    clock.set(start + (offsets[started] + offsets[finished]) / 2)
    card = page.locator(".st-key-researcher-card-web-1")
    expect(card).to_contain_text("running")
    expect(page.locator(".st-key-run-header")).to_contain_text("Running")
    assert page.locator("[class*=st-key-draft-body-]").count() == 0
    _click_until_shown(page.get_by_role("button", name="Pause"), progress, "paused")
    held = progress.inner_text()
    clock.set(clock.now + offsets[-1] + 5)  # time passes while paused: nothing moves
    page.wait_for_timeout(1200)
    assert progress.inner_text() == held and page.locator(".st-key-critique-round-1").count() == 0
    screenshot(page, "browser-07-replay-paused")

    page.get_by_role("button", name="Resume").click()
    expect(progress).to_contain_text("playing at 1x")
    clock.set(clock.now + offsets[-1] + 5)
    expect(progress).to_contain_text("done")
    expect(card).to_contain_text("done")
    expect(page.locator(".st-key-critique-round-1")).to_contain_text(re.compile("APPROVED|NEEDS_IMPROVEMENT"))
    expect(page.locator(f".st-key-draft-body-{run_id}")).to_contain_text("Sources")
    expect(page.locator(".st-key-run-header")).to_contain_text("Finished")
    screenshot(page, "browser-08-replay-done")

    # Back to the stored run: its exports download under safe names.
    page.get_by_role("button", name="Stop replay").click()
    export = page.locator(f".st-key-export-{run_id}")
    expect(export).to_be_visible()
    with page.expect_download() as download_info:
        export.get_by_role("button", name="Download DOCX").click()
    download = download_info.value
    assert download.suggested_filename == "how-do-mrna-vaccines-work.docx"
    assert Path(download.path()).read_bytes()[:2] == b"PK"
    screenshot(page, "browser-09-revise-export")


def test_the_compare_page_reads_like_an_analysts_summary(page, app_url, app_data_dir):
    run_ids = real_runs(app_data_dir, ["210", "111", "003"])
    comparison = ComparisonStore(app_data_dir).save(TOPIC, run_ids)
    page.goto(f"{app_url}/compare?comparison={comparison.id}")
    expect(page.get_by_role("heading", name="Compare allocations", level=1)).to_be_visible()
    summary = page.locator(".st-key-compare-summary")
    expect(summary).to_contain_text("111: most sources")
    expect(summary).to_contain_text(re.compile(r"003: .*4 sources, not approved after 2 rounds, 1 gap left"))
    for run_id in run_ids:
        expect(page.locator(f".st-key-compare-card-{run_id}")).to_be_visible()
    expect(page.locator("[data-testid=stPlotlyChart]")).to_have_count(6)
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    page.wait_for_timeout(800)
    assert page.locator("[data-testid=stException]").count() == 0
    screenshot(page, "browser-10-compare")

    page.get_by_text("Set up a comparison").click()
    expect(page.get_by_role("button", name="Run comparison")).to_be_visible()
    screenshot(page, "browser-11-compare-setup")


@pytest.fixture
def fresh_server(tmp_path: Path):
    """A server that has served nothing yet: the first request is what this test is about."""
    with streamlit_server(offline_env(tmp_path / "data")) as url:
        yield url


def test_the_first_load_of_a_page_url_shows_the_app_not_the_pages_folder(browser, fresh_server):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{fresh_server}/history", wait_until="commit")
        # While the page loads, Streamlit's own listing of pages/ must never show up.
        for _ in range(15):
            assert page.locator("[data-testid=stSidebarNav]").count() == 0
            page.wait_for_timeout(100)
        expect(page.get_by_role("heading", name="History", level=1)).to_be_visible()
        sidebar = page.locator("[data-testid=stSidebar]")
        expect(sidebar.get_by_role("link", name="Compare")).to_be_visible()
        expect(sidebar.get_by_role("link", name="History")).to_be_visible()
        assert page.locator("[data-testid=stSidebarNav]").count() == 0
        width = page.evaluate("() => document.querySelector('[data-testid=stMainBlockContainer]').offsetWidth")
        assert width > 1000  # the app's wide layout, not a bare page script's narrow default
        screenshot(page, "browser-12-first-load-history")
        sidebar.get_by_role("link", name="Compare").click()
        expect(page.get_by_role("heading", name="Compare allocations", level=1)).to_be_visible()
        assert page.url.endswith("/compare")
    finally:
        context.close()
