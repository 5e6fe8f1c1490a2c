"""The login for shared desks, end to end in Chromium: Streamlit's st.login against
an OIDC issuer running on loopback; the guarded actions need the signed-in user, and a run records
who started it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from research.runs.store import RunStore
from research.runs.view import fold
from tests.browser.conftest import RUN_TIMEOUT_MS, _require_browser, screenshot
from tests.fakes.oidc_issuer import CLIENT_ID, CLIENT_SECRET, oidc_issuer
from tests.streamlit_server import free_port, offline_env, streamlit_server

pytestmark = pytest.mark.browser


@pytest.fixture
def login_desk(tmp_path: Path):
    _require_browser()
    with oidc_issuer() as issuer:
        port = free_port()
        secrets = tmp_path / "secrets.toml"
        secrets.write_text(
            "[auth]\n"
            f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            'cookie_secret = "a-long-random-cookie-secret-for-the-test-only-0123456789"\n'
            f'client_id = "{CLIENT_ID}"\nclient_secret = "{CLIENT_SECRET}"\n'
            f'server_metadata_url = "{issuer.url}/.well-known/openid-configuration"\n'
        )
        env = offline_env(tmp_path / "data")
        with streamlit_server(
            env, tmp_path / "streamlit.log", port=port, extra_args=("--secrets.files", str(secrets))
        ) as url:
            yield url, issuer, tmp_path / "data"


def test_sign_in_with_oidc_then_guarded_actions_and_started_by(page, login_desk) -> None:
    url, issuer, data_dir = login_desk
    # The app first (a deep link's first load on a fresh server is tests/browser/test_pages.py's concern).
    page.goto(url)
    expect(page.get_by_role("heading", name="Research Desk")).to_be_visible()
    page.goto(f"{url}/settings")
    expect(page.get_by_text("Sign in to check connections.")).to_be_visible()
    assert page.get_by_role("button", name="Check connections").count() == 0
    page.goto(f"{url}/library")
    expect(page.get_by_text("Sign in to add documents.")).to_be_visible()

    page.get_by_role("button", name="Sign in").first.click()
    expect(page.get_by_text("Signed in as ada@example.org")).to_be_visible()
    assert {"/authorize", "/token"} <= set(issuer.requests)
    page.goto(f"{url}/library")
    expect(page.get_by_role("button", name="Import")).to_be_visible()  # the upload form
    page.goto(f"{url}/settings")
    expect(page.get_by_role("button", name="Check connections")).to_be_visible()

    page.goto(f"{url}/")
    page.get_by_role("textbox", name="Research topic", exact=True).fill("How do mRNA vaccines work?")
    page.get_by_role("textbox", name="Allocation", exact=True).fill("100")
    page.get_by_role("textbox", name="Allocation", exact=True).press("Enter")
    expect(page.get_by_role("button", name="Run research")).to_be_enabled()
    page.get_by_role("button", name="Run research").click()
    expect(page.locator(".st-key-run-header")).to_contain_text("Finished", timeout=RUN_TIMEOUT_MS)
    expect(page.locator(".st-key-run-header")).to_contain_text("by ada@")  # who started it
    screenshot(page, "browser-13-signed-in")
    store = RunStore(data_dir / "runs.sqlite")
    (record,) = store.list_runs()
    assert fold(store.events(record.run_id)).started_by == "ada@example.org"

    assert any(c["name"] == "_streamlit_user" for c in page.context.cookies())  # the identity cookie
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    # st.logout clears the session's user first, then sends the browser to /auth/logout to delete
    # the identity cookie: leaving the page before that (a busy machine) would keep the sign-in.
    _wait_until_cookie_gone(page, "_streamlit_user")
    page.goto(f"{url}/settings")
    expect(page.get_by_text("Sign in to check connections.")).to_be_visible()


def _wait_until_cookie_gone(page: Page, name: str, timeout_s: float = RUN_TIMEOUT_MS / 1000) -> None:
    deadline = time.monotonic() + timeout_s
    while any(c["name"] == name for c in page.context.cookies()):
        assert time.monotonic() < deadline, f"the {name} cookie was never deleted after signing out"
        page.wait_for_timeout(100)


def test_a_desk_on_the_network_without_a_login_refuses_to_serve(page, tmp_path: Path) -> None:
    _require_browser()
    port = free_port()
    env = offline_env(tmp_path / "data")
    # 0.0.0.0 without [auth]: the page shows only the refusal (reached through loopback here).
    with streamlit_server(env, tmp_path / "streamlit.log", port=port, extra_args=("--server.address", "0.0.0.0")):
        page.goto(f"http://127.0.0.1:{port}/")
        expect(page.get_by_text("without a login")).to_be_visible()
        assert page.get_by_role("button", name="Run research").count() == 0
    env["RESEARCH_ALLOW_UNAUTHENTICATED"] = "1"
    with streamlit_server(
        env, tmp_path / "streamlit2.log", port=free_port(), extra_args=("--server.address", "0.0.0.0")
    ) as url:
        page.goto(f"{url}/")
        expect(page.get_by_role("button", name="Run research")).to_be_visible()
