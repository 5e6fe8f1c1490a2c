"""The desk's run in a process of its own, so that it has a wall-clock ceiling as the peers do.

`python -m bench.peers.desk_process CONFIG.json OUT.json`: CONFIG holds the desk's settings (as
bench/peers/desk.py makes them) and the topic; OUT gets {"report", "error"}, as the peers' drivers
write it. bench/peers/venvs.py times it from the ready line and kills it at the run's ceiling, the
same way for the desk and for each peer (a model request in flight when the ceiling comes is cut).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.peers.venvs import READY_LINE


def main(argv: list[str]) -> int:
    config_path, out_path = Path(argv[0]), Path(argv[1])
    config = json.loads(config_path.read_text(encoding="utf-8"))
    from bench.peers.desk import run_desk
    from research.api import Settings
    from tests.fakes import lift_rate_limits

    lift_rate_limits("tavily", concurrency=64)  # as the figure's process does for the world
    settings = Settings(_env_file=None, **config["settings"])
    run = run_desk(settings, str(config["topic"]), on_ready=lambda: print(READY_LINE, flush=True))
    result = {"report": run["report"], "error": run["error"], "warnings": run.get("warnings", [])}
    out_path.write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
