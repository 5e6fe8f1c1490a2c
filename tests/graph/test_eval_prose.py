"""The eval's prose figures (bench/eval/prose.py): quoted sentences in a source's first person, its
method, or with a referent left out are counted; the desk's own notices are not; a section that
opens off its question is counted; and the offline writer's drafts score 0 on a real run."""

from __future__ import annotations

from bench.eval.prose import aggregate_prose, prose_figures
from bench.eval.report import aggregate
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest

DRAFT = """# How do bagpipes work?

## Summary

Bagpipes are wind instruments whose reeds are fed from a bag of air [1]. We measured every bagpipe reed in our workshop [2].

## What is the mechanism behind bagpipes

This chapter describes bagpipe history in broad strokes [1]. The drones of a bagpipe borrowed that tuning system from older reed pipes [2]. The chanter's reed vibrates as air from the bag flows through it [1].

## What are the safety risks of bagpipes

The gathered sources say little about this question.

## Known gaps

- We could not find anything about our own question.
"""


def test_each_kind_of_unfit_quote_is_counted_and_the_desks_notices_are_not() -> None:
    prose = prose_figures(DRAFT)
    assert prose["quoted_sentences"] == 5
    assert (prose["first_person"], prose["method"], prose["dangling"]) == (1, 1, 2)  # "This chapter": both
    assert prose["off_answer_openers"] == 1  # "This chapter describes..." does not answer the mechanism question
    assert prose["unfit_sentences"] == 3
    assert aggregate_prose([{"prose": prose}])["unfit_sentence_share"] == 0.6


def test_the_offline_writer_meets_the_prose_target(runner: ResearchRunner) -> None:
    from bench.eval.metrics import figures

    view = fold(runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))))
    row = figures(view, library_topic="mrna-vaccines", uncovered=False, imported=False)
    from bench.eval.near_miss import agrees

    row |= {"topic": "t", "group": "covered", "prose": prose_figures(view.draft or ""), "agrees": agrees(view)}
    assert row["prose"]["quoted_sentences"] > 0 and row["prose"]["unfit_sentences"] == 0, row["prose"]["flagged"]
    unfit = {**row, "prose": {**row["prose"], "unfit_sentences": 1}}
    assert aggregate([row], prose_target=True)["targets_met"]
    assert not aggregate([unfit], prose_target=True)["targets_met"]  # the prose figure is a target
