"""The researcher branch of the fan-out, in the run's own researcher mode.

The mode is a run choice (`RunSpec.researcher_mode`, resolved into the run's services), so one
compiled graph serves both modes: in-process, and on a server, where the dashboard's choice now
travels with the run instead of being fixed by the worker's setting.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from research.graph.nodes.agent_researcher import agent_researcher
from research.graph.nodes.researcher import researcher
from research.graph.services import RunEnv, services_of
from research.graph.state import ResearcherState


def researcher_branch(state: ResearcherState, config: RunnableConfig, runtime: Runtime[RunEnv]) -> ResearcherState:
    """Fixed type-specific queries (pipeline) or a bounded tool loop (agent)."""
    run = agent_researcher if services_of(runtime).researcher_mode == "agent" else researcher
    return run(state, config, runtime)
