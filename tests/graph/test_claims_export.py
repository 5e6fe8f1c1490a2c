"""The claim check is available in exports: a CSV with one row per claim, through export_run."""

from __future__ import annotations

import csv
import io

from research.export.claims_csv import render_claims_csv
from research.export.run_export import export_run
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest


def test_the_claims_export_lists_every_checked_claim(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))
    check = next(e for e in runner.store.events(run_id) if e.type == "claims_checked").data.model_dump(mode="json")
    file = export_run(runner.store, run_id, "claims")
    assert file.filename.endswith(".claims.csv") and file.mime == "text/csv"
    rows = list(csv.DictReader(io.StringIO(file.data.decode("utf-8-sig"))))
    assert len(rows) == len(check["claims"]) > 0
    assert {r["verdict"] for r in rows} <= {"supported", "partial", "unsupported", "unverifiable"}
    assert rows[0]["claim"] == check["claims"][0]["sentence"] and rows[0]["passage"]
    assert [r["reason"] for r in rows] == [c["reason"] for c in check["claims"]]  # why a claim failed
    assert [r["failure"] for r in rows] == [c["failure"] for c in check["claims"]]


def test_each_row_says_whose_verdict_it_is() -> None:
    """A model check the call cap stopped part way: the claim the judge did not reach is "offline"
    in its row, not the check's "model"; a record without per-claim marks keeps the check's method."""
    claim = {"n": 1, "sentence": "A claim.", "source_id": "s1", "verdict": "supported", "score": 0.9, "passage": "p"}
    check = {
        "version": 1,
        "method": "model",
        "precision": 1.0,
        "claims": [{**claim, "judged_by": "model"}, {**claim, "n": 2, "judged_by": "offline"}, {**claim, "n": 3}],
    }
    rows = list(csv.DictReader(io.StringIO(render_claims_csv(check).decode("utf-8-sig"))))
    assert [r["method"] for r in rows] == ["model", "offline", "model"]
