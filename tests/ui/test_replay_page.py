"""Replay on the Research page: a stored run's panels fill again exactly as they did live."""

from __future__ import annotations

import time

from research.api import RunStore, fold
from tests.ui.conftest import has_block
from tests.ui.stored_runs import real_runs


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def _progress(at) -> str:
    bars = at.get("progress")
    return bars[0].proto.text if bars else ""


def panel_contents(at, store: RunStore, run_id: str) -> dict:
    """What every panel shows: cards, sources table, critiques, draft, decision, metrics, transcript."""
    view = fold(store.events(run_id))
    contents: dict = {"cards": {}, "critiques": []}
    for rid in view.researchers:
        contents["cards"][rid] = [m.value for m in at.container(key=f"researcher-card-{rid}").markdown]
    for n in range(1, len(view.critiques) + 1):
        contents["critiques"].append([m.value for m in at.container(key=f"critique-round-{n}").markdown])
    table = next(d.value for d in at.dataframe if "Snippet" in d.value.columns)
    contents["sources"] = table.sort_values("Source id").reset_index(drop=True).to_dict("list")
    contents["draft"] = at.container(key=f"draft-body-{run_id}").markdown[0].value
    contents["metrics"] = {m.label: m.value for m in at.metric}
    contents["decision"] = [m.value for m in at.markdown if m.value.startswith(("Allocation", "1. "))]
    contents["transcript"] = [[m.value for m in c.markdown] for c in at.chat_message]
    return contents


def test_an_instant_replay_shows_the_same_panels_as_the_original_run(make_app, data_dir):
    (run_id,) = real_runs(data_dir, ["003"])  # two analyst rounds and a follow-up researcher
    store = RunStore(data_dir / "runs.sqlite")
    at = make_app(run_id).run()
    original = panel_contents(at, store, run_id)
    assert len(original["critiques"]) == 2 and "book-1-r1" in original["cards"]

    at.selectbox(key="replay-speed").set_value("Instant").run()
    _button(at, "Replay").click().run()
    assert not at.exception
    assert _progress(at).startswith(":material/slideshow: Replay done")
    assert panel_contents(at, store, run_id) == original
    # Leaving the replay returns to the stored run with its tools.
    _button(at, "Stop replay").click().run()
    assert not at.get("progress") and has_block(at, f"export-{run_id}")


def test_a_replay_at_real_speed_fills_the_panels_progressively_and_can_pause(make_app, data_dir):
    (run_id,) = real_runs(data_dir, ["210"], demo_delay=1.0)  # about 1 s of researching to replay
    at = make_app(run_id).run()
    original_draft = at.container(key=f"draft-body-{run_id}").markdown[0].value
    assert at.selectbox(key="replay-speed").value == "1x"
    _button(at, "Replay").click().run()
    # Moments in: the run has started, no researcher has reported, no draft yet.
    assert "playing at 1x" in _progress(at)
    assert any(m.value.startswith("### How do mRNA vaccines work?") for m in at.markdown)
    assert not has_block(at, f"draft-body-{run_id}") and not has_block(at, "critique-round-1")

    _button(at, "Pause").click().run()
    paused = _progress(at)
    assert "Replay paused" in paused
    time.sleep(0.8)
    at.run()
    assert _progress(at) == paused and not has_block(at, f"draft-body-{run_id}")  # held while paused

    _button(at, "Resume").click().run()
    # The draft is shown a couple of events before the replay's last one: wait for the end itself,
    # with a ceiling a busy machine does not reach.
    deadline = time.time() + 120
    while not ("Replay done" in _progress(at) and has_block(at, f"draft-body-{run_id}")):
        assert time.time() < deadline, _progress(at)
        time.sleep(0.3)
        at.run()
    assert has_block(at, "researcher-card-web-2") and has_block(at, "critique-round-1")
    assert at.container(key=f"draft-body-{run_id}").markdown[0].value == original_draft
