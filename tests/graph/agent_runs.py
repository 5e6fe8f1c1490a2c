"""One run with agent-mode researchers (the offline tool policy or a model calling tools), on
the topic the agent tests share, with no follow-up round unless asked."""

from __future__ import annotations

from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest

TOPIC = "Impressionism"


def run_agent(runner: ResearchRunner, allocation: str, *, topic: str = TOPIC, max_iterations: int = 0) -> str:
    return runner.run(
        ResearchRequest(topic=topic, allocation=allocation, max_iterations=max_iterations, researcher_mode="agent")
    )
