"""Review plan: the run pauses after the supervisor; the plan is edited on the page and the
research continues with it (or is cancelled). The pause is stored, so a reload still shows it."""

from __future__ import annotations

import time
from pathlib import Path

from research.api import RunStore
from tests.ui.conftest import has_block, plain, texts
from tests.ui.stored_runs import TOPIC

EDITED = ["How do lipid nanoparticles deliver mRNA into cells?", "What did the phase 3 trials of mRNA vaccines show?"]


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def _wait_status(data_dir: Path, run_id: str, wanted: set[str], timeout: float = 30.0) -> None:
    store = RunStore(data_dir / "runs.sqlite")
    deadline = time.time() + timeout
    while time.time() < deadline:
        if store.get_run(run_id).status in wanted:
            return
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} is {store.get_run(run_id).status}, not {wanted}")


def _wait_plan_review(at, run_id: str, timeout: float = 60.0):
    """The page offers the plan review once the run is paused in the store *and* its thread has
    ended (the pause event is stored a moment before the graph's interrupt returns): rerun until it
    does, so a busy machine only makes this slower."""
    deadline = time.time() + timeout
    while not has_block(at, "plan-review"):
        if time.time() > deadline:
            raise AssertionError(f"run {run_id}: the page never offered the plan review")
        time.sleep(0.05)
        at = at.run()
    return at


def _start_paused(make_app, data_dir: Path):
    at = make_app().run()
    at.text_area(key="topic").input(TOPIC).run()
    at.text_input(key="alloc_notation").input("210").run()
    at.toggle(key="review_plan").set_value(True).run()
    _button(at, "Run research").click().run()
    run_id = at.query_params["run"]
    run_id = run_id[0] if isinstance(run_id, list) else run_id
    _wait_status(data_dir, run_id, {"paused"})
    return _wait_plan_review(at.run(), run_id), run_id


def test_the_plan_is_edited_while_paused_and_the_research_continues_with_it(make_app, data_dir):
    at, run_id = _start_paused(make_app, data_dir)
    assert has_block(at, "plan-review")
    planned = at.text_area(key=f"plan-questions-{run_id}").value.splitlines()
    assert len(planned) >= 2 and at.text_input(key=f"plan-allocation-{run_id}").value == "210"
    assert any("waiting for review" in t for t in texts(at))
    assert not has_block(at, "researcher-card-web-1")  # nobody has been sent out yet

    # A reload (new session, same URL): the pause comes from the store.
    at = make_app(run_id).run()
    assert has_block(at, "plan-review") and {b.label for b in at.button} >= {"Continue research", "Cancel"}

    at.text_input(key=f"plan-allocation-{run_id}").input("999").run()
    assert _button(at, "Continue research").disabled
    assert any(plain(e.value).startswith("Cannot continue: invalid allocation") for e in at.error)

    at.text_area(key=f"plan-questions-{run_id}").input("\n".join(EDITED)).run()
    at.text_input(key=f"plan-allocation-{run_id}").input("021").run()
    _button(at, "Continue research").click().run()
    _wait_status(data_dir, run_id, {"finished", "failed"})
    at.run()
    page = "\n".join(texts(at))
    assert not has_block(at, "plan-review")
    assert "Allocation 021 · :blue-badge[Set by you]" in page
    assert f"1. {EDITED[0]}\n2. {EDITED[1]}" in page
    for rid in ("academic-1", "academic-2", "book-1"):
        assert has_block(at, f"researcher-card-{rid}")
    assert not has_block(at, "researcher-card-web-1")
    assert RunStore(data_dir / "runs.sqlite").get_run(run_id).status == "finished"


def test_cancel_ends_a_paused_run(make_app, data_dir):
    at, run_id = _start_paused(make_app, data_dir)
    _button(at, "Cancel").click().run()
    assert RunStore(data_dir / "runs.sqlite").get_run(run_id).status == "cancelled"
    assert not has_block(at, "plan-review")
    assert any("Cancelled" in t for t in texts(at))
