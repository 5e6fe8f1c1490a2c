"""Figure 8: the cost of remote mode. The default run (offline brain, sample library, the brain's
own allocation) in-process versus through `langgraph dev` on loopback (research.runs.remote: a
client that streams the server's parts into the local event log). Wall time from the call to the
run's last event, median of repeats after a warm-up on each side; skipped when langgraph-cli is
not installed. Loopback and in-memory: a deployed server adds the network and Postgres on top."""

from __future__ import annotations

import time
from typing import Any

from bench.harness import BenchContext, FigureSkipped, Stopwatch, log, median, rounded
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings

TOPIC = "How do mRNA vaccines work?"


def measure(ctx: BenchContext) -> dict[str, Any]:
    from tests.langgraph_server import langgraph_available, langgraph_dev, server_env

    if not langgraph_available():
        raise FigureSkipped('langgraph-cli not installed (pip install "langgraph-cli[inmem]")')
    from research.runs.remote import RemoteRunManager
    from research.runs.runner import ResearchRunner

    repeats = 3 if ctx.quick else 7
    root = ctx.scratch("remote_mode")
    local = ResearchRunner(
        Settings(_env_file=None, data_dir=root / "local", log_dir=ctx.log_dir, llm="offline", sources="library")
    )
    in_process, in_first = _walls(local, repeats)
    with langgraph_dev(server_env(root / "server", RESEARCH_DEMO_DELAY="0"), root) as url:
        remote = RemoteRunManager(
            Settings(_env_file=None, data_dir=root / "client", log_dir=ctx.log_dir, llm="offline", server_url=url)
        )
        remote_walls, remote_first = _walls(remote, repeats)
    local.library.close()
    ratio = median(remote_walls) / median(in_process)
    log(
        f"remote mode: {median(remote_walls):.3f} s vs in-process {median(in_process):.3f} s ({ratio:.2f}x); "
        f"first event {median(remote_first):.3f} s vs {median(in_first):.3f} s"
    )
    return {
        "remote_mode": {
            "in_process_seconds": rounded(median(in_process)),
            "remote_seconds": rounded(median(remote_walls)),
            "ratio": rounded(ratio),
            "in_process_first_event_seconds": rounded(median(in_first)),
            "remote_first_event_seconds": rounded(median(remote_first)),
            "repeats": repeats,
        },
    }


def _walls(manager, repeats: int) -> tuple[list[float], list[float]]:
    """Seconds to the run's end and to its first event (run_started), per repeat after a warm-up."""
    walls, firsts = [], []
    for i in range(repeats + 1):
        first: list[float] = []
        with Stopwatch() as sw:

            def on_event(_event: object, first: list[float] = first, sw: Stopwatch = sw) -> None:
                if not first:
                    first.append(time.perf_counter() - sw.start)

            run_id = manager.run(ResearchRequest(topic=TOPIC), on_event=on_event)
        if manager.store.get_run(run_id).status != "finished":
            raise RuntimeError(f"run {run_id} did not finish: {manager.store.get_run(run_id).error}")
        if i:  # the first is the warm-up: imports, the library, the server's first graph load
            walls.append(sw.seconds)
            firsts.append(first[0])
    return walls, firsts
