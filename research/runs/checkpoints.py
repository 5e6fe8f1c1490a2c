"""The in-process graph's checkpointer: SQLite in the data dir, or Postgres with RESEARCH_DATABASE_URL.

Both go through SecretMaskingSerializer (known secret values never reach a checkpoint) and the
serializer's allow-list of the project's state types.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver, Checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from research.graph.serde_types import STATE_TYPES
from research.runs.blob_saver import BlobSqliteSaver
from research.runs.sql import corrupt_store, is_corruption
from research.secrets import mask
from research.settings import Settings

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg_pool import ConnectionPool

_PG_SETUP_DONE: set[str] = set()
_PG_SETUP_LOCK = threading.Lock()
PG_SETUP_ADVISORY_LOCK = 0x52534401  # two processes running the saver's migrations at once must not race


class SecretMaskingSerializer(JsonPlusSerializer):
    """The checkpoint serializer, masking known secret values in every blob it writes.

    LangGraph checkpoints a failed task's exception text (its `__error__` write), and exception
    texts are where echoed keys end up. The mask keeps each byte length (msgpack frames strings by
    length), so a checkpoint still decodes: it reads '****' where a key was. A JsonPlusSerializer
    itself, so LangGraph's `with_allowlist` (a server graph's allow-list) derives a masking copy.
    """

    MIN_SECRET_BYTES = 8  # shorter values could match unrelated bytes and corrupt a checkpoint

    def __init__(self, secrets: list[str]) -> None:
        super().__init__(allowed_msgpack_modules=STATE_TYPES)
        self._texts = [s for s in secrets if len(s.encode()) >= self.MIN_SECRET_BYTES]
        self._secrets = [s.encode() for s in self._texts]

    def dumps_typed(self, obj: object) -> tuple[str, bytes]:
        type_, data = super().dumps_typed(obj)
        for secret in self._secrets:
            data = data.replace(secret, b"*" * len(secret))
        return type_, data

    def mask_inline_values(self, checkpoint: Checkpoint) -> Checkpoint:
        """The checkpoint with secrets masked in its plain string channels (the topic, ...), which
        the Postgres savers store as JSONB beside the blobs, without this serializer."""
        values = checkpoint["channel_values"]
        if not self._texts or not any(isinstance(v, str) for v in values.values()):
            return checkpoint
        masked = {k: mask(v, self._texts) if isinstance(v, str) else v for k, v in values.items()}
        return {**checkpoint, "channel_values": masked}


def serializer(settings: Settings) -> SecretMaskingSerializer:
    return SecretMaskingSerializer(settings.secret_values())


@contextmanager
def open_checkpointer(settings: Settings) -> Iterator[BaseCheckpointSaver[str]]:
    if settings.database_url:
        with _postgres(settings) as saver:
            yield saver
        return
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(settings.checkpoints_db, check_same_thread=False, timeout=30)
    # WAL (set by SqliteSaver.setup) with synchronous=NORMAL, as in the run store: a commit is
    # not fsynced. With FULL every checkpoint write fsynced the WAL while holding the saver's
    # one lock (1.1 ms a commit on a quiet disk, far more on a busy one), and every step of
    # every researcher writes one. A power cut may lose the last checkpoints (the run resumes
    # from an earlier one), never corrupt the file.
    try:
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA schema_version")  # reads the header: a damaged file fails here, by name
        yield BlobSqliteSaver(conn, serde=serializer(settings))
    except sqlite3.DatabaseError as exc:
        if not is_corruption(exc):
            raise
        raise corrupt_store(settings.checkpoints_db, "checkpoint store", exc) from None
    finally:
        conn.close()


@contextmanager
def _postgres(settings: Settings) -> Iterator[BaseCheckpointSaver[str]]:
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from research.runs.postgres_savers import MaskingPostgresSaver

    url = settings.database_url.get_secret_value()  # type: ignore[union-attr]
    # A pool, not one connection: parallel researcher branches write checkpoints at once. The
    # saver needs autocommit and no server-side prepared statements (its documented settings).
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=4,
        open=True,
        name="research-checkpoints",
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    try:
        saver = MaskingPostgresSaver(pool, serde=serializer(settings))  # type: ignore[arg-type]
        _setup_once(saver, pool, url)
        yield saver
    finally:
        pool.close()


def _setup_once(saver: PostgresSaver, pool: ConnectionPool[Any], url: str) -> None:
    with _PG_SETUP_LOCK:
        if url in _PG_SETUP_DONE:
            return
        with pool.connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (PG_SETUP_ADVISORY_LOCK,))
            try:
                saver.setup()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (PG_SETUP_ADVISORY_LOCK,))
        _PG_SETUP_DONE.add(url)
