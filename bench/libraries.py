"""Figure 8: our own machinery vs the maintained library that does the same job, as ratios.

For each piece, `ratio` is library time / own time on the same input (above 1: ours is faster), and
`check` says whether the library gives the same result (same top-5 ranking, same sentence split, the
stemming keys the tests assert). `decision` records what the code uses: "library" where it does the
job as well, "own" where ours is measurably better (the figures say how).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from bench.harness import REPO_ROOT, BenchContext, FigureSkipped, log, median, rounded
from research import text as own_text
from research.sources import http as http_core
from research.sources.library.library_store import SAMPLE_DIR
from research.sources.library.readers import markdown_to_text, split_front_matter
from research.sources.rate_limits import RateLimiter
from research.sources.retrying import RetryableFailure, backoff_wait, retrying
from research.sources.router import CircuitBreaker
from research.text import memo

TOPICS = (
    "How do mRNA vaccines work?",
    "Rust vs Go for backend services",
    "How did Impressionism change painting?",
    "What was the impact of the printing press?",
)  # the sample library's topics (README)
# The splitter cases tests/test_text.py asserts (text, expected sentences).
SPLIT_CASES: list[tuple[str, list[str]]] = [
    (case["text"], case["sentences"])
    for case in json.loads((REPO_ROOT / "tests" / "fixtures" / "sentence_splits.json").read_text(encoding="utf-8"))[
        "cases"
    ]
]
# The word-form groups tests/test_text.py asserts one key for (key, forms).
STEM_CASES = [
    ("model", ["model", "models"]),
    ("study", ["study", "studies"]),
    ("class", ["class", "classes"]),
    ("box", ["box", "boxes"]),
    ("match", ["match", "matches"]),
    ("learn", ["learn", "learning", "learns"]),
    ("run", ["run", "running", "runs"]),
]


def _time(fn: Callable[[], Any], repeats: int) -> float:
    """Median seconds of one call of `fn` over `repeats` runs (after one warm-up)."""
    fn()
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
    return median(walls)


def _time_uncached(fn: Callable[[], Any], repeats: int) -> float:
    """`_time` with the text memos off: our tokenize, stem and split keep their answers
    (research/text/memo.py), so timing the same input again would time a dictionary lookup."""
    with memo.uncached():
        return _time(fn, repeats)


def _piece(decision: str, own: float, library: float, unit: str, **check: Any) -> dict[str, Any]:
    scale = {"us": 1e6, "ms": 1e3}[unit]
    return {
        "decision": decision,
        f"own_{unit}": rounded(own * scale),
        f"library_{unit}": rounded(library * scale),
        "ratio": rounded(library / own if own else 0.0),
        "check": check,
    }


def _sample_documents() -> list[tuple[str, str]]:
    docs = []
    for path in sorted(Path(SAMPLE_DIR).glob("*.md")):
        meta, body = split_front_matter(path.read_text(encoding="utf-8"))
        docs.append((meta.get("title", path.stem), markdown_to_text(body)))
    if not docs:
        raise FigureSkipped(f"no sample library in {SAMPLE_DIR}")
    return docs


# --- retries ------------------------------------------------------------------------------------


def _retries(repeats: int) -> dict[str, Any]:
    """tenacity's loop vs the hand loop it replaced (same shape: attempts, back-off, final error),
    per call that fails twice then succeeds (sleeps recorded, not waited) and per call whose first
    attempt succeeds, and the whole
    request_with_retries on an in-memory transport vs a bare client.get."""

    def flaky() -> Callable[[], str]:
        left = [2]

        def attempt() -> str:
            if left[0]:
                left[0] -= 1
                raise RetryableFailure("HTTP 503")
            return "ok"

        return attempt

    policy = http_core.HttpPolicy(retries=3)
    waits: list[float] = []

    def hand_loop() -> str:
        attempt = flaky()
        for number in range(1, 4):
            try:
                return attempt()
            except RetryableFailure:
                if number == 3:
                    raise
                waits.append(policy.backoff(number))
        raise AssertionError

    def with_tenacity() -> str:
        attempt = flaky()
        loop = retrying(
            provider="bench", attempts=3, backoff=backoff_wait(0.5, 8.0), retry_after_cap=30.0, sleep=waits.append
        )
        for try_ in loop:
            with try_:
                return attempt()
        raise AssertionError

    def first_try_tenacity() -> str:
        loop = retrying(
            provider="bench", attempts=3, backoff=backoff_wait(0.5, 8.0), retry_after_cap=30.0, sleep=waits.append
        )
        for try_ in loop:
            with try_:
                return "ok"
        raise AssertionError

    def first_try_hand() -> str:
        for _number in range(1, 4):
            try:
                return "ok"
            except RetryableFailure:
                continue
        raise AssertionError

    calls = 200
    own_first = _time(lambda: [first_try_hand() for _ in range(calls)], repeats) / calls
    lib_first = _time(lambda: [first_try_tenacity() for _ in range(calls)], repeats) / calls
    own = _time(lambda: [hand_loop() for _ in range(calls)], repeats) / calls
    lib = _time(lambda: [with_tenacity() for _ in range(calls)], repeats) / calls
    waits.clear()
    with_tenacity()
    in_range = len(waits) == 2 and 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0

    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200, json={})))
    http_core.set_limiter("bench", concurrency=4, per_second=0)
    bare = _time(lambda: [client.get("http://bench.invalid/x") for _ in range(calls)], repeats) / calls
    core = (
        _time(
            lambda: [
                http_core.request_with_retries(
                    "GET", "http://bench.invalid/x", provider="bench", policy=policy, client=client
                )
                for _ in range(calls)
            ],
            repeats,
        )
        / calls
    )
    client.close()
    piece = _piece("library (tenacity)", own, lib, "us", backoff_within_jitter_bounds=in_range)
    piece["first_attempt_succeeds"] = {"own_us": rounded(own_first * 1e6), "library_us": rounded(lib_first * 1e6)}
    piece["request_overhead"] = {
        "bare_client_us": rounded(bare * 1e6),
        "request_with_retries_us": rounded(core * 1e6),
        "ratio": rounded(core / bare),
    }
    return piece


# --- rate limiter and circuit breaker -----------------------------------------------------------


def _gaps(acquire: Callable[[], Any], release: Callable[[], Any], starts_wanted: int) -> list[float]:
    starts: list[float] = []

    def work() -> None:
        acquire()
        starts.append(time.monotonic())
        release()

    threads = [threading.Thread(target=work) for _ in range(starts_wanted)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    starts.sort()
    return [b - a for a, b in zip(starts, starts[1:], strict=False)]


def _rate_limiter(repeats: int) -> dict[str, Any]:
    """Uncontended acquire+release, and the request spacing at 20 starts/s (target gap 50 ms)."""
    from pyrate_limiter import Duration, Limiter, Rate

    calls = 2000
    own = RateLimiter(concurrency=4, per_second=1e9)
    lib = Limiter(Rate(10**9, Duration.SECOND))
    own_s = _time(lambda: [(own.acquire(), own.release()) for _ in range(calls)], repeats) / calls
    lib_s = _time(lambda: [lib.try_acquire("bench") for _ in range(calls)], repeats) / calls
    spaced = RateLimiter(concurrency=4, per_second=20)
    own_gaps = _gaps(spaced.acquire, spaced.release, 6)
    paced = Limiter(Rate(1, 50))  # one per 50 ms window; it sleeps in steps of buffer_ms (50 ms)
    lib_gaps = _gaps(lambda: paced.try_acquire("bench"), lambda: None, 6)
    return _piece(
        "own",
        own_s,
        lib_s,
        "us",
        own_mean_gap_ms=rounded(1e3 * sum(own_gaps) / len(own_gaps)),
        library_mean_gap_ms=rounded(1e3 * sum(lib_gaps) / len(lib_gaps)),
        target_gap_ms=50.0,
        needs_beyond_library="refund of a start whose host did not resolve; the process-wide "
        "RESEARCH_RATE_LIMITS switch; the concurrency cap (a semaphore either way)",
    )


def _breaker(repeats: int) -> dict[str, Any]:
    """Is this provider's breaker open? (the router asks once per provider per query)."""
    import pybreaker

    calls = 5000
    own = CircuitBreaker(seconds=60.0)
    own.trip("arxiv")
    lib = {"arxiv": pybreaker.CircuitBreaker(fail_max=1, reset_timeout=60.0)}
    lib["arxiv"].open()
    own_s = _time(lambda: [own.is_open("arxiv") for _ in range(calls)], repeats) / calls
    lib_s = _time(lambda: [lib["arxiv"].current_state == pybreaker.STATE_OPEN for _ in range(calls)], repeats) / calls
    expired = CircuitBreaker(seconds=0.0)
    expired.trip("arxiv")
    lib_expired = pybreaker.CircuitBreaker(fail_max=1, reset_timeout=0.0)
    lib_expired.open()
    return _piece(
        "own",
        own_s,
        lib_s,
        "us",
        own_closed_after_timeout=not expired.is_open("arxiv"),
        library_closed_after_timeout=lib_expired.current_state != pybreaker.STATE_OPEN,
        note="pybreaker wraps calls and moves open -> half-open only on the next call; the router "
        "asks per provider name whether it failed in the last 60 s",
    )


