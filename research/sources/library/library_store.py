"""The local library: a SQLite store of documents searched with FTS5's bm25 ranking.

It is the offline source for every researcher kind (web / academic / book): the shipped sample
documents, plus whatever the user imports. One connection per thread (WAL mode) lets several
researcher threads read at once; writes are serialised by a lock.

Search runs inside SQLite (an FTS5 index per kind and one for all kinds, bm25 ranking and LIMIT in SQL; see
library_index.py for the query planner); only the top rows are read back from `documents`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from research.relevance.passages import carried_text
from research.schemas.researchers import RESEARCHER_KINDS, ResearcherKind
from research.schemas.state_shapes import SNIPPET_CHARS, Source
from research.sources.library.documents import LibraryDocument, LibraryHit, NewDocument
from research.sources.library.index import fts_table, migrate, query_terms, ranked_ids
from research.sources.library.readers import read_sample_file
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.reliability import library_facts
from research.text import best_snippet

log = logging.getLogger(__name__)

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "sample_library"

MAX_CARRIED_CHARS = 200_000  # = Settings.max_source_text_chars' default
_META_COLUMNS = "id, kind, title, url, authors, year, publisher, topic, sample, chars"


def _check_kind(kind: str) -> ResearcherKind:
    checked = cast(ResearcherKind, kind)
    fts_table(checked)  # raises ValueError for an unknown kind, so past it `kind` is a ResearcherKind
    return checked


def default_url(title: str, text: str) -> str:
    digest = hashlib.sha1(f"{title}\n{text}".encode("utf-8", "replace")).hexdigest()[:16]
    return f"library://doc/{digest}"


class Library:
    """The document store. Safe to share between threads; each thread gets its own connection."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        # Weak, so a finished thread's connection (held by its thread-local) is freed and closed.
        self._connections: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._registry_lock = threading.Lock()
        self._write_lock = threading.RLock()
        self._schema_ready = False
        self._sample_fingerprint: str | None = None

    # --- connections ---------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread=False only so close() can close every thread's connection;
            # each connection is otherwise used by the one thread that opened it. Autocommit
            # (isolation_level=None): writes open their own explicit transaction.
            conn = sqlite3.connect(
                self.path, timeout=30.0, check_same_thread=False, isolation_level=None, factory=_Connection
            )
            try:
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA busy_timeout = 30000")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                self._ensure_schema(conn)
            except BaseException:
                conn.close()  # a broken file: no half-set-up connection stays behind
                raise
            self._local.conn = conn
            with self._registry_lock:
                self._connections.add(conn)
        return conn

    def _ensure_schema(self, conn: sqlite3.Connection) -> None:
        if self._schema_ready:
            return
        with self._write_lock:
            if not self._schema_ready:
                migrate(conn)
                self._schema_ready = True

    def close(self) -> None:
        with self._registry_lock:
            for conn in list(self._connections):
                with contextlib.suppress(sqlite3.Error):  # closing is best effort
                    conn.close()
            self._connections.clear()
        self._local = threading.local()

    def _write(self) -> _WriteTransaction:
        return _WriteTransaction(self._conn(), self._write_lock)

    # --- writing ---------------------------------------------------------------------------

    def add_document(
        self,
        *,
        title: str,
        text: str,
        kind: ResearcherKind,
        url: str = "",
        authors: Iterable[str] = (),
        year: int | None = None,
        publisher: str = "",
        topic: str = "",
        sample: bool = False,
    ) -> int:
        """Store one document and return its id. A document whose url is already stored is
        updated in place (same id): url is the dedupe key."""
        doc = NewDocument(
            title=title, text=text, kind=kind, url=url, authors=list(authors), year=year,
            publisher=publisher, topic=topic, sample=sample,
        )  # fmt: skip
        return self.add_documents([doc])[0]

    def add_documents(self, docs: Iterable[NewDocument]) -> list[int]:
        """Store many documents in one transaction (bulk import, sample loading, benchmarks)."""
        ids: list[int] = []
        with self._write() as conn:
            for doc in docs:
                ids.append(self._upsert(conn, doc))
        return ids

    @staticmethod
    def _upsert(conn: sqlite3.Connection, doc: NewDocument) -> int:
        kind = _check_kind(doc.kind)
        title = " ".join(doc.title.split()) or "Untitled"
        text = doc.text.strip()
        if not text:
            raise ValueError(f"Document {title!r} has no text")
        url = doc.url.strip() or default_url(title, text)
        authors = json.dumps([a.strip() for a in doc.authors if a and a.strip()], ensure_ascii=False)
        values = (kind, title, authors, doc.year, doc.publisher.strip(), doc.topic.strip(),
                  int(doc.sample), text, len(text), time.time())  # fmt: skip
        row = conn.execute("SELECT id FROM documents WHERE url = ?", (url,)).fetchone()
        if row is not None:
            conn.execute(
                "UPDATE documents SET kind=?, title=?, authors=?, year=?, publisher=?, topic=?,"
                " sample=?, text=?, chars=?, added_at=? WHERE id=?",
                (*values, row[0]),
            )
            return int(row[0])
        cur = conn.execute(
            "INSERT INTO documents (kind, title, authors, year, publisher, topic, sample, text,"
            " chars, added_at, url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*values, url),
        )
        return int(cur.lastrowid or 0)

    def delete_document(self, doc_id: int) -> bool:
        """Remove a document; True if it existed."""
        with self._write() as conn:
            return conn.execute("DELETE FROM documents WHERE id = ?", (int(doc_id),)).rowcount > 0

    # --- reading ---------------------------------------------------------------------------

    def search(self, query: str, *, kind: ResearcherKind | None = None, limit: int = 5) -> list[LibraryHit]:
        """The best `limit` documents for free-text `query`, best first. Never raises on odd
        query text (quotes, operators, emoji, empty); an unknown kind is a ValueError."""
        if kind is not None:
            _check_kind(kind)
        terms = query_terms(query)
        if not terms or limit <= 0:
            return []
        conn = self._conn()
        ranked = ranked_ids(conn, kind, terms, limit)
        if not ranked:
            return []
        marks = ", ".join("?" * len(ranked))
        rows = conn.execute(
            f"SELECT {_META_COLUMNS}, text FROM documents WHERE id IN ({marks})", [i for i, _ in ranked]
        ).fetchall()
        by_id = {row["id"]: row for row in rows}
        return [
            LibraryHit(**_document_fields(by_id[i]), text=by_id[i]["text"], score=score)
            for i, score in ranked
            if i in by_id
        ]

    def get_text(self, doc_id: int) -> str:
        row = self._conn().execute("SELECT text FROM documents WHERE id = ?", (int(doc_id),)).fetchone()
        if row is None:
            raise KeyError(f"No library document with id {doc_id}")
        return str(row[0])

    def get_document(self, doc_id: int) -> LibraryDocument | None:
        row = (
            self._conn().execute(f"SELECT {_META_COLUMNS}, text FROM documents WHERE id = ?", (int(doc_id),)).fetchone()
        )
        return LibraryDocument(**_document_fields(row), text=row["text"]) if row else None

    def counts(self) -> dict[str, int]:
        """Documents per kind, every kind present (0 when none)."""
        out: dict[str, int] = {kind: 0 for kind in RESEARCHER_KINDS}
        for kind, n in self._conn().execute("SELECT kind, COUNT(*) FROM documents GROUP BY kind"):
            out[kind] = int(n)
        return out

    def list_documents(
        self, kind: ResearcherKind | None = None, limit: int = 50, offset: int = 0
    ) -> list[LibraryDocument]:
        """Documents newest first, without their text (see `chars` for its length)."""
        where, params = ("WHERE kind = ?", [_check_kind(kind)]) if kind else ("", [])
        rows = (
            self._conn()
            .execute(
                f"SELECT {_META_COLUMNS} FROM documents {where} ORDER BY id DESC LIMIT ? OFFSET ?",
                (*params, int(limit), int(offset)),
            )
            .fetchall()
        )
        return [LibraryDocument(**_document_fields(row)) for row in rows]

    # --- shipped samples -------------------------------------------------------------------

    def ensure_sample(self, directory: Path | None = None) -> int:
        """Load the shipped sample documents unless already loaded; returns how many were written.

        Cheap when nothing changed: the sample files' names, sizes and mtimes form a fingerprint
        stored in the database, so files are parsed only on first use or after they change.
        Sample documents whose file has gone are removed; user documents are never touched.
        """
        directory = Path(directory) if directory else SAMPLE_DIR
        files = sorted(directory.glob("*.md")) if directory.is_dir() else []
        fingerprint = _fingerprint(directory, files)
        if fingerprint == self._sample_fingerprint:
            return 0
        conn = self._conn()
        stored = conn.execute("SELECT value FROM meta WHERE key = 'sample_fingerprint'").fetchone()
        if stored is not None and stored[0] == fingerprint:
            self._sample_fingerprint = fingerprint
            return 0

        docs: list[NewDocument] = []
        for path in files:
            try:
                docs.append(read_sample_file(path))
            except Exception as exc:  # one bad sample file must not hide the others
                log.warning("Skipping sample library file %s: %s", path.name, exc)
        with self._write() as conn:
            for doc in docs:
                self._upsert(conn, doc)
            keep = {doc.url for doc in docs}
            gone = [row[0] for row in conn.execute("SELECT id, url FROM documents WHERE sample = 1")
                    if row[1] not in keep]  # fmt: skip
            conn.executemany("DELETE FROM documents WHERE id = ?", [(i,) for i in gone])
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('sample_fingerprint', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (fingerprint,),
            )
        self._sample_fingerprint = fingerprint
        return len(docs)


