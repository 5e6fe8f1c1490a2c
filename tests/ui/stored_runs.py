"""Runs written by the real offline runner (library sources, offline brain) into a test's data dir,
exactly as the dashboard's own runs are stored: the Compare, replay, revise and export tests read
real event logs, not canned ones."""

from __future__ import annotations

from pathlib import Path

from research.api import ResearchRequest, ResearchRunner, Settings

TOPIC = "How do mRNA vaccines work?"


def offline_runner(data_dir: Path, *, demo_delay: float = 0.0) -> ResearchRunner:
    """`demo_delay` paces each library search, so a run has timing worth replaying."""
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        log_dir=data_dir.parent / "logs",
        sources="library",
        llm="offline",
        demo_delay=demo_delay,
    )
    return ResearchRunner(settings)


def real_runs(data_dir: Path, allocations: list[str], topic: str = TOPIC, *, demo_delay: float = 0.0) -> list[str]:
    runner = offline_runner(data_dir, demo_delay=demo_delay)
    run_ids = [runner.run(ResearchRequest(topic=topic, allocation=a)) for a in allocations]
    assert all(runner.store.get_run(r).status == "finished" for r in run_ids)
    return run_ids
