"""The claim check is available in exports: a CSV with one row per claim, through export_run."""

from __future__ import annotations

import csv
import io

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
