"""`streamlit` whose library searches the test can hold (RESEARCH_TEST_HOLD_FILE, see
tests/held_search.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from streamlit.web import cli

    from tests.held_search import hold_library_searches

    hold_library_searches(Path(os.environ["RESEARCH_TEST_HOLD_FILE"]))
    sys.exit(cli.main())


if __name__ == "__main__":
    main()
