"""What a person sees during a long model call: the researcher card says "writing notes,
N tokens" while the model streams, and the draft panel shows the draft as the writer writes it.
The model is the loopback OpenAI-compatible fake, streaming slowly like a local model."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import RUN_TIMEOUT_MS, _require_browser, screenshot
from tests.browser.research_form import fill_research_form
from tests.fakes.openai_server import FakeOpenAIServer
from tests.streamlit_server import offline_env, streamlit_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def slow_model_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    _require_browser()
    data_dir: Path = tmp_path_factory.mktemp("slow-model")
    with FakeOpenAIServer(stream_chunk_chars=8) as model:
        model.chunk_delay = 0.12  # about 65 characters a second: a small local model on a busy CPU
        env = offline_env(
            data_dir,
            RESEARCH_OPENAI_BASE_URL=model.base_url,
            RESEARCH_MODEL="slow-local",
            RESEARCH_LLM_CONCURRENCY="2",
            RESEARCH_MAX_ITERATIONS="0",
        )
        env["RESEARCH_LLM"] = "openai"  # the offline env, with the model brain on the slow fake
        with streamlit_server(env, data_dir / "streamlit.log") as url:
            yield url


def test_a_long_model_call_shows_live_progress_on_the_card_and_the_draft(page, slow_model_app):
    page.goto(slow_model_app)
    fill_research_form(page, "How do mRNA vaccines work?", "100")
    page.get_by_role("button", name="Run research").click()

    card = page.locator(".st-key-researcher-card-web-1")
    expect(card).to_contain_text(re.compile(r"writing notes, \d+ tokens"), timeout=RUN_TIMEOUT_MS)
    screenshot(page, "browser-model-progress-card")

    preview = page.locator("[class*=st-key-draft-preview-]")
    expect(preview).to_be_visible(timeout=RUN_TIMEOUT_MS)
    expect(page.get_by_text(re.compile(r"The writer is writing… \d+ tokens? so far"))).to_be_visible()
    screenshot(page, "browser-model-progress-draft")

    expect(page.locator(".st-key-run-header")).to_contain_text("Finished", timeout=RUN_TIMEOUT_MS)
    expect(page.locator("[class*=st-key-draft-body-]")).to_be_visible()
    expect(preview).to_have_count(0)  # the checked draft replaced the preview
