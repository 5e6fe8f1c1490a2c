"""Figure 2: fan-out scaling. Wall time of one research round with 1, 2, 3, 6 and 9 researchers,
relative to 1, with fixed latencies (model 200 ms, search 300 ms per request).

Every team includes a book researcher (the deepest search chain: Open Library and Wikipedia each
need two dependent requests), so the ideal wall time is the same for every team and the ratio
shows only what running more researchers at once costs.
"""

from __future__ import annotations

from typing import Any

from bench.critical_path import MODEL_LATENCY, SEARCH_LATENCY, critical_path
from bench.harness import BenchContext, log, median, rounded
from bench.loopback import LoopbackWorld

TEAMS = {1: "001", 2: "011", 3: "111", 6: "222", 9: "333"}
TARGETS = {3: 1.15, 9: 1.3}


def measure(ctx: BenchContext) -> dict[str, Any]:
    repeats = 1 if ctx.quick else 3
    walls: dict[int, float] = {}
    details: dict[str, Any] = {}
    with LoopbackWorld(ctx.scratch("fanout"), ctx.log_dir, MODEL_LATENCY, SEARCH_LATENCY) as world:
        world.run("111", max_iterations=0)  # warm-up
        for size, allocation in TEAMS.items():
            runs = [world.run(allocation, max_iterations=0, max_researchers=9) for _ in range(repeats)]
            walls[size] = median([r.wall_seconds for r in runs])
            ideal = critical_path(runs[0].events, MODEL_LATENCY, SEARCH_LATENCY).seconds
            details[str(size)] = {
                "allocation": allocation,
                "seconds": rounded(walls[size]),
                "ideal_seconds": rounded(ideal),
                "search_requests": runs[0].search_requests,
                "model_calls": runs[0].calls,
            }
            log(f"fan-out {size} researchers ({allocation}): {walls[size]:.2f} s")
    ratios = {str(size): rounded(walls[size] / walls[1]) for size in TEAMS}
    return {
        "fanout_ratio": ratios,
        "fanout_details": {
            "model_latency_s": MODEL_LATENCY,
            "search_latency_s": SEARCH_LATENCY,
            "max_iterations": 0,
            "repeats": repeats,
            "targets": {str(k): v for k, v in TARGETS.items()},
            "teams": details,
        },
    }
