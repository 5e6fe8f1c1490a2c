"""The desk itself as one more contestant: its LLM brain through the metering proxy, its Tavily
provider against the peer world (web researchers only: the world speaks Tavily, as the peers do)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.peers.world import PeerWorld
from research.api import ResearchRequest, ResearchRunner, RunStatus, Settings, fold

# The desk's side of "comparable sizes": one web researcher (the peers' one research unit), no
# follow-up round (the peers get one research iteration), five results a query (as the peers).
DESK_ALLOCATION = "100"
DESK_ITERATIONS = 0


def desk_settings(
    world: PeerWorld, model_url: str, model: str, root: Path, *, local: dict[str, Any] | None = None
) -> Settings:
    return Settings(_env_file=None, **desk_values(world, model_url, model, root, local=local))


def desk_values(
    world: PeerWorld, model_url: str, model: str, root: Path, *, local: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The desk's settings as plain values (JSON for bench/peers/desk_process.py)."""
    values: dict[str, Any] = dict(
        llm="openai",
        sources="live",
        openai_base_url=model_url,
        openai_api_key="sk-bench-key",
        model=model,
        tavily_url=world.tavily_url,
        tavily_api_key="tvly-bench-key",
        allow_private_urls=True,  # the world's pages are on 127.0.0.1
        rate_limits=False,
        search_cache_seconds=0,
        results_per_query=world.results_per_query,
        http_timeout=30,
    )
    values.update(local or {})
    return {**values, "data_dir": str(root / "data"), "log_dir": str(root / "logs")}


def run_desk(settings: Settings, topic: str, on_ready: Callable[[], None] | None = None) -> dict[str, Any]:
    """One run; the report is the draft as the desk stored it. `on_ready` is called once the runner
    is built, when its research time starts (a peer's driver says so after its imports)."""
    runner = ResearchRunner(settings)
    if on_ready is not None:
        on_ready()
    started = time.perf_counter()
    try:
        run_id = runner.run(ResearchRequest(topic=topic, allocation=DESK_ALLOCATION, max_iterations=DESK_ITERATIONS))
        view = fold(runner.store.events(run_id))
    except Exception as exc:  # noqa: BLE001 - a failed run is a row of the table, not a lost figure
        return {"finished": False, "error": f"{type(exc).__name__}: {exc}"[:300], "report": "",
                "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
    finally:
        runner.library.close()
    finished = view.status == RunStatus.FINISHED and bool(view.draft)
    return {
        "finished": finished,
        "error": None if finished else f"status {view.status}",
        "report": view.draft or "",
        "seconds": round(time.perf_counter() - started, 1),
        "warnings": [f"{w.source}: {w.message}"[:200] for w in view.warnings][:5],
    }
