"""One small dialect layer under the run store: SQLite (embedded default) or Postgres (shared runs).

The store writes one SQL text for both: `?` placeholders (rewritten to `%s` for psycopg),
`ON CONFLICT` upserts (SQLite >= 3.24 and Postgres both), DOUBLE PRECISION timestamps (REAL affinity
in SQLite, 8 bytes in Postgres where REAL would be 4). Each operation is one transaction, committed
on success and rolled back on an error.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from research.secrets import mask, mask_url, url_secrets

if TYPE_CHECKING:
    import psycopg

Dialect = Literal["sqlite", "postgres"]
_PG_SCHEMA_LOCK = 0x52534400  # advisory lock id: two replicas creating the tables at once must not race


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Tx(Protocol):
    # Positional-only, and executemany's result unused: sqlite3.Connection is a Tx as it stands.
    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Cursor: ...
    def executemany(self, sql: str, rows: Sequence[Sequence[Any]], /) -> object: ...


class DuplicateKeyError(Exception):
    """A row with that key is already there (an INSERT that must not replace)."""


class DatabaseUnavailable(RuntimeError):
    """The configured database cannot be reached (message names the host, never the password)."""


class CorruptStoreError(DatabaseUnavailable):
    """A store file that is not a readable SQLite database (damaged, truncated to 0 bytes, or some
    other file); the message names the file and what to do."""


def corrupt_store(path: Path, what: str, exc: BaseException | None = None) -> CorruptStoreError:
    detail = f" ({str(exc).strip()[:120]})" if exc is not None else ""
    return CorruptStoreError(
        f"{path} is not a readable {what}{detail}: move it aside (or restore it from a backup) and start again"
    )


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """ "file is not a database", "database disk image is malformed": the file, not the query.
    (IntegrityError, OperationalError such as a lock timeout, and the rest are subclasses.)"""
    return type(exc) is sqlite3.DatabaseError


class SqliteDatabase:
    dialect: Dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self.label = str(self.path)

    def create_schema(self, statements: list[str]) -> None:
        """The tables, in a file that is either a complete store or absent: a new store is made
        beside it and linked into place, so a 0-byte file is never one of ours (it is refused, not
        silently read as an empty store)."""
        if not self.path.exists():
            self._create_file(statements)
        if self.path.stat().st_size == 0:
            raise corrupt_store(self.path, "run store (it is empty, 0 bytes)")
        with self.transaction() as tx:
            tx.execute("PRAGMA journal_mode=WAL")
            for statement in statements:
                tx.execute(statement)

    def _create_file(self, statements: list[str]) -> None:
        fresh = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}.new")
        db = sqlite3.connect(fresh)
        try:
            with db:
                for statement in statements:
                    db.execute(statement)
        finally:
            db.close()
        try:
            os.link(fresh, self.path)  # atomic, and never replaces a store another process made first
        except FileExistsError:
            pass
        finally:
            fresh.unlink()

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """This thread's connection, inside one transaction.

        Connections are kept per thread, not opened per operation: closing the last connection to a
        WAL database checkpoints and fsyncs it, which made every event append cost ~20 ms on the
        thread that drives the graph. synchronous=NORMAL is WAL's usual setting: a commit is not
        fsynced (a power cut may lose the last events, never corrupt the log).
        """
        db = getattr(self._local, "db", None)
        try:
            if db is None:
                db = sqlite3.connect(self.path, timeout=30)
                db.row_factory = sqlite3.Row
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("PRAGMA secure_delete=ON")  # a deleted run's text is overwritten, not left in free pages
                self._local.db = db  # closed when the thread (or this store) goes away
            with db:
                yield db  # sqlite3.Connection has execute/executemany with `?` placeholders
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" not in str(exc):
                raise
            raise DuplicateKeyError(str(exc)) from exc
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise
            raise corrupt_store(self.path, "run store", exc) from None

    def empty_wal(self) -> None:
        """Checkpoint and truncate the write-ahead log: frames from before a delete still hold the
        deleted pages (best effort: a reader elsewhere may keep the log until it is done)."""
        with self.transaction():
            pass  # opens this thread's connection if it has none
        self._local.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None


class _PgTx:
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        return self._conn.execute(_pg(sql), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._conn.cursor() as cur:
            cur.executemany(_pg(sql), rows)


_PLACEHOLDER = re.compile(r"\?")
_PG_CACHE: dict[str, str] = {}


def _pg(sql: str) -> str:
    out = _PG_CACHE.get(sql)
    if out is None:
        out = _PG_CACHE[sql] = _PLACEHOLDER.sub("%s", sql)
    return out


class PostgresDatabase:
    dialect: Dialect = "postgres"

    def __init__(self, url: str, *, max_connections: int = 8, connect_timeout: float = 10.0) -> None:
        import psycopg
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        self._errors = psycopg
        self.label = mask_url(url)
        try:  # one direct attempt first: a refused or wrong URL fails at once, not after the pool's wait
            psycopg.connect(url, connect_timeout=int(connect_timeout)).close()
        except psycopg.Error as exc:
            raise DatabaseUnavailable(
                f"cannot reach the run database {self.label}: {driver_reason(exc, url)}"
            ) from None
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            open=False,
            name="research-runs",
            kwargs={"row_factory": dict_row, "connect_timeout": int(connect_timeout)},
        )
        self._pool.open()
        try:
            self._pool.wait(timeout=connect_timeout)
        except Exception as exc:  # psycopg_pool.PoolTimeout, or a refused/failed connection
            self._pool.close()
            raise DatabaseUnavailable(f"cannot reach the run database {self.label}: {type(exc).__name__}") from None

    def create_schema(self, statements: list[str]) -> None:
        with self.transaction() as tx:
            tx.execute("SELECT pg_advisory_xact_lock(?)", (_PG_SCHEMA_LOCK,))
            for statement in statements:
                tx.execute(statement)

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self._pool.connection(timeout=30) as conn:  # commits on success, rolls back on error
            try:
                yield _PgTx(conn)
            except self._errors.errors.UniqueViolation as exc:
                raise DuplicateKeyError(str(exc).splitlines()[0]) from exc

    def close(self) -> None:
        self._pool.close()


def driver_reason(exc: BaseException, url: str) -> str:
    """A driver error's last line without the DSN: libpq quotes the URL, or a piece of it (a bad
    percent-escape, an unknown query parameter), in its messages."""
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    if mask_url(url).endswith("(unparsable URL, hidden)"):
        return f"{type(exc).__name__} (the URL does not parse)"
    return mask(text.splitlines()[-1][:200], [url, *url_secrets(url)])


def open_database(target: Path | str) -> SqliteDatabase | PostgresDatabase:
    """A postgresql:// URL opens Postgres; anything else is a SQLite file path."""
    if isinstance(target, str) and target.startswith(("postgresql://", "postgres://")):
        return PostgresDatabase(target)
    return SqliteDatabase(Path(target))
