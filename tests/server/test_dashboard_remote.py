"""The dashboard in remote mode (AppTest): a run started from the page runs on the LangGraph
server and its panels fill from the local event log; a lost server shows as "server unreachable"
on the live panels with a Reattach offer, and an unreachable server is a clear error on start."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from research.api import RunStore
from tests.langgraph_server import langgraph_dev, server_env
from tests.streamlit_server import ROOT, free_port
from tests.ui.conftest import has_block, texts

APP = ROOT / "streamlit_app.py"


@pytest.fixture
def page_env(client_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)  # st.Page paths are relative to the app
    monkeypatch.delenv("RESEARCH_DEMO_DELAY", raising=False)
    return client_env


def _start(at: AppTest, topic: str, notation: str) -> str:
    at.text_area(key="topic").input(topic).run()
    at.text_input(key="alloc_notation").input(notation).run()
    next(b for b in at.button if b.label == "Run research").click().run()
    value = at.query_params["run"]
    return value[0] if isinstance(value, list) else value


def _wait(store: RunStore, run_id: str, until, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if until(store):
            return
        time.sleep(0.2)
    raise AssertionError(
        f"run {run_id}: condition not met within {timeout} s; events: {[e.type for e in store.events(run_id)]}"
    )


def test_a_run_started_on_the_page_runs_on_the_server_and_fills_the_panels(page_env):
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    run_id = _start(at, "How do mRNA vaccines work?", "210")
    store = RunStore(page_env / "runs.sqlite")
    _wait(store, run_id, lambda s: s.get_run(run_id).status not in ("running",))
    at.run()
    page = "\n".join(texts(at))
    assert ":green-badge[:material/check_circle: Finished]" in page
    for card in (
        "researcher-card-web-1",
        "researcher-card-web-2",
        "researcher-card-academic-1",
        f"draft-body-{run_id}",
    ):
        assert has_block(at, card), card


def test_an_unreachable_server_is_a_clear_error_on_start(page_env, monkeypatch):
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("RESEARCH_SERVER_URL", url)
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.text_area(key="topic").input("How do mRNA vaccines work?").run()
    next(b for b in at.button if b.label == "Run research").click().run()
    errors = [e.value for e in at.error]
    assert any("Could not start the run" in e and "server unreachable" in e for e in errors), errors
    assert "run" not in at.query_params
    assert RunStore(page_env / "runs.sqlite").list_runs() == []


def test_a_server_lost_mid_run_shows_server_unreachable_on_the_live_panels(page_env, tmp_path, monkeypatch):
    # A server of its own whose searches wait on `hold` (tests/held_search.py): it is stopped mid-run
    # however slow the machine.
    hold = tmp_path / "hold"
    hold.touch()
    env = server_env(tmp_path / "doomed", RESEARCH_TEST_HOLD_FILE=str(hold))
    with langgraph_dev(env, tmp_path, held=True) as url:
        monkeypatch.setenv("RESEARCH_SERVER_URL", url)
        at = AppTest.from_file(str(APP), default_timeout=60).run()
        run_id = _start(at, "How do mRNA vaccines work?", "111")
        store = RunStore(page_env / "runs.sqlite")
        _wait(store, run_id, lambda s: any(e.type == "researcher_started" for e in s.events(run_id)))
    # The server is gone: the reader logs it and stops; the run stays "running" with no reader.
    _wait(
        store, run_id, lambda s: any(getattr(e.data, "source", None) == "server connection" for e in s.events(run_id))
    )
    at.run()
    warnings = [plain for plain in texts(at)]
    assert any("lost its connection to the LangGraph server" in w and "server unreachable" in w for w in warnings), (
        warnings
    )
    assert any(b.label == "Reattach" for b in at.button)
    next(b for b in at.button if b.label == "Reattach").click().run()
    assert any("LangGraph server unreachable at" in e.value for e in at.error)


def test_compare_runs_its_allocations_on_the_server(page_env):
    from ui.comparison_store import ComparisonStore

    at = AppTest.from_file(str(APP), default_timeout=60)
    at = at.switch_page("pages/compare.py").run()
    at.text_area(key="compare-topic").input("How do mRNA vaccines work?").run()
    at.multiselect(key="compare-allocations").set_value(["210", "021"]).run()
    next(b for b in at.button if b.label == "Run comparison").click().run()
    value = at.query_params["comparison"]
    comparison = ComparisonStore(page_env).get(value[0] if isinstance(value, list) else value)
    store = RunStore(page_env / "runs.sqlite")
    for run_id in comparison.run_ids:
        _wait(store, run_id, lambda s, r=run_id: s.get_run(r).status != "running")
    at.run()
    assert any("All done" in t for t in texts(at))
    measures = next(d.value for d in at.dataframe if "Measure" in d.value.columns).set_index("Measure")
    assert measures.loc["Status"].tolist() == ["finished", "finished"]
    assert [store.get_run(r).allocation for r in comparison.run_ids] == ["210", "021"]


def test_the_settings_page_says_where_runs_execute(page_env, server_url):
    at = AppTest.from_file(str(APP), default_timeout=60).switch_page("pages/settings.py").run()
    assert any(
        "Remote mode: runs execute on the LangGraph server at" in i.value and server_url in i.value for i in at.info
    )
