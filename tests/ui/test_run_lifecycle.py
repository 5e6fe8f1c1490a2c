"""Starting a real (offline) run from the page, re-attaching to it, and keeping sessions apart."""

from __future__ import annotations

import time
from pathlib import Path

from research.api import RunStore
from tests.ui.canned import store_canned_run
from tests.ui.conftest import has_block, texts


def _run_id(at) -> str:
    """The run id the page put in the URL (?run=...)."""
    value = at.query_params["run"]
    return value[0] if isinstance(value, list) else value


def _start(at, topic: str, notation: str) -> str:
    at.text_area(key="topic").input(topic).run()
    at.text_input(key="alloc_notation").input(notation).run()
    next(b for b in at.button if b.label == "Run research").click().run()
    return _run_id(at)


def _wait_finished(data_dir: Path, run_id: str, timeout: float = 30.0) -> None:
    store = RunStore(data_dir / "runs.sqlite")
    deadline = time.time() + timeout
    while time.time() < deadline:
        record = store.get_run(run_id)
        if record and record.status != "running":
            return
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish within {timeout} s")


def test_run_button_starts_a_run_that_the_page_follows_to_the_end(make_app, data_dir):
    at = make_app().run()
    run_id = _start(at, "How do mRNA vaccines work?", "210")
    assert RunStore(data_dir / "runs.sqlite").get_run(run_id).requested_allocation == "210"
    _wait_finished(data_dir, run_id)
    at.run()
    page = "\n".join(texts(at))
    assert ":green-badge[:material/check_circle: Finished]" in page
    assert has_block(at, "researcher-card-web-1")
    assert has_block(at, "researcher-card-web-2")
    assert has_block(at, "researcher-card-academic-1")
    assert has_block(at, f"draft-body-{run_id}")


def test_a_new_session_reattaches_through_the_url(make_app, data_dir):
    first = make_app().run()
    run_id = _start(first, "The first Impressionist exhibition", "012")
    _wait_finished(data_dir, run_id)
    again = make_app(run_id).run()  # a browser refresh: new session, same URL
    assert any(t == "### The first Impressionist exhibition" for t in texts(again))
    assert has_block(again, "researcher-card-book-1")


def test_two_sessions_keep_their_own_runs(make_app, data_dir):
    one, two = make_app().run(), make_app().run()
    run_one = _start(one, "How do mRNA vaccines work?", "100")
    run_two = _start(two, "The first Impressionist exhibition", "001")
    assert run_one != run_two
    _wait_finished(data_dir, run_one)
    _wait_finished(data_dir, run_two)
    one.run()
    two.run()
    assert "### How do mRNA vaccines work?" in texts(one)
    assert "### The first Impressionist exhibition" not in texts(one)
    assert "### The first Impressionist exhibition" in texts(two)
    assert has_block(one, "researcher-card-web-1")
    assert has_block(two, "researcher-card-book-1")
    assert not has_block(one, "researcher-card-book-1") and not has_block(two, "researcher-card-web-1")


def test_letting_the_model_decide_sends_no_allocation(make_app, data_dir):
    at = make_app().run()
    at.text_area(key="topic").input("What did the first Impressionist exhibition show?").run()
    at.toggle(key="alloc_auto").set_value(True).run()
    next(b for b in at.button if b.label == "Run research").click().run()
    run_id = _run_id(at)
    record = RunStore(data_dir / "runs.sqlite").get_run(run_id)
    assert record.requested_allocation is None
    _wait_finished(data_dir, run_id)
    at.run()
    page = "\n".join(texts(at))
    assert "Set by you" not in page
    # The app runs offline here: the classifier chose it, and the badge says so (not "the model").
    assert ":orange-badge[Chosen by the offline classifier]" in page and "Chosen by the model" not in page


def test_switching_pages_and_back_reattaches_the_run(make_app, data_dir):
    run_id = store_canned_run(data_dir, "Still here after History")
    at = make_app(run_id).run()
    at.switch_page("pages/history.py")
    at.query_params.clear()  # the navigation links carry no query string
    at.run()
    at.switch_page("pages/research.py").run()
    assert "### Still here after History" in texts(at)
    assert _run_id(at) == run_id  # and the URL says so again, ready for a refresh
