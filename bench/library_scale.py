"""Figure 5: library scale. Import time and search latency (p50 / p95) of the local library with
1,000, 10,000 and 100,000 synthetic documents (quick mode: the first two).

Documents are ~100 words drawn from a 20,000-word vocabulary with a Zipf distribution (so, as in
real text, a few terms are everywhere and most are rare); queries mix rare, middling and common
terms and half of them are a real document's title words. Searches are what a researcher runs:
one kind, five results, through `Library.search`.
"""

from __future__ import annotations

import random
import string
from itertools import accumulate
from pathlib import Path
from typing import Any

from bench.harness import BenchContext, Stopwatch, log, percentile, rounded
from research.sources.library.library_store import Library, NewDocument

SIZES_FULL = (1_000, 10_000, 100_000)
SIZES_QUICK = (1_000, 10_000)
VOCABULARY = 20_000
WORDS_PER_DOC = 100
QUERIES = 200
KINDS = ("web", "academic", "book")
TARGET_P50_MS = 10.0


def vocabulary(rng: random.Random, size: int = VOCABULARY) -> list[str]:
    """Distinct pronounceable pseudo-words (no stopwords, no stemming collisions to speak of)."""
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        n = rng.randint(2, 4)
        syllables = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(n))
        words.add(syllables + rng.choice(string.ascii_lowercase[:6]))
    return sorted(words)


class Corpus:
    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng)
        self.rng.shuffle(self.words)  # rank order: words[0] is the most frequent
        self.cum_weights = list(accumulate(1.0 / (rank + 1) for rank in range(len(self.words))))

    def sample(self, k: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cum_weights, k=k)

    def documents(self, n: int) -> list[NewDocument]:
        docs = []
        for i in range(n):
            body = self.sample(WORDS_PER_DOC)
            sentences = [" ".join(body[j : j + 12]).capitalize() + "." for j in range(0, len(body), 12)]
            docs.append(
                NewDocument(
                    title=" ".join(self.sample(5)).title(),
                    text=" ".join(sentences),
                    kind=KINDS[i % 3],
                    url=f"https://bench.example.org/doc/{i}",
                    year=1950 + i % 70,
                )
            )
        return docs

    def queries(self, docs: list[NewDocument], n: int = QUERIES) -> list[tuple[str, str]]:
        """(query, kind) pairs: half a document's title words, half 2-4 terms of mixed frequency."""
        out = []
        for i in range(n):
            if i % 2:
                doc = docs[self.rng.randrange(len(docs))]
                out.append((" ".join(doc.title.split()[:3]), doc.kind))
            else:
                ranks = [int(self.rng.random() ** 2 * len(self.words)) for _ in range(self.rng.randint(2, 4))]
                out.append((" ".join(self.words[r] for r in ranks), KINDS[i % 3]))
        return out


def measure_size(root: Path, corpus: Corpus, size: int) -> dict[str, float]:
    docs = corpus.documents(size)
    queries = corpus.queries(docs)
    library = Library(root / f"library-{size}.sqlite")
    try:
        with Stopwatch() as imported:
            library.add_documents(docs)
        for query, kind in queries[:20]:  # warm the page cache and the connection
            library.search(query, kind=kind, limit=5)
        latencies = []
        hits = 0
        for query, kind in queries:
            with Stopwatch() as sw:
                found = library.search(query, kind=kind, limit=5)
            latencies.append(sw.seconds * 1000)
            hits += bool(found)
    finally:
        library.close()
    return {
        "import_seconds": rounded(imported.seconds, 2),
        "query_p50_ms": rounded(percentile(latencies, 50), 2),
        "query_p95_ms": rounded(percentile(latencies, 95), 2),
        "query_max_ms": rounded(max(latencies), 2),
        "queries_with_hits": hits,
        "queries": len(queries),
    }


def measure(ctx: BenchContext, sizes: tuple[int, ...] | None = None) -> dict[str, Any]:
    sizes = sizes or (SIZES_QUICK if ctx.quick else SIZES_FULL)
    root = ctx.scratch("library")
    corpus = Corpus()
    results: dict[str, Any] = {}
    for size in sizes:
        results[str(size)] = measure_size(root, corpus, size)
        r = results[str(size)]
        log(
            f"library {size:,} docs: import {r['import_seconds']} s, "
            f"p50 {r['query_p50_ms']} ms, p95 {r['query_p95_ms']} ms"
        )
    return {
        "library": results,
        "library_details": {
            "words_per_doc": WORDS_PER_DOC,
            "vocabulary": VOCABULARY,
            "queries": QUERIES,
            "search": "Library.search(query, kind=..., limit=5)",
            "target_p50_ms_at_100k": TARGET_P50_MS,
        },
    }
