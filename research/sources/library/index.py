"""The library's SQL schema and its full-text query planner (SQLite FTS5, bm25 ranking).

One FTS5 index per kind (web / academic / book) plus one over every document, each an
external-content index over a view of the `documents` table, kept in sync by triggers. A search
touches only the index it needs, so the kind filter costs nothing (a kind filter inside one shared
index would make bm25 count every document of that kind on each query).

Why the planner: FTS5's bm25() first counts every row that contains each query term (to compute
its IDF) and then scores every matching row. A term found in tens of thousands of documents
therefore costs milliseconds on its own. So before ranking, each term's document frequency is
measured with a capped count (cheap: it stops at the cap), and only terms rare enough to be
informative are ranked. Common terms add little to BM25 anyway (their IDF is low). When every
term is common, ranking is confined to a window: the newest COMMON_WINDOW documents that contain
all of them (FTS5 seeks such a rowid range without reading the rest).
"""

from __future__ import annotations

import sqlite3

from research.schemas.researchers import RESEARCHER_KINDS, ResearcherKind
from research.text import STOPWORDS, words

MAX_QUERY_TERMS = 24  # bounds the cost of a pasted paragraph used as a query
COMMON_TERM_DOCS = 2000  # a term in more documents than this is not ranked on
RANKED_POSTINGS_BUDGET = 2000  # at most this many (term, document) pairs go through bm25()
MAX_COMMON_TERMS = 4  # when every term is common, rank on (at most) this many of them,
COMMON_SCAN_BUDGET = 60_000  # fewer in big libraries (bm25 scans each term's postings for its IDF),
COMMON_WINDOW = 500  # among the newest this-many documents that contain them
BM25_WEIGHTS = "4.0, 2.0, 1.0"  # title, authors, text

SCHEMA_VERSION = 2  # 1: per-kind indexes; 2: + the all-kinds index


def fts_table(kind: ResearcherKind | None) -> str:
    """The index to search: one per kind, and documents_fts_all for every kind at once."""
    if kind is None:
        return "documents_fts_all"
    if kind not in RESEARCHER_KINDS:
        raise ValueError(f"Unknown library kind {kind!r}: expected one of {', '.join(RESEARCHER_KINDS)}")
    return f"documents_fts_{kind}"


def _index_ddl(name: str, kind: str | None) -> str:
    """A view of the documents the index covers, the FTS5 index over it, and its sync triggers."""
    table = f"documents_fts_{name}"
    columns = "title, authors, text"
    old = "old.title, old.authors, old.text"
    new = "new.title, new.authors, new.text"
    where = f"kind = '{kind}'" if kind else "1"
    old_in, new_in = (f"old.{where}", f"new.{where}") if kind else ("1", "1")
    return f"""
CREATE VIEW IF NOT EXISTS documents_{name} AS SELECT id, title, authors, text FROM documents WHERE {where};
CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5 (
    {columns}, content = 'documents_{name}', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS {table}_ai AFTER INSERT ON documents WHEN {new_in} BEGIN
    INSERT INTO {table} (rowid, {columns}) VALUES (new.id, {new});
END;
CREATE TRIGGER IF NOT EXISTS {table}_ad AFTER DELETE ON documents WHEN {old_in} BEGIN
    INSERT INTO {table} ({table}, rowid, {columns}) VALUES ('delete', old.id, {old});
END;
-- One trigger per index for updates, so the old row is removed before the new one is added
-- (also right when an update moves a document from one kind to another).
CREATE TRIGGER IF NOT EXISTS {table}_au AFTER UPDATE ON documents BEGIN
    INSERT INTO {table} ({table}, rowid, {columns}) SELECT 'delete', old.id, {old} WHERE {old_in};
    INSERT INTO {table} (rowid, {columns}) SELECT new.id, {new} WHERE {new_in};
END;
"""


SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('web', 'academic', 'book')),
    title TEXT NOT NULL,
    url TEXT NOT NULL UNIQUE,
    authors TEXT NOT NULL DEFAULT '[]',  -- JSON list
    year INTEGER,
    publisher TEXT NOT NULL DEFAULT '',
    topic TEXT NOT NULL DEFAULT '',
    sample INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL,
    chars INTEGER NOT NULL DEFAULT 0,
    added_at REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_by_kind ON documents (kind, id);
