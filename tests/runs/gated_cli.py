"""`python -m research ARGS`, held in its run's analyst until GATE exists: the test says when the
run may go on, so it is still running whatever the machine's load (no race against a delay).

    python -m tests.runs.gated_cli GATE ARGS...
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from research.brains.offline.offline_brain import OfflineBrain
from research.cli.main import main

CEILING = 600.0  # a test that never opens the gate: the run goes on after this long


def gated() -> int:
    gate, args = Path(sys.argv[1]), sys.argv[2:]
    judge = OfflineBrain.judge

    def held(self, *a, **kw):
        deadline = time.monotonic() + CEILING
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return judge(self, *a, **kw)

    OfflineBrain.judge = held  # type: ignore[method-assign]
    return main(args)


if __name__ == "__main__":
    sys.exit(gated())
