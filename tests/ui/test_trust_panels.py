"""Trust in the dashboard: the evidence notice, dropped results, claim support in the draft panel.
Each test renders a real offline run (library sources) that the runner stored in the app's data dir."""

from __future__ import annotations

from pathlib import Path

from research.runs.runner import ResearchRunner
from research.schemas import ResearchRequest
from research.settings import Settings
from tests.ui.conftest import has_block, texts


def _run(data_dir: Path, topic: str, allocation: str = "111") -> str:
    settings = Settings(_env_file=None, data_dir=data_dir, log_dir=data_dir.parent / "logs", sources="library", llm="offline")
    return ResearchRunner(settings).run(ResearchRequest(topic=topic, allocation=allocation))


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