# --- text: stemming, BM25, sentences --------------------------------------------------------------


def _stemming(docs: list[tuple[str, str]], repeats: int) -> dict[str, Any]:
    import snowballstemmer
    import Stemmer

    tokens = [w for _, body in docs for w in own_text.words(body) if w not in own_text.STOPWORDS]
    distinct = sorted(set(tokens))
    pystemmer, snowball = Stemmer.Stemmer("english"), snowballstemmer.stemmer("english")
    own_s = _time_uncached(lambda: [own_text.stem(w) for w in tokens], repeats)
    py_s = _time(lambda: pystemmer.stemWords(tokens), repeats)
    sb_s = _time(lambda: snowball.stemWords(tokens), repeats)
    tok_s = _time_uncached(lambda: [own_text.tokenize(body) for _, body in docs], repeats)

    def keys_pass(stem: Callable[[str], str]) -> int:
        return sum(1 for key, forms in STEM_CASES if {stem(form) for form in forms} == {key})

    py_stem = pystemmer.stemWord
    piece = _piece(
        "own",
        own_s,
        py_s,
        "ms",
        words=len(tokens),
        stem_cases=len(STEM_CASES),
        own_cases_passed=keys_pass(own_text.stem),
        library_cases_passed=keys_pass(py_stem),
        words_grouped_differently=rounded(_grouping_difference(distinct, own_text.stem, py_stem)),
        same_top5_with_library_stems=_same_top5_with(docs, py_stem),
        note="other keys regroup words, which changes the offline brain's and relevance's results "
        "(the other engineer's area) and the library's snippets",
    )
    piece["snowballstemmer_ms"] = rounded(sb_s * 1e3)
    piece["tokenize_sample_library_ms"] = rounded(tok_s * 1e3)
    piece["tokenize_words_per_s"] = round(len(tokens) / tok_s)
    return piece