class _Connection(sqlite3.Connection):
    """A plain connection that can be weakly referenced (sqlite3.Connection itself cannot)."""


class _WriteTransaction:
    """`with library._write() as conn:` — the write lock plus one IMMEDIATE transaction."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        self.conn = conn
        self.lock = lock

    def __enter__(self) -> sqlite3.Connection:
        self.lock.acquire()
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.lock.release()
            raise
        return self.conn

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.lock.release()


def _document_fields(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": int(row["id"]),
        "kind": row["kind"],
        "title": row["title"],
        "url": row["url"],
        "authors": json.loads(row["authors"] or "[]"),
        "year": row["year"],
        "publisher": row["publisher"],
        "topic": row["topic"],
        "sample": bool(row["sample"]),
        "chars": int(row["chars"]),
    }


def _fingerprint(directory: Path, files: list[Path]) -> str:
    digest = hashlib.sha1(str(directory.resolve()).encode())
    for path in files:
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class LibraryProvider:
    """The library as a SourceProvider for one researcher kind (name "library")."""

    name = "library"

    def __init__(self, library: Library, kind: ResearcherKind, *, max_text_chars: int = MAX_CARRIED_CHARS) -> None:
        self.library = library
        self.kind = _check_kind(kind)
        self.max_text_chars = max_text_chars

    def search(self, query: str, *, limit: int) -> Retrieval:
        try:
            hits = self.library.search(query, kind=self.kind, limit=limit)
        except sqlite3.Error as exc:
            raise ProviderError(self.name, f"library search failed ({type(exc).__name__}: {exc})") from exc
        retrieval = Retrieval(providers_used=[self.name])
        for hit in hits:
            text = carried_text(query, hit.text, self.max_text_chars)  # the library keeps the rest
            source = Source(
                kind=self.kind,
                provider=self.name,
                url=hit.url,
                title=hit.title,
                authors=hit.authors,
                year=hit.year,
                snippet=best_snippet(query, text, max_chars=SNIPPET_CHARS),
                score=hit.score,
                query=query,
                facts=library_facts(self.kind, hit.publisher),
            )
            retrieval.sources.append(source)
            retrieval.texts[source.id] = text
        return retrieval
