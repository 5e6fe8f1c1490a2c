"""`python -m research ARGS` as a user types it, in a child process whose output is captured
as text (the tests read its --json on stdout and its errors on stderr)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def research_cli(
    *args: str, env: Mapping[str, str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "research", *args],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
