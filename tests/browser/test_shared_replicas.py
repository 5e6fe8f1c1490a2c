"""Two dashboard replicas on one Postgres: a run started on replica A shows live
on replica B, to its end; A killed mid-run loses nothing: B offers Resume and finishes the run from its last
Postgres checkpoint, with one event log (one run_started, one run_finished)."""

from __future__ import annotations

import re
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from playwright.sync_api import expect

from research.runs.store import RunStore
from tests.browser.conftest import ARTIFACTS, EXPECT_TIMEOUT_MS, RUN_TIMEOUT_MS
from tests.browser.research_form import fill_research_form
from tests.child_server import stop_group
from tests.streamlit_server import offline_env, start_streamlit

pytestmark = pytest.mark.browser
TOPIC = "How do mRNA vaccines work?"


def _replica(data_dir: Path, pg_url: str, name: str) -> tuple[subprocess.Popen, str]:
    """A replica: its own data dir (library, logs), the shared Postgres for runs and checkpoints."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = offline_env(data_dir, RESEARCH_DEMO_DELAY="8.0", RESEARCH_DATABASE_URL=pg_url, RESEARCH_RUN_LEASE_SECONDS="6")
    return start_streamlit(env, data_dir / f"streamlit-{name}.log")


def _start_run(page, url: str, topic: str, notation: str) -> str:
    page.goto(url)
    fill_research_form(page, topic, notation)
    expect(page.get_by_text(f"of at most 3 researchers: {notation[0]} web")).to_be_visible()
    page.get_by_role("button", name="Run research").click()
    expect(page.locator(".st-key-researcher-card-web-1")).to_be_visible()
    return re.search(r"\?run=([0-9a-f]{12})", page.url).group(1)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_two_replicas_show_one_run_live_and_a_killed_replica_loses_nothing(
    browser, tmp_path: Path, pg_url: str
) -> None:
    a, url_a = _replica(tmp_path / "a", pg_url, "a")
    b, url_b = _replica(tmp_path / "b", pg_url, "b")
    try:
        contexts = [browser.new_context(viewport={"width": 1440, "height": 900}) for _ in range(2)]
        page_a, page_b = (c.new_page() for c in contexts)
        for p in (page_a, page_b):
            p.set_default_timeout(EXPECT_TIMEOUT_MS)

        page_b.goto(url_b)  # warm replica B up (its first script run imports the engine)
        expect(page_b.get_by_role("textbox", name="Research topic", exact=True)).to_be_visible()
        store = RunStore(pg_url)

        # 1. A run started on replica A is followed live on replica B, to its end, without a reload.
        first = _start_run(page_a, url_a, TOPIC, "210")
        page_b.goto(f"{url_b}/?run={first}")
        expect(page_b.locator(".st-key-run-header")).to_contain_text("Running")
        expect(page_b.get_by_text("This run stopped when the app that ran it did")).to_have_count(0)
        expect(page_b.locator(".st-key-researcher-card-web-1")).to_be_visible()
        seen = len(store.events(first))
        _shot(page_a, "replicas-01-a-running")
        _shot(page_b, "replicas-02-b-watching")
        expect(page_b.locator(".st-key-run-header")).to_contain_text("Finished", timeout=RUN_TIMEOUT_MS)
        expect(page_b.locator(f".st-key-draft-body-{first}")).to_contain_text("Sources")
        assert len(store.events(first)) > seen  # B drew events A wrote after B opened the run
        _shot(page_b, "replicas-03-b-saw-it-finish")

        # 2. A second run on A; B opens it while it runs.
        run_id = _start_run(page_a, url_a, "The first Impressionist exhibition", "111")
        page_b.goto(f"{url_b}/?run={run_id}")
        expect(page_b.locator(".st-key-run-header")).to_contain_text("Running")

        # Replica A dies mid-run (kill -9: no cleanup). B sees the run stopped and resumes it.
        stop_group(a, sig=signal.SIGKILL)
        assert store.get_run(run_id).status == "running"
        expect(page_b.get_by_text("This run stopped when the app that ran it did")).to_be_visible()
        _shot(page_b, "replicas-04-b-after-a-died")
        page_b.get_by_role("button", name="Resume run").click()
        expect(page_b.locator(".st-key-run-header")).to_contain_text("Finished", timeout=RUN_TIMEOUT_MS)
        expect(page_b.locator("[class*=st-key-draft-body-]")).to_contain_text("Sources")
        _shot(page_b, "replicas-05-b-resumed-and-finished")
        for c in contexts:
            c.close()
        events = store.events(run_id)
        types = Counter(e.type for e in events)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert types["run_started"] == 1 and types["run_finished"] == 1 and types["allocation_decided"] == 1
        writer_drafts = [d for d in store.draft_versions(run_id) if d.note == "Writer's draft"]
        assert store.get_run(run_id).status == "finished" and len(writer_drafts) == 1  # the reviewer's come on top
    finally:
        stop_group(a)
        stop_group(b)
