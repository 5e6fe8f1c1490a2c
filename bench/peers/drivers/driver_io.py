"""What both peer drivers share (they run in the peers' venvs, beside this file, never in the project's)."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

READY = "bench-driver: ready"  # bench/peers/venvs.py times the research from this line


def ready() -> None:
    print(READY, flush=True)


def drive(research: Callable[[dict[str, Any]], str], empty: str) -> int:
    """`driver.py CONFIG.json OUT.json`: run `research(config)`, write {"report", "error"} to OUT."""
    config = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    result: dict[str, object] = {"report": "", "error": None}
    try:
        report = research(config)
        result["report"] = report
        if not report.strip():
            result["error"] = empty
        elif report.startswith("Error generating final report"):
            result["error"] = report[:300]
    except Exception as exc:  # noqa: BLE001 - the failure is the figure
        result["error"] = f"{type(exc).__name__}: {exc}"[:500]
        traceback.print_exc()
    Path(sys.argv[2]).write_text(json.dumps(result), encoding="utf-8")
    return 0
