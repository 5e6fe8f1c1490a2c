"""Keeps bench/libraries.py from rotting, and pins the facts its decisions rest on: the library
BM25 (bm25s) ranks the sample library as ours does, and our splitter passes every splitter case.
No timing is asserted: benchmarks are not tests."""

from __future__ import annotations

import pytest

from bench import libraries
from bench.harness import BenchContext
from research.text import sentences


@pytest.fixture(scope="module")
def docs() -> list[tuple[str, str]]:
    return libraries._sample_documents()


def test_bm25s_ranks_the_sample_library_like_our_bm25(docs) -> None:
    pytest.importorskip("bm25s")
    piece = libraries._bm25(docs, repeats=1)
    check = piece["check"]
    assert check["same_top5_bm25s"] == check["queries"] == 4 + len(docs)
    assert check["max_relative_score_difference_bm25s"] < 1e-6
    assert piece["decision"] == "own" and piece["ratio"] > 0


def test_split_and_stem_checks_count_the_test_cases(docs) -> None:
    pytest.importorskip("pysbd")
    pytest.importorskip("Stemmer")
    sentences = libraries._sentences(docs[:4], repeats=1)["check"]
    assert sentences["own_cases_passed"] == sentences["split_cases"] == len(libraries.SPLIT_CASES)
    stemming = libraries._stemming(docs[:4], repeats=1)["check"]
    assert stemming["own_cases_passed"] == stemming["stem_cases"]
    assert stemming["library_cases_passed"] < stemming["stem_cases"]  # Porter2: studies -> "studi"


def test_our_splitter_is_timed_without_its_memo(docs, monkeypatch) -> None:
    """The memo keeps each text's split, so a timed repeat of the same documents would time a
    lookup (the figure once read 4e4x): every timed call must split every document again."""
    pytest.importorskip("pysbd")
    split: list[str] = []
    blocks = sentences._blocks
    monkeypatch.setattr(sentences, "_blocks", lambda text: split.append(text) or blocks(text))
    work: list[int] = []
    timed = libraries._time

    def counting(fn, repeats):
        before = len(split)
        seconds = timed(fn, repeats)
        work.append(len(split) - before)
        return seconds

    monkeypatch.setattr(libraries, "_time", counting)
    few = docs[:3]
    libraries._sentences(few, repeats=3)
    assert work[0] == (1 + 3) * len(few)  # our splitter's timing: a warm-up and 3 repeats, all split afresh


def test_the_figure_reports_every_piece(tmp_path) -> None:
    for name in ("bm25s", "pysbd", "Stemmer", "snowballstemmer", "pyrate_limiter", "pybreaker", "rank_bm25"):
        pytest.importorskip(name)
    figure = libraries.measure(BenchContext(quick=True, root=tmp_path))["libraries"]
    assert set(figure) == {"retries", "rate_limiter", "circuit_breaker", "stemming", "bm25", "sentences"}
    assert all("ratio" in piece and "decision" in piece for piece in figure.values())
    assert figure["retries"]["check"]["backoff_within_jitter_bounds"]
