"""Trust in the dashboard: the evidence notice, dropped results, claim support in the draft panel.
Each test renders a real offline run (library sources) that the runner stored in the app's data dir."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.ui.canned import append_event
from tests.ui.conftest import has_block, texts


def _run(data_dir: Path, topic: str, allocation: str = "111") -> str:
    settings = Settings(
        _env_file=None, data_dir=data_dir, log_dir=data_dir.parent / "logs", sources="library", llm="offline"
    )
    return ResearchRunner(settings).run(ResearchRequest(topic=topic, allocation=allocation))


# A claim check of draft v1 planted after the run's own: hostile Markdown in the sentence and passage.
HOSTILE_CLAIM = {
    "n": 1,
    "sentence": "Penguins invented <b>it</b> [x](http://evil.example)",
    "source_id": "s1",
    "verdict": "unsupported",
    "score": 0.1,
    "passage": "![img](http://evil.example/i.png)",
    "section": "",
}
# One whose quote is not faithful to its passage.
CHANGED_QUOTE_CLAIM = {
    "n": 2,
    "sentence": "Use Tokio's spawnblocking for blocking work.",
    "source_id": "s1",
    "verdict": "unsupported",
    "score": 1.0,
    "passage": "Use Tokio's spawn_blocking for blocking work.",
    "section": "Summary",
    "failure": "changed",
    "reason": 'not faithful: it quotes "spawn_blocking" as "spawnblocking"',
}


def _app_with_claim(make_app: Callable[..., AppTest], data_dir: Path, topic: str, claim: dict[str, Any]) -> AppTest:
    """A real run on `topic`, then a claim check of its draft v1 holding just `claim`, rendered."""
    run_id = _run(data_dir, topic)
    append_event(
        data_dir, run_id, "claims_checked", {"version": 1, "method": "offline", "claims": [claim], "precision": 0.0}
    )
    return make_app(run_id).run()


def test_an_empty_run_shows_a_prominent_notice(make_app, data_dir):
    at = make_app(_run(data_dir, "How are bagpipes made?")).run()
    assert not at.exception
    notice = at.container(key="evidence-notice")
    assert [e.value for e in notice.error] and "No relevant evidence" in notice.error[0].value


def test_dropped_results_are_listed_on_the_researcher_card(make_app, data_dir):
    at = make_app(_run(data_dir, "What are the health effects of intermittent fasting?")).run()
    card = at.container(key="researcher-card-web-1")
    labels = [e.label for e in card.expander]
    assert any("dropped as off-topic" in label for label in labels)
    page = "\n".join(texts(at))
    assert "not about the subject: missing intermittent" in page


def test_a_covered_run_has_no_alarm(make_app, data_dir):
    at = make_app(_run(data_dir, "How do mRNA vaccines work?")).run()
    notice = at.container(key="evidence-notice")
    assert not notice.error and not notice.warning
    assert any("every question covered" in c.value for c in notice.caption)
    assert has_block(at, "researcher-card-web-1")


def test_the_draft_panel_shows_claim_support_and_precision(make_app, data_dir):
    at = make_app(_run(data_dir, "How do mRNA vaccines work?")).run()
    assert not at.exception
    page = "\n".join(texts(at))
    assert "Citation precision: 100% of checked claims in draft v1" in page
    check = [m.value for m in at.markdown if m.value.startswith("**Claim check**")]
    assert check and "v1, the offline support score" in check[0] and "supported" in check[0]
    passages = [e for e in at.expander if "The passage behind each citation" in e.label]
    assert passages and any("> " in m.value for m in passages[0].markdown)


def test_unsupported_claims_are_marked(make_app, data_dir):
    at = _app_with_claim(make_app, data_dir, "How do mRNA vaccines work?", HOSTILE_CLAIM)
    marked = [w.value for w in at.warning if "unsupported" in w.value]
    assert marked and "Penguins" in marked[0]
    # Outside text is escaped: no live HTML, links or images.
    assert "<b>" not in marked[0] or "\\<b\\>" in marked[0]
    assert "\\[x\\]\\(http" in marked[0]
    quoted = [m.value for e in at.expander for m in e.markdown if "Penguins" in m.value]
    assert quoted and "\\!\\[img\\]\\(http" in quoted[0]


def test_a_failed_claim_says_why(make_app, data_dir):
    at = _app_with_claim(make_app, data_dir, "Rust vs Go for backend services", CHANGED_QUOTE_CLAIM)
    marked = [w.value for w in at.warning if "spawnblocking" in w.value]
    assert marked and "Why: not faithful\\: it quotes" in marked[0] and "spawn\\_blocking" in marked[0]
    listed = [m.value for e in at.expander for m in e.markdown if "spawnblocking" in m.value]
    assert listed and "Why: not faithful\\:" in listed[0]


def test_the_reviewers_version_shows_its_reasons(make_app, data_dir, monkeypatch):
    from research.brains.base import WriteRequest
    from research.brains.offline.offline_brain import OfflineBrain

    original = OfflineBrain.write

    def write(self, request: WriteRequest):
        body = original(self, request)
        return body.replace("## Summary\n\n", "## Summary\n\nPenguins brewed the vaccine on the moon in glass [1]. ", 1)

    monkeypatch.setattr(OfflineBrain, "write", write)
    at = make_app(_run(data_dir, "How do mRNA vaccines work?")).run()
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert any(label.startswith("Why the reviewer wrote v2") for label in labels)
    check = [m.value for m in at.markdown if m.value.startswith("**Claim check**")]
    assert check and "v2" in check[0] and "100%" in check[0]
    page = "\n".join(texts(at))
    assert "in draft v2 supported by the passage they cite (the writer's v1: " in page


def test_a_claim_the_model_judge_did_not_reach_says_it_was_judged_offline(make_app, data_dir):
    """A model claim check the run's call cap stopped part way: the claim it did not reach keeps the
    offline verdict, and the table says so beside it (not read as the model's)."""
    run_id = _run(data_dir, "How do mRNA vaccines work?")
    judged = {**CHANGED_QUOTE_CLAIM, "n": 1, "sentence": "Judged by the model.", "verdict": "supported"}
    judged.update(failure="", reason="", judged_by="model")
    reached_not = {**judged, "n": 2, "sentence": "Never reached by the judge.", "judged_by": "offline"}
    append_event(
        data_dir,
        run_id,
        "claims_checked",
        {"version": 1, "method": "model", "claims": [judged, reached_not], "precision": 1.0},
    )
    at = make_app(run_id).run()
    assert not at.exception
    [check] = [m.value for m in at.markdown if m.value.startswith("**Claim check**")]
    assert "a model judge; 1 claims the judge did not reach keep the offline score" in check
    rows = [m.value for e in at.expander for m in e.markdown if m.value.startswith("**[")]
    [offline] = [v for v in rows if "Never reached" in v]
    [model] = [v for v in rows if "Judged by the model" in v]
    assert "judged offline" in offline and "judged offline" not in model
