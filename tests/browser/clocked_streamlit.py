"""`streamlit` whose replay clock is a number in a file the test writes (RESEARCH_TEST_CLOCK_FILE):
the test moves time itself, so what a replay shows at a moment never depends on how fast a busy
machine serves the page."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class FileClock:
    """The test's side: set the time the app reads."""

    def __init__(self, path: Path, start: float) -> None:
        self.path, self.now = path, start
        self.set(start)

    def set(self, now: float) -> None:
        self.now = now
        part = self.path.with_suffix(".part")
        part.write_text(repr(now))
        part.replace(self.path)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from streamlit.web import cli

    from ui import replay_clock

    clock = Path(os.environ["RESEARCH_TEST_CLOCK_FILE"])
    replay_clock.set_wall_clock(lambda: float(clock.read_text()))  # the test replaces the file atomically
    sys.exit(cli.main())


if __name__ == "__main__":
    main()
