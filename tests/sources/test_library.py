"""The local library: storage, FTS5 search, sample loading and the LibraryProvider."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from research.sources.library import index as library_index
from research.sources.library import library_store
from research.sources.library.library_store import Library, LibraryProvider, NewDocument
from research.sources.provider_base import ProviderError, SourceProvider

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "library"


def _add(lib: Library, title: str, text: str, kind: str = "web", **extra) -> int:
    return lib.add_document(title=title, text=text, kind=kind, url=extra.pop("url", f"test://{title}"), **extra)


@pytest.fixture
def stocked(library: Library) -> Library:
    _add(library, "Surface codes", "Quantum error correction with surface codes protects qubits.", "academic",
         authors=["Ada Lovelace"], year=2021)  # fmt: skip
    _add(library, "Quantum computing for beginners", "A gentle web page about quantum computers.", "web")
    _add(library, "Bees in the city", "Urban beekeeping and honey from rooftop hives.", "web")
    _add(library, "The quantum age", "A book on the history of quantum physics.", "book")
    return library


def test_search_ranks_matches_and_filters_by_kind(stocked: Library) -> None:
    hits = stocked.search("quantum error correction")
    assert [h.title for h in hits][0] == "Surface codes"  # three matching terms beat one
    assert {h.kind for h in hits} == {"academic", "web", "book"}
    assert all(hits[i].score >= hits[i + 1].score for i in range(len(hits) - 1))

    book_hits = stocked.search("quantum", kind="book")
    assert [(h.title, h.kind) for h in book_hits] == [("The quantum age", "book")]
    assert book_hits[0].text == "A book on the history of quantum physics."
    assert stocked.search("honey", kind="academic") == []


def test_search_respects_the_limit(stocked: Library) -> None:
    assert len(stocked.search("quantum", limit=2)) == 2
    assert stocked.search("quantum", limit=0) == []


def test_search_stems_so_word_forms_match(stocked: Library) -> None:
    assert [h.title for h in stocked.search("hive", kind="web")] == ["Bees in the city"]
    assert [h.title for h in stocked.search("protecting qubit", kind="academic")] == ["Surface codes"]


def test_search_matches_title_and_authors(stocked: Library) -> None:
    assert [h.title for h in stocked.search("Lovelace")] == ["Surface codes"]


@pytest.mark.parametrize(
    "query",
    ['"', '""', "AND OR", "AND", "NOT", "c++", "-x", "a:b", "title:quantum", "🐝🐝", "", "   ", "NEAR(quantum",
     "quantum*", "^quantum", "(quantum", "quantum)", "{title}: x", "'; DROP TABLE documents; --", "\\", "\x00"],
)  # fmt: skip
def test_search_never_raises_on_odd_queries(stocked: Library, query: str) -> None:
    hits = stocked.search(query)
    assert isinstance(hits, list)
    assert stocked.counts()["web"] == 2  # and nothing was dropped


def test_operators_and_punctuation_are_plain_words(stocked: Library) -> None:
    # '-' is not negation, ':' is not a column filter, '*' is not a prefix: each is just the word.
    for query in ("-quantum", "title:quantum", "quantum*", '"quantum', "NOT quantum", "NEAR(quantum"):
        assert "The quantum age" in [h.title for h in stocked.search(query, kind="book")], query
    assert stocked.search("🐝") == []
    assert stocked.search("") == []


def test_random_unicode_queries_never_raise(stocked: Library) -> None:
    rng = random.Random(7)
    alphabet = "abcXYZ \"'*:^-+()[]{}<>.,;!?\\/|&%$#@~`" + "éßøæ漢字カナ한글ДЖ🐝\u200b\u0301\u00ad٣"
    for _ in range(300):
        query = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        stocked.search(query)
        stocked.search(query, kind="web")


def test_unknown_kind_is_an_error(stocked: Library) -> None:
    with pytest.raises(ValueError, match="(?i)unknown library kind"):
        stocked.search("quantum", kind="video")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        _add(stocked, "x", "y", kind="video")


def test_add_document_dedupes_by_url_and_reindexes_the_new_text(library: Library) -> None:
    first = _add(library, "Old title", "Elephants are large.", url="https://example.org/a")
    second = _add(library, "New title", "Giraffes are tall.", url="https://example.org/a")
    assert first == second
    assert library.counts() == {"web": 1, "academic": 0, "book": 0}
    assert library.search("elephants") == []  # the old text left the index
    assert [h.title for h in library.search("giraffes")] == ["New title"]


def test_an_update_can_move_a_document_to_another_kind(library: Library) -> None:
    _add(library, "Moving", "Otters hold hands.", kind="web", url="u://otter")
    _add(library, "Moving", "Otters hold hands.", kind="book", url="u://otter")
    assert library.search("otters", kind="web") == []
    assert [h.kind for h in library.search("otters", kind="book")] == ["book"]


def test_documents_without_url_get_a_stable_one(library: Library) -> None:
    a = library.add_document(title="T", text="Walruses.", kind="web")
    b = library.add_document(title="T", text="Walruses.", kind="web")
    assert a == b and library.search("walruses")[0].url.startswith("library://doc/")


def test_empty_text_is_refused(library: Library) -> None:
    with pytest.raises(ValueError, match="no text"):
        library.add_document(title="Empty", text="  \n", kind="web")


def test_delete_document_removes_it_from_search_and_counts(stocked: Library) -> None:
    hit = stocked.search("honey")[0]
    assert stocked.delete_document(hit.id) is True
    assert stocked.search("honey") == []
    assert stocked.counts()["web"] == 1
    assert stocked.delete_document(hit.id) is False


def test_get_text_and_get_document(stocked: Library) -> None:
    hit = stocked.search("honey")[0]
    assert stocked.get_text(hit.id) == "Urban beekeeping and honey from rooftop hives."
    doc = stocked.get_document(hit.id)
    assert doc is not None and doc.title == "Bees in the city" and doc.chars == len(doc.text)
    with pytest.raises(KeyError):
        stocked.get_text(10_000)
    assert stocked.get_document(10_000) is None


def test_list_documents_pages_newest_first_without_text(stocked: Library) -> None:
    titles = [d.title for d in stocked.list_documents()]
    assert titles == ["The quantum age", "Bees in the city", "Quantum computing for beginners", "Surface codes"]
    assert [d.title for d in stocked.list_documents(kind="web")] == titles[1:3]
    assert [d.title for d in stocked.list_documents(limit=2, offset=1)] == titles[1:3]
    first = stocked.list_documents(kind="academic")[0]
    assert first.text == "" and first.chars > 0 and first.authors == ["Ada Lovelace"] and first.year == 2021


def test_counts_lists_every_kind(library: Library) -> None:
    assert library.counts() == {"web": 0, "academic": 0, "book": 0}


def test_data_survives_a_new_instance(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    first = Library(path)
    _add(first, "Persisted", "Narwhals have tusks.")
    first.close()
    assert [h.title for h in Library(path).search("narwhal")] == ["Persisted"]


# --- the query planner for large libraries ---------------------------------------------------------


def test_common_terms_are_not_ranked_when_rare_ones_exist(library: Library, monkeypatch) -> None:
    monkeypatch.setattr(library_index, "COMMON_TERM_DOCS", 5)
    docs = [NewDocument(title=f"Filler {i}", text=f"energy policy report number {i}", kind="web") for i in range(20)]
    docs.append(NewDocument(title="Tidal", text="energy from tidal lagoons", kind="web"))
    library.add_documents(docs)
    hits = library.search("tidal energy policy", kind="web", limit=3)
    assert [h.title for h in hits] == ["Tidal"]  # ranked on the rare term alone
    assert hits[0].score > 0


def test_all_common_terms_are_ranked_within_the_newest_window(library: Library, monkeypatch) -> None:
    monkeypatch.setattr(library_index, "COMMON_TERM_DOCS", 5)
    monkeypatch.setattr(library_index, "COMMON_WINDOW", 3)
    # "Both 0" would win overall (most repeats), but only the newest 3 with both terms are ranked.
    docs = [NewDocument(title="Both 0", text="energy policy " * 5, kind="web")]
    docs += [NewDocument(title=f"Both {i}", text="energy policy filler words here", kind="web") for i in range(1, 10)]
    docs[8] = NewDocument(title="Both 8", text="energy policy energy policy", kind="web")
    docs += [NewDocument(title=f"One {i}", text="energy alone", kind="web") for i in range(10)]
    docs += [NewDocument(title=f"Other {i}", text="policy alone", kind="web") for i in range(10)]
    library.add_documents(docs)
    hits = library.search("energy policy", kind="web", limit=5)
    assert [h.title for h in hits] == ["Both 8", "Both 9", "Both 7"] or [h.title for h in hits] == [
        "Both 8", "Both 7", "Both 9",
    ]  # fmt: skip
    assert hits[0].score > hits[1].score


def test_all_common_terms_that_never_meet_fall_back_to_any(library: Library, monkeypatch) -> None:
    monkeypatch.setattr(library_index, "COMMON_TERM_DOCS", 5)
    docs = [NewDocument(title=f"One {i}", text="energy alone", kind="web") for i in range(10)]
    docs += [NewDocument(title=f"Other {i}", text="policy alone", kind="web") for i in range(10)]
    library.add_documents(docs)
    assert len(library.search("energy policy", kind="web", limit=4)) == 4


def test_the_bm25_budget_keeps_the_rarest_terms(monkeypatch) -> None:
    monkeypatch.setattr(library_index, "COMMON_TERM_DOCS", 100)
    monkeypatch.setattr(library_index, "RANKED_POSTINGS_BUDGET", 50)
    chosen = library_index._rankable(["a", "b", "c", "d", "e"], [40, 5, 30, 0, 101])
    assert chosen == ["b", "c"]  # rarest first within budget; absent (0) and common (101) dropped
    assert library_index._rankable(["a"], [90]) == ["a"]  # the rarest rare term always fits


# --- threads --------------------------------------------------------------------------------------


def test_concurrent_searches_and_writes_from_many_threads(stocked: Library) -> None:
    errors: list[BaseException] = []
    results: list[int] = []

    def reader() -> None:
        try:
            for _ in range(30):
                results.append(len(stocked.search("quantum", kind="book")))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def writer() -> None:
        try:
            for i in range(30):
                _add(stocked, f"Extra {i}", f"Walrus fact number {i}.", url=f"test://extra/{i}")
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(6)] + [threading.Thread(target=writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == [1] * 180
    assert stocked.counts()["web"] == 32


# --- shipped samples ------------------------------------------------------------------------------


def test_ensure_sample_loads_once_and_skips_bad_files(library: Library, caplog) -> None:
    assert library.ensure_sample(FIXTURES) == 3
    assert library.counts() == {"web": 1, "academic": 1, "book": 1}
    assert "no-kind.md" in caplog.text
    assert library.ensure_sample(FIXTURES) == 0
    assert library.counts() == {"web": 1, "academic": 1, "book": 1}
    hit = library.search("surface codes", kind="academic")[0]
    assert hit.sample and hit.url == "library://sample/quantum/surface-codes"
    assert hit.authors == ["Ada Lovelace", "Alan Turing"] and hit.year == 2021
    assert hit.publisher == "Journal of Imaginary Physics" and hit.topic == "quantum"
    assert "#" not in hit.text and hit.text.startswith("Surface codes")


def test_ensure_sample_does_not_reparse_when_the_marker_matches(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "lib.sqlite"
    Library(path).ensure_sample(FIXTURES)

    def fail(_: Path) -> None:
        raise AssertionError("sample files were parsed again")

    monkeypatch.setattr(library_store, "read_sample_file", fail)
    assert Library(path).ensure_sample(FIXTURES) == 0  # a new instance trusts the stored marker


def test_ensure_sample_follows_changed_and_removed_files(library: Library, tmp_path: Path) -> None:
    samples = tmp_path / "samples"
    shutil.copytree(FIXTURES, samples)
    library.ensure_sample(samples)
    user_id = _add(library, "Mine", "Honey cake recipe.", url="user://mine")

    bees = samples / "urban-beekeeping.md"
    bees.write_text(bees.read_text().replace("rooftop", "balcony"))
    os.utime(bees, ns=(1, 1))  # a different mtime even on coarse clocks
    (samples / "medieval-trade.md").unlink()
    assert library.ensure_sample(samples) == 2
    assert library.search("balcony", kind="web")[0].title == "A Beginner's Guide to Urban Beekeeping"
    assert library.search("rooftop") == []
    assert library.search("hanseatic") == []  # the removed sample went
    assert library.get_text(user_id) == "Honey cake recipe."  # user documents are never touched


def test_ensure_sample_loads_the_shipped_library(library: Library) -> None:
    library.ensure_sample()
    counts = library.counts()
    assert all(counts[kind] > 0 for kind in ("web", "academic", "book")), counts
    assert all(d.sample for d in library.list_documents(limit=1000))


# --- the provider ---------------------------------------------------------------------------------


def test_library_provider_returns_sources_with_snippets_and_texts(library: Library) -> None:
    library.ensure_sample(FIXTURES)
    provider = LibraryProvider(library, "academic")
    assert isinstance(provider, SourceProvider) and provider.name == "library"

    retrieval = provider.search("decoders keep pace with hardware", limit=3)
    assert retrieval.providers_used == ["library"]
    [source] = retrieval.sources
    assert source.kind == "academic" and source.provider == "library"
    assert source.url == "library://sample/quantum/surface-codes"
    assert source.title == "Surface Codes and Quantum Error Correction"
    assert source.authors == ["Ada Lovelace", "Alan Turing"] and source.year == 2021
    assert source.score > 0 and source.query == "decoders keep pace with hardware"
    assert "Decoders must keep pace with the hardware." in source.snippet
    assert "fragile" not in source.snippet  # an unrelated sentence is left out
    assert retrieval.texts[source.id].startswith("Surface codes")
    assert "Faster decoders reduce the backlog" in retrieval.texts[source.id]


def test_library_provider_stays_in_its_kind_and_answers_empty(library: Library) -> None:
    library.ensure_sample(FIXTURES)
    assert LibraryProvider(library, "book").search("decoders qubits", limit=5).sources == []
    with pytest.raises(ValueError):
        LibraryProvider(library, "video")  # type: ignore[arg-type]


def test_library_provider_turns_database_errors_into_provider_errors(tmp_path: Path) -> None:
    path = tmp_path / "broken.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    provider = LibraryProvider(Library(path), "web")
    for _ in range(2):  # and again: no half-opened connection is left behind to fail differently
        with pytest.raises(ProviderError, match="library"):
            provider.search("anything", limit=3)


def test_sqlite_has_fts5() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a)")


# --- schema upgrades ------------------------------------------------------------------------------


def test_an_older_database_is_upgraded_and_reindexed(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = Library(path)
    _add(old, "Kept", "Puffins nest on cliffs.", kind="book")
    old.close()
    conn = sqlite3.connect(path)  # wind it back to schema 1: no all-kinds index
    conn.executescript(
        "DROP TABLE documents_fts_all; DROP VIEW documents_all; DROP TRIGGER documents_fts_all_ai;"
        "DROP TRIGGER documents_fts_all_ad; DROP TRIGGER documents_fts_all_au; PRAGMA user_version = 1;"
    )
    conn.close()
    upgraded = Library(path)
    assert [h.title for h in upgraded.search("puffins")] == ["Kept"]  # found through the rebuilt index
    assert [h.title for h in upgraded.search("puffins", kind="book")] == ["Kept"]
    _add(upgraded, "New", "Puffins eat sand eels.", kind="web")
    assert {h.title for h in upgraded.search("puffins")} == {"Kept", "New"}


def test_the_first_schema_with_one_shared_index_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "v0.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE documents (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL,
            url TEXT NOT NULL UNIQUE, authors TEXT NOT NULL DEFAULT '[]', year INTEGER,
            publisher TEXT NOT NULL DEFAULT '', topic TEXT NOT NULL DEFAULT '',
            sample INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL, chars INTEGER NOT NULL DEFAULT 0,
            added_at REAL NOT NULL DEFAULT 0);
        CREATE VIRTUAL TABLE documents_fts USING fts5(kind, title, authors, text,
            content='documents', content_rowid='id');
        CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
            INSERT INTO documents_fts (rowid, kind, title, authors, text)
            VALUES (new.id, new.kind, new.title, new.authors, new.text);
        END;
        INSERT INTO documents (kind, title, url, text) VALUES ('web', 'Old', 'u://old', 'Kestrels hover.');
        """
    )
    conn.close()
    library = Library(path)
    assert [h.title for h in library.search("kestrels", kind="web")] == ["Old"]
    _add(library, "Newer", "Kestrels hunt voles.")
    names = {row[0] for row in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert "documents_fts" not in names and "documents_ai" not in names
