"""The server's graph (research/runs/server.py) for `langgraph dev`, with library searches the test
can hold (RESEARCH_TEST_HOLD_FILE, see tests/held_search.py): a server run stays running until the
test lets go, however slow the machine."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research.graph.builder import ResearchGraph  # noqa: E402
from research.runs.server import make_graph as server_graph  # noqa: E402
from tests.held_search import hold_library_searches  # noqa: E402

hold_library_searches(Path(os.environ["RESEARCH_TEST_HOLD_FILE"]))


def make_graph() -> ResearchGraph:
    return server_graph()
