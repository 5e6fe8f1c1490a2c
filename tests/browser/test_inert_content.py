"""A run whose sources carry remote images, iframes and directives loads nothing in a real browser:
a tracking server on loopback receives no request."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.library.library_store import Library
from tests.browser.conftest import screenshot
from tests.security.commonmark_forms import hostile_draft
from tests.security.tracking import hostile_document, tracking_server

pytestmark = pytest.mark.browser


def test_a_tracking_pixel_in_a_source_never_loads(page, app_url, app_data_dir):
    with tracking_server() as (base, hits):
        settings = Settings(
            _env_file=None, data_dir=app_data_dir, log_dir=app_data_dir / "logs", sources="library", llm="offline"
        )
        library = Library(settings.library_db)
        library.ensure_sample()
        title, text = hostile_document(base)
        library.add_document(title=title, text=text, kind="web", url="library://test/tracker")
        runner = ResearchRunner(settings, library=library)
        run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="100"))
        # As if a model had copied the markup into the draft: the saved version carries it raw.
        runner.store.save_draft_version(
            run_id,
            f'# Draft\n\nA pixel ![t]({base}/track.png) and <img src="{base}/raw.png"> '
            f":red[directive] [link]({base}/link).\n",
            note="hostile edit",
        )
        page.goto(f"{app_url}/?run={run_id}")
        expect(page.locator("[data-testid=stDataFrame]").first).to_be_visible()
        expect(page.get_by_text("directive", exact=False).first).to_be_visible()
        page.get_by_text("Transcript", exact=True).click()
        page.wait_for_timeout(2500)
        screenshot(page, "browser-13-inert-content")
        assert hits == [], f"the browser fetched {hits}"
        main = page.locator("[data-testid=stMain]")
        assert main.locator(f"img[src^='{base}']").count() == 0
        assert main.locator(f"iframe[src^='{base}']").count() == 0
        assert (
            main.locator("[data-testid=stMarkdownContainer] span[style*='color']").filter(has_text="directive").count()
            == 0
        )


def test_every_commonmark_image_form_and_a_data_link_stay_text_in_a_real_browser(page, app_url, app_data_dir):
    """The five image forms a regex missed (nested brackets, a newline before the destination, a
    reference definition in a blockquote or a list item, an escaped `]`) and a `data:` link with
    brackets in its text: Chromium renders the draft and the tracker receives nothing."""
    with tracking_server() as (base, hits):
        settings = Settings(
            _env_file=None, data_dir=app_data_dir, log_dir=app_data_dir / "logs", sources="library", llm="offline"
        )
        runner = ResearchRunner(settings)
        run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="100"))
        runner.store.save_draft_version(run_id, hostile_draft(base) + "\nEnd of the hostile draft.\n", note="hostile")
        page.goto(f"{app_url}/?run={run_id}")
        expect(page.get_by_text("End of the hostile draft.", exact=False).first).to_be_visible()
        expect(page.get_by_text("a [b] c", exact=False).first).to_be_visible()  # the alt text
        page.wait_for_timeout(2500)
        screenshot(page, "browser-21-commonmark-forms")
        assert hits == [], f"the browser fetched {hits}"
        main = page.locator("[data-testid=stMain]")
        assert main.locator(f"img[src^='{base}']").count() == 0
        assert main.locator("a[href^='data:'], a[href^='javascript:']").count() == 0