CREATE INDEX IF NOT EXISTS documents_by_sample ON documents (sample);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
    + "".join(_index_ddl(kind, kind) for kind in RESEARCHER_KINDS)
    + _index_ddl("all", None)
)
_INDEXES = [f"documents_fts_{name}" for name in (*RESEARCHER_KINDS, "all")]
# Objects of earlier schemas (one shared index filtered by a kind column; per-kind indexes only).
_LEGACY = """
DROP TRIGGER IF EXISTS documents_ai;
DROP TRIGGER IF EXISTS documents_ad;
DROP TRIGGER IF EXISTS documents_au;
DROP TABLE IF EXISTS documents_fts;
"""


def migrate(conn: sqlite3.Connection) -> None:
    """Create the schema, or bring an older one up to date (indexes rebuilt from `documents`).

    Runs in one transaction; a database already at SCHEMA_VERSION costs one PRAGMA read."""
    if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return
    rebuild = "".join(f"INSERT INTO {t} ({t}) VALUES ('rebuild');\n" for t in _INDEXES)
    script = f"BEGIN IMMEDIATE;\n{_LEGACY}{SCHEMA}{rebuild}PRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;"
    try:
        conn.executescript(script)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def query_terms(query: str) -> list[str]:
    """Distinct search terms of free text, in order: letters/digits only, so quotes, FTS operators
    (AND/OR/NOT/NEAR), '-', ':', '*', '^' and brackets are inert. Stopwords are dropped unless
    they are all there is ("The Who")."""
    terms = list(dict.fromkeys(words(query or "")))
    content = [t for t in terms if t not in STOPWORDS]
    return (content or terms)[:MAX_QUERY_TERMS]


def _any_of(terms: list[str]) -> str:
    return " OR ".join(f'"{term}"' for term in terms)


def _all_of(terms: list[str]) -> str:
    return " AND ".join(f'"{term}"' for term in terms)


def _capped_counts(conn: sqlite3.Connection, table: str, terms: list[str]) -> list[int]:
    """Documents containing each term, counted up to COMMON_TERM_DOCS + 1 (so common terms are cheap)."""
    cap = COMMON_TERM_DOCS + 1
    part = f"(SELECT count(*) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT {cap}))"
    sql = "SELECT " + ", ".join([part] * len(terms))
    return list(conn.execute(sql, [f'"{t}"' for t in terms]).fetchone())


def _rankable(terms: list[str], counts: list[int]) -> list[str]:
    """The rarest terms whose postings fit the bm25 budget (the rarest rare term always fits)."""
    rare = sorted((n, i) for i, n in enumerate(counts) if 0 < n <= COMMON_TERM_DOCS)
    chosen: list[int] = []
    spent = 0
    for n, i in rare:
        if chosen and spent + n > RANKED_POSTINGS_BUDGET:
            break
        chosen.append(i)
        spent += n
    return [terms[i] for i in sorted(chosen)]


def _affordable_common_terms(conn: sqlite3.Connection) -> int:
    """How many common terms bm25 may rank on: each costs a scan of up to every document.

    max(id) is an O(1) upper bound of the document count (deletions only make it safer)."""
    (top,) = conn.execute("SELECT coalesce(max(id), 0) FROM documents").fetchone()
    return max(1, min(MAX_COMMON_TERMS, COMMON_SCAN_BUDGET // max(1, int(top))))


def _ranked(
    conn: sqlite3.Connection, table: str, expression: str, limit: int, since: int = 0
) -> list[tuple[int, float]]:
    """bm25-ranked (id, score) pairs for an FTS5 expression, among rowids >= `since`."""
    rows = conn.execute(
        f"SELECT rowid, -rank FROM {table} WHERE {table} MATCH ? AND rowid >= ?"
        f" AND rank MATCH 'bm25({BM25_WEIGHTS})' ORDER BY rank LIMIT ?",
        (expression, since, limit),
    ).fetchall()
    return [(int(rowid), float(score)) for rowid, score in rows]


def ranked_ids(
    conn: sqlite3.Connection, kind: ResearcherKind | None, terms: list[str], limit: int
) -> list[tuple[int, float]]:
    """The best `limit` (document id, score) pairs of one kind (None: every kind), best first."""
    if not terms or limit <= 0:
        return []
    table = fts_table(kind)
    counts = _capped_counts(conn, table, terms)
    chosen = _rankable(terms, counts)
    if chosen:
        return _ranked(conn, table, _any_of(chosen), limit)
    present = [t for t, n in zip(terms, counts, strict=True) if n][: _affordable_common_terms(conn)]
    if not present:
        return []
    # Every term is common: rank the newest documents that have them all (or, failing that, any).
    for expression in (_all_of(present), _any_of(present)):
        window = conn.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
            (expression, COMMON_WINDOW - 1),
        ).fetchone()
        if rows := _ranked(conn, table, expression, limit, since=window[0] if window else 0):
            return rows
    return []
