"""Okapi BM25 ranking over pre-tokenised documents, with an inverted index."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence


class BM25:
    """Okapi BM25 over pre-tokenised documents (k1=1.5, b=0.75 by default).

    An inverted index means scoring touches only the documents that share a query term.
    IDF uses the non-negative variant log(1 + (N - df + 0.5) / (df + 0.5)).
    """

    def __init__(
        self,
        corpus: Sequence[Sequence[str]],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        total_docs: int | None = None,
        avg_length: float | None = None,
    ) -> None:
        """`total_docs` / `avg_length` describe the full collection when `corpus` is only the part
        of it that can match (every document holding a query term): IDFs stay exact that way."""
        self.k1 = k1
        self.b = b
        self.size = len(corpus)
        self.lengths = [len(doc) for doc in corpus]
        self.total_docs = max(total_docs or 0, self.size)
        if avg_length is None:
            avg_length = (sum(self.lengths) / self.size) if self.size else 0.0
        self.avg_length = avg_length
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for index, doc in enumerate(corpus):
            for term, freq in Counter(doc).items():
                self._postings.setdefault(term, []).append((index, freq))
        self._idf = {
            term: math.log(1.0 + (self.total_docs - len(post) + 0.5) / (len(post) + 0.5))
            for term, post in self._postings.items()
        }

    def idf(self, term: str) -> float:
        return self._idf.get(term, 0.0)

    def scores(self, query_tokens: Sequence[str]) -> list[float]:
        """One score per document, in corpus order (0.0 where no query term occurs)."""
        out = [0.0] * self.size
        if not self.size or not self.avg_length:
            return out
        k1, b, avg = self.k1, self.b, self.avg_length
        for term, query_freq in Counter(query_tokens).items():
            idf = self._idf.get(term)
            if idf is None:
                continue
            for index, freq in self._postings[term]:
                norm = k1 * (1.0 - b + b * self.lengths[index] / avg)
                out[index] += query_freq * idf * freq * (k1 + 1.0) / (freq + norm)
        return out

    def top(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The k best (index, score) pairs with a positive score, best first; ties keep corpus order."""
        scored = [(i, s) for i, s in enumerate(self.scores(query_tokens)) if s > 0.0]
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k]


def top_for_query(
    corpus: Sequence[Sequence[str]],
    query_tokens: Sequence[str],
    k: int,
    *,
    k1: float = 1.5,
    b: float = 0.75,
    total_docs: int | None = None,
    avg_length: float | None = None,
) -> list[tuple[int, float]]:
    """`BM25(corpus, ...).top(query_tokens, k)` for a corpus ranked once, for one query: only the
    query's terms are counted (an index of every term costs more than the ranking it serves).
    The same sums in the same order, so the same scores to the last bit and the same ties."""
    size = len(corpus)
    lengths = [len(doc) for doc in corpus]
    total = max(total_docs or 0, size)
    if avg_length is None:
        avg_length = (sum(lengths) / size) if size else 0.0
    if not size or not avg_length:
        return []
    wanted = Counter(query_tokens)  # first occurrence order, as BM25.scores walks it
    postings: dict[str, list[tuple[int, int]]] = {term: [] for term in wanted}
    for index, doc in enumerate(corpus):
        counts: dict[str, int] = {}
        for term in doc:
            if term in postings:
                counts[term] = counts.get(term, 0) + 1
        for term, freq in counts.items():
            postings[term].append((index, freq))
    out = [0.0] * size
    for term, query_freq in wanted.items():
        post = postings[term]
        if not post:
            continue
        idf = math.log(1.0 + (total - len(post) + 0.5) / (len(post) + 0.5))
        for index, freq in post:
            norm = k1 * (1.0 - b + b * lengths[index] / avg_length)
            out[index] += query_freq * idf * freq * (k1 + 1.0) / (freq + norm)
    scored = [(i, s) for i, s in enumerate(out) if s > 0.0]
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:k]
