"""The eval's figures can fail: an invented citation, an off-topic source and a dishonest empty run
are each counted (bench/eval/metrics.py over real offline runs)."""

from __future__ import annotations

from bench.eval.metrics import figures
from bench.eval.report import aggregate
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest


def _view(runner: ResearchRunner, topic: str):
    return fold(runner.store.events(runner.run(ResearchRequest(topic=topic, allocation="111"))))


def test_figures_count_what_a_reader_would_object_to(runner: ResearchRunner) -> None:
    view = _view(runner, "How do mRNA vaccines work?")
    clean = figures(view, library_topic="mrna-vaccines", uncovered=False, imported=False)
    assert clean["invented_citations"] == 0 and clean["off_topic_cited"] == 0 and clean["citation_precision"] == 1.0
    # The same run judged as if it were about another topic: every cited source is off-topic.
    assert (
        figures(view, library_topic="impressionism", uncovered=False, imported=False)["off_topic_cited"]
        == clean["cited_sources"]
    )
    view.draft = view.draft.replace("## Summary\n\n", "## Summary\n\nA claim [42] and <https://made.up/x>. ", 1)
    assert figures(view, library_topic="mrna-vaccines", uncovered=False, imported=False)["invented_citations"] == 2


def test_an_empty_run_must_say_so(runner: ResearchRunner) -> None:
    view = _view(runner, "How are bagpipes made?")
    honest = figures(view, library_topic=None, uncovered=True, imported=False)
    assert honest["says_empty"] and honest["evidence"] == "none"
    row = {"topic": "t", "group": "uncovered", **honest}
    assert aggregate([row])["empty_runs_say_so"] == "1 of 1"
    view.draft = "# Bagpipes\n\nBagpipes are made of wood.\n"
    pretending = {
        "topic": "t",
        "group": "uncovered",
        **figures(view, library_topic=None, uncovered=True, imported=False),
    }
    assert not pretending["says_empty"] and not aggregate([pretending])["targets_met"]


def test_orphan_openers_count_sentences_without_their_referent() -> None:
    from bench.eval.metrics import orphan_openers

    assert orphan_openers("It was detected in 2021 [1]. The drug works [2].") == 1
    assert orphan_openers("The trial ran in 2020 [1]. This review found more [2].") == 1
    assert orphan_openers("The trial ran in 2020. This review found more [2].") == 0  # quoted with its antecedent


def test_the_claim_check_flags_claims_pointed_at_the_wrong_source(runner: ResearchRunner) -> None:
    from bench.eval.sensitivity import miscited_flagged

    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))
    view = fold(runner.store.events(run_id))
    flagged, checked = miscited_flagged(
        view.draft, {int(n): s for n, s in view.citations.items()}, lambda sid: runner.store.get_text(run_id, sid)
    )
    assert checked >= 5 and flagged / checked >= 0.9