def _grouping_difference(distinct: list[str], own: Callable[[str], str], lib: Callable[[str], str]) -> float:
    """Share of words whose group (the words sharing its key) differs between the two stemmers."""

    def groups(stem: Callable[[str], str]) -> dict[str, frozenset[str]]:
        by_key: dict[str, set[str]] = {}
        for word in distinct:
            by_key.setdefault(stem(word), set()).add(word)
        return {word: frozenset(by_key[stem(word)]) for word in distinct}

    own_groups, lib_groups = groups(own), groups(lib)
    return sum(own_groups[w] != lib_groups[w] for w in distinct) / len(distinct)


def _same_top5_with(docs: list[tuple[str, str]], stem: Callable[[str], str]) -> int:
    """Queries whose BM25 top 5 over the sample library stays the same when tokens use `stem`."""

    def tokenize(text: str) -> list[str]:
        return [stem(w) for w in own_text.words(text) if w not in own_text.STOPWORDS and (len(w) > 1 or w.isdigit())]

    texts = [f"{title} {body}" for title, body in docs]
    queries = (*TOPICS, *(title for title, _ in docs))
    own = own_text.BM25([own_text.tokenize(t) for t in texts])
    other = own_text.BM25([tokenize(t) for t in texts])
    return sum(_top(own.scores(own_text.tokenize(q))) == _top(other.scores(tokenize(q))) for q in queries)


def _queries(docs: list[tuple[str, str]]) -> list[list[str]]:
    return [own_text.tokenize(q) for q in (*TOPICS, *(title for title, _ in docs))]


def _bm25_libraries(corpus: list[list[str]]) -> tuple[Callable[[list[str]], list[float]], ...]:
    import bm25s
    import numpy as np
    from rank_bm25 import BM25Okapi

    index = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    index.index(corpus, show_progress=False)  # a list of token lists: its own vocabulary
    vocab = index.vocab_dict
    okapi = BM25Okapi(corpus, k1=1.5, b=0.75)

    def with_bm25s(query: list[str]) -> list[float]:
        ids = [vocab[t] for t in query if t in vocab]
        # Lucene's variant leaves out our (k1 + 1) factor, a constant: the ranking is unchanged.
        return list(np.asarray(index.get_scores_from_ids(ids)) * 2.5) if ids else [0.0] * len(corpus)

    return with_bm25s, lambda query: list(okapi.get_scores(query))


def _top(scores: list[float], k: int = 5) -> list[int]:
    ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    return ranked[:k]


