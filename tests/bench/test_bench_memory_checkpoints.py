"""The memory figure's checkpoint bytes count every part of a run's checkpoints: the rows, the
tasks' writes, and the channel values the saver keeps apart (research/runs/blob_saver.py)."""

from __future__ import annotations

import sqlite3

from bench.memory import checkpoint_blobs
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest


def test_checkpoint_bytes_include_the_channel_values(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100", max_iterations=0))
    db_path = runner.settings.checkpoints_db
    with sqlite3.connect(db_path) as db:
        values = [row[0] for row in db.execute("SELECT blob FROM checkpoint_blobs WHERE thread_id = ?", (run_id,))]
    counted = checkpoint_blobs(db_path, run_id)
    assert values and all(value in counted for value in values if value)
    assert any(b"heat pumps" in blob for blob in values)  # the state itself: topic, sources, draft
