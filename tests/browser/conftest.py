"""Browser fixtures: `streamlit run` on a free loopback port, driven by Debian's Chromium.

Outside CI the tests skip, with a message, when /usr/bin/chromium is missing; in CI (CI=true)
a missing browser fails them. Playwright's own browser download is never used.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.streamlit_server import ROOT, offline_env, streamlit_server

CHROMIUM = Path(os.environ.get("RESEARCH_TEST_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEMO_DELAY = "2.0"  # seconds per library search: long enough to watch the panels fill
# Playwright's `expect` polls for what a person would see; its 5 s default is luck on a busy machine.
# These are ceilings, not delays: a passing wait returns as soon as the page shows the state. With every
# core busy (make test-busy, or other work beside it) a cold Streamlit session's first page took over 30 s.
EXPECT_TIMEOUT_MS = 120_000
# How long a whole offline run may take to finish in the browser.
RUN_TIMEOUT_MS = 300_000


@pytest.fixture(autouse=True, scope="session")
def _generous_expect_timeout() -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _require_browser() -> None:
    if CHROMIUM.exists():
        return
    message = f"Chromium not found at {CHROMIUM}: install Debian's chromium package to run the browser tests"
    if _in_ci():
        pytest.fail(message + " (CI=true: browser tests must run in CI)", pytrace=False)
    pytest.skip(message + " (skipped outside CI)")


@pytest.fixture(scope="session")
def app_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser-data")


@pytest.fixture(scope="session")
def app_url(app_data_dir: Path) -> Iterator[str]:
    _require_browser()
    env = offline_env(app_data_dir, RESEARCH_DEMO_DELAY=DEMO_DELAY)
    with streamlit_server(env, app_data_dir / "streamlit.log") as url:
        yield url


@pytest.fixture(scope="session")
def browser(app_url: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(EXPECT_TIMEOUT_MS)
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    """A full-page screenshot in test-artifacts/ (Streamlit scrolls inside its main block, so the
    viewport is stretched to the content first)."""
    ARTIFACTS.mkdir(exist_ok=True)
    height = page.evaluate(
        "() => { const m = document.querySelector('[data-testid=stMain]');"
        " return m ? m.scrollHeight : document.body.scrollHeight }"
    )
    size = page.viewport_size or {"width": 1440, "height": 900}
    page.set_viewport_size({"width": size["width"], "height": max(900, min(int(height) + 40, 9000))})
    page.wait_for_timeout(700)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path