def _bm25(docs: list[tuple[str, str]], repeats: int) -> dict[str, Any]:
    """Document ranking over the sample library (index + every query), and the offline brain's use:
    a small index of one document's sentences, built and queried once per document."""
    import bm25s

    corpus = [own_text.tokenize(f"{title} {body}") for title, body in docs]
    queries = _queries(docs)
    own = own_text.BM25(corpus)
    with_bm25s, with_okapi = _bm25_libraries(corpus)
    same_bm25s = sum(_top(own.scores(q)) == _top(with_bm25s(q)) for q in queries)
    same_okapi = sum(_top(own.scores(q)) == _top(with_okapi(q)) for q in queries)
    deviation = max(
        abs(a - b) / max(abs(a), 1e-9) for q in queries for a, b in zip(own.scores(q), with_bm25s(q), strict=False)
    )

    own_s = _time(
        lambda: [own_text.BM25(corpus).scores(q) for q in queries[:1]] + [own.scores(q) for q in queries], repeats
    )
    lib_s = _time(lambda: (_bm25_libraries(corpus)[0], [with_bm25s(q) for q in queries]), repeats)
    sentences = [[own_text.tokenize(s) for s in own_text.split_sentences(body)] for _, body in docs]
    query = queries[0]

    def own_sentences() -> None:
        for doc in sentences:
            own_text.BM25(doc).top(query, 3)

    def lib_sentences() -> None:
        for doc in sentences:
            index = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
            index.index(doc, show_progress=False)
            ids = [index.vocab_dict[t] for t in query if t in index.vocab_dict]
            if ids:
                index.get_scores_from_ids(ids)

    own_small, lib_small = _time(own_sentences, repeats), _time(lib_sentences, repeats)
    piece = _piece(
        "own",
        own_s,
        lib_s,
        "ms",
        queries=len(queries),
        same_top5_bm25s=same_bm25s,
        same_top5_rank_bm25=same_okapi,
        max_relative_score_difference_bm25s=rounded(deviation, 6),
        note="bm25s (Lucene variant) is the same formula; rank-bm25's Okapi IDF differs. Neither "
        "takes the full collection's size and mean length for a prefiltered subset, which keeps "
        "top_sentences' IDFs exact on books",
    )
    piece["per_document_sentences"] = {
        "own_ms": rounded(own_small * 1e3),
        "bm25s_ms": rounded(lib_small * 1e3),
        "ratio": rounded(lib_small / own_small),
    }
    return piece


def _sentences(docs: list[tuple[str, str]], repeats: int) -> dict[str, Any]:
    """Our splitter vs pysbd inside the same paragraph/heading/list blocks (pysbd splits prose only)."""
    import pysbd

    segmenter = pysbd.Segmenter(language="en", clean=False)

    def with_pysbd(text: str) -> list[str]:
        return [s.strip() for block in own_text._blocks(text) for s in segmenter.segment(block) if s.strip()]

    bodies = [body for _, body in docs]
    own_s = _time_uncached(lambda: [own_text.split_sentences(b) for b in bodies], repeats)
    lib_s = _time(lambda: [with_pysbd(b) for b in bodies], max(1, repeats // 2))
    own_pass = sum(own_text.split_sentences(t) == want for t, want in SPLIT_CASES)
    lib_pass = sum(with_pysbd(t) == want for t, want in SPLIT_CASES)
    same_docs = sum(own_text.split_sentences(b) == with_pysbd(b) for b in bodies)
    return _piece(
        "own",
        own_s,
        lib_s,
        "ms",
        split_cases=len(SPLIT_CASES),
        own_cases_passed=own_pass,
        library_cases_passed=lib_pass,
        sample_documents=len(bodies),
        same_split_documents=same_docs,
    )


def measure(ctx: BenchContext) -> dict[str, Any]:
    repeats = 3 if ctx.quick else 7
    docs = _sample_documents()
    pieces: dict[str, Any] = {}
    for name, fn in (
        ("retries", lambda: _retries(repeats)),
        ("rate_limiter", lambda: _rate_limiter(repeats)),
        ("circuit_breaker", lambda: _breaker(repeats)),
        ("stemming", lambda: _stemming(docs, repeats)),
        ("bm25", lambda: _bm25(docs, repeats)),
        ("sentences", lambda: _sentences(docs, repeats)),
    ):
        try:
            pieces[name] = fn()
        except ImportError as exc:  # a comparison library is missing: the other pieces still count
            pieces[name] = {"skipped": f"{exc}"}
        log(f"libraries {name}: {pieces[name]}")
    http_core.reset_limiters()
    return {"libraries": pieces}
