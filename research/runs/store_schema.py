"""The run store's tables (one SQL text for SQLite and Postgres: research/runs/sql.py)."""

from research.runs import model_calls

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    requested_allocation TEXT,
    allocation TEXT,
    allocation_origin TEXT,
    brain TEXT,
    status TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION,
    source_count INTEGER DEFAULT 0,
    error TEXT,
    summary TEXT
)""",
    """CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts DOUBLE PRECISION NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
)""",
    """CREATE TABLE IF NOT EXISTS drafts (
    run_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    note TEXT,
    markdown TEXT NOT NULL,
    PRIMARY KEY (run_id, version)
)""",
    """CREATE TABLE IF NOT EXISTS source_texts (
    run_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (run_id, source_id)
)""",
    # Who runs a run right now (research/runs/lease.py): one row per run while a runner holds it.
    """CREATE TABLE IF NOT EXISTS run_leases (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    heartbeat_at DOUBLE PRECISION NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL
)""",
    # The store's identity (key 'store_id'): a worker writes a run's event log only into the store
    # its client reads (research/runs/worker_log.py), and a URL cannot say that (hosts, aliases).
    """CREATE TABLE IF NOT EXISTS store_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
)""",
    # Runs that came from a bundle: their checkpoints stayed where they ran, so none is resumed here.
    """CREATE TABLE IF NOT EXISTS imported_runs (
    run_id TEXT PRIMARY KEY,
    imported_at DOUBLE PRECISION NOT NULL
)""",
    # Saved comparisons (the dashboard's Compare page): a named set of run ids, JSON lists.
    """CREATE TABLE IF NOT EXISTS comparisons (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    run_ids TEXT NOT NULL,
    allocations TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
)""",
    # The daily cap's ledger: one row per usage event that spends a user's calls.
    model_calls.TABLE,
    model_calls.INDEX,
]

APPEND_EVENT = "INSERT INTO events (run_id, seq, ts, type, body) VALUES (?, ?, ?, ?, ?)"
# The same, unless the log already ends: a writer that lost a race with a cancel (or with the run's
# end) adds nothing after it. One statement, so the check and the write see the same log.
APPEND_EVENT_WHILE_OPEN = (
    "INSERT INTO events (run_id, seq, ts, type, body)"
    " SELECT ?, CAST(? AS INTEGER), CAST(? AS DOUBLE PRECISION), ?, ?"
    " WHERE NOT EXISTS (SELECT 1 FROM events WHERE run_id = ? AND type IN ('run_finished', 'run_cancelled'))"
)
