"""`python -m research` whose library searches the test can hold (RESEARCH_TEST_HOLD_FILE, see
tests/held_search.py): a CLI run is still running when the test kills it."""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.held_search import hold_library_searches  # noqa: E402

if __name__ == "__main__":
    hold_library_searches(Path(os.environ["RESEARCH_TEST_HOLD_FILE"]))
    runpy.run_module("research", run_name="__main__", alter_sys=True)
