"""A damaged local run store on the dashboard: a message naming the file."""

from __future__ import annotations

from pathlib import Path

GARBAGE = b"this is not a database " * 400


def test_the_dashboard_names_a_corrupt_store_without_a_traceback(make_app, data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "runs.sqlite").write_bytes(GARBAGE)
    at = make_app().run()
    message = " ".join(e.value for e in at.error)
    assert "runs.sqlite is not a readable run store" in message and not at.exception
    assert "RESEARCH_DATABASE_URL" not in message
