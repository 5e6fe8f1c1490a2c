"""What langgraph.json serves: the research graph as a LangGraph Server runs it, and its checkpointer.

This entry point sits above the graph and the run store, so it builds the worker's one service
registry (research/graph/services.py) with what only the run layer has, the worker event log
(research/runs/worker_log.py) and the daily-cap allowance (research/runs/daily_cap.py), and
gives the server checkpoints that go through SecretMaskingSerializer, as the in-process runner's
do. The checkpointer replaces the server's default persistence (langgraph.json
`checkpointer.path`): Postgres with RESEARCH_DATABASE_URL (LangGraph Server for a team), else
SQLite in the worker's data dir.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from research.graph.builder import ResearchGraph
from research.graph.builder import make_graph as make_research_graph
from research.graph.services import ServiceRegistry
from research.logging_setup import configure_logging
from research.runs.checkpoints import PG_SETUP_ADVISORY_LOCK, serializer
from research.runs.daily_cap import worker_allowance
from research.runs.worker_log import worker_event_log
from research.settings import get_settings


def make_graph() -> ResearchGraph:
    """The graph of langgraph.json: the research graph, its runs logged by this worker when it shares
    the client's run store."""
    if os.environ.get("LANGGRAPH_STRICT_MSGPACK", "").lower() in ("1", "true", "yes"):
        # Under strict msgpack LangGraph derives an allow-list per compiled graph and applies it with
        # `copy.copy(checkpointer)`, and langgraph-api 0.16's adapter around a custom checkpointer
        # recurses forever when copied: every run would fail with RecursionError.
        raise RuntimeError(
            "Unset LANGGRAPH_STRICT_MSGPACK for the research server: its checkpointer "
            "(research/runs/server.py) enforces the project's msgpack allow-list itself, and strict "
            "mode makes every run fail inside langgraph-api's custom-checkpointer adapter."
        )
    return make_research_graph(services())


@lru_cache(maxsize=1)
def services() -> ServiceRegistry:
    """This worker's service registry, built once (on its first run) from its environment: every
    run it serves, and each of their nodes, gets its services from here through the runtime. Its
    setup is the desk's log, as a dashboard's manager sets it up (research/runs/control.py), on the
    worker's first node: `research.*` lines go to the worker's multiagent.log, each naming its run
    (the graph's nodes set the run id and topic, research/graph/node_events.py), secrets and topics
    masked."""
    return ServiceRegistry(event_log=worker_event_log, allowance=worker_allowance, setup=configure_logging)


@asynccontextmanager
async def checkpointer() -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The server's checkpointer (langgraph.json): secret-masking, with the project's allow-list."""
    settings = get_settings()
    serde = serializer(settings)
    if settings.database_url:
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool

        from research.runs.postgres_savers import MaskingAsyncPostgresSaver

        # The saver's documented connection settings: autocommit, no server-side prepared statements.
        async with AsyncConnectionPool(
            settings.database_url.get_secret_value(),
            min_size=1,
            max_size=8,
            open=False,
            name="research-server-checkpoints",
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        ) as pool:
            postgres = MaskingAsyncPostgresSaver(pool, serde=serde)  # type: ignore[arg-type]
            async with pool.connection() as conn:  # replicas starting at once must not race the migrations
                await conn.execute("SELECT pg_advisory_lock(%s)", (PG_SETUP_ADVISORY_LOCK,))
                try:
                    await postgres.setup()
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(%s)", (PG_SETUP_ADVISORY_LOCK,))
            yield postgres
        return
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(settings.data_dir / "server-checkpoints.sqlite") as conn:
        saver = AsyncSqliteSaver(conn, serde=serde)
        await saver.setup()
        yield saver
