"""A team's desk in the browser: two dashboard replicas as clients of one LangGraph server,
all three on one Postgres. A run started on replica A shows live on replica B; A killed mid-run costs
nothing: the server's worker goes on writing the log, B keeps showing the run live (no Reattach, no
"interrupted") to its end, with one complete event log."""

from __future__ import annotations

import re
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from playwright.sync_api import expect

from research.runs.store import RunStore
from tests.browser.conftest import ARTIFACTS, RUN_TIMEOUT_MS
from tests.browser.research_form import fill_research_form
from tests.child_server import stop_group
from tests.langgraph_server import langgraph_available, langgraph_dev, server_env
from tests.streamlit_server import offline_env, start_streamlit

pytestmark = pytest.mark.browser
TOPIC = "How do mRNA vaccines work?"


def _replica(data_dir: Path, server_url: str, pg_url: str, name: str) -> tuple[subprocess.Popen, str]:
    data_dir.mkdir(parents=True, exist_ok=True)
    env = offline_env(data_dir, RESEARCH_SERVER_URL=server_url, RESEARCH_DATABASE_URL=pg_url)
    return start_streamlit(env, data_dir / f"streamlit-{name}.log")


def _shot(page, name: str) -> None:
    """The run's panels (below the research form), as a person scrolled to them sees them."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".st-key-run-header").evaluate("header => header.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_a_replica_killed_mid_run_costs_nothing_on_a_team_desk(browser, tmp_path: Path, pg_url: str) -> None:
    if not langgraph_available():
        pytest.skip('langgraph-cli not installed (pip install "langgraph-cli[inmem]", in requirements-dev.txt)')
    # The server's library searches wait on `hold` after each kind's first: the run is still running
    # when A is killed, however slow the machine, and goes on when the test lets go.
    hold = tmp_path / "hold"
    hold.touch()
    env = server_env(tmp_path / "server", RESEARCH_TEST_HOLD_FILE=str(hold), RESEARCH_DATABASE_URL=pg_url)
    with langgraph_dev(env, tmp_path, held=True) as server_url:
        a, url_a = _replica(tmp_path / "a", server_url, pg_url, "a")
        b, url_b = _replica(tmp_path / "b", server_url, pg_url, "b")
        try:
            contexts = [browser.new_context(viewport={"width": 1440, "height": 900}) for _ in range(2)]
            page_a, page_b = (c.new_page() for c in contexts)
            page_b.goto(url_b)  # warm B up while A starts the run
            page_a.goto(url_a)
            fill_research_form(page_a, TOPIC, "111")
            page_a.get_by_role("button", name="Run research").click()
            expect(page_a.locator(".st-key-researcher-card-web-1")).to_be_visible()
            run_id = re.search(r"\?run=([0-9a-f]{12})", page_a.url).group(1)

            page_b.goto(f"{url_b}/?run={run_id}")
            expect(page_b.locator(".st-key-run-header")).to_contain_text("Running")
            _shot(page_b, "team-01-b-watching-a-server-run")
            stop_group(a, sig=signal.SIGKILL)  # the replica that started the run dies, without cleanup
            store = RunStore(pg_url)
            assert store.get_run(run_id).status == "running"
            seen = len(store.events(run_id))
            hold.unlink()

            expect(page_b.locator(".st-key-run-header")).to_contain_text("Finished", timeout=RUN_TIMEOUT_MS)
            expect(page_b.get_by_role("button", name="Reattach")).to_have_count(0)
            expect(page_b.locator(f".st-key-draft-body-{run_id}")).to_contain_text("Sources")
            _shot(page_b, "team-02-b-saw-it-finish-after-a-died")
            for c in contexts:
                c.close()
        finally:
            stop_group(a)
            stop_group(b)
    events = store.events(run_id)
    assert len(events) > seen  # written after A died: by the server's worker
    types = Counter(e.type for e in events)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert types["run_started"] == 1 and types["run_finished"] == 1 and events[0].data.worker_log is True
    assert store.get_run(run_id).status == "finished"
