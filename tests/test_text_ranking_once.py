"""`top_for_query` (one query's BM25 ranking, only its terms counted) equals the full index's `top`
bit for bit: the same scores, order and ties, on random corpora and on the sample library."""

from __future__ import annotations

import random
from pathlib import Path

from research.text import BM25, split_sentences, tokenize
from research.text.bm25 import top_for_query

SAMPLE_LIBRARY = Path(__file__).resolve().parent.parent / "research" / "data" / "sample_library"


def test_random_corpora_rank_the_same_to_the_last_bit() -> None:
    rng = random.Random(25)
    vocabulary = [f"t{i}" for i in range(12)]  # small, so terms repeat and scores tie
    for _ in range(400):
        corpus = [rng.choices(vocabulary, k=rng.randint(0, 9)) for _ in range(rng.randint(0, 30))]
        query = rng.choices(vocabulary + ["absent"], k=rng.randint(0, 5))
        k = rng.randint(0, 8)
        total = rng.choice([None, len(corpus) + rng.randint(0, 20)])
        average = rng.choice([None, rng.uniform(0.5, 9.0)])
        expected = BM25(corpus, total_docs=total, avg_length=average).top(query, k)
        assert top_for_query(corpus, query, k, total_docs=total, avg_length=average) == expected


def test_the_sample_library_ranks_the_same_for_its_own_titles() -> None:
    docs = [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_LIBRARY.rglob("*.md"))]
    sentences = [tokenize(s) for d in docs for s in split_sentences(d)]
    titles = [line.split(":", 1)[1] for d in docs for line in d.splitlines() if line.startswith("title:")]
    queries = titles + ["mRNA vaccine lipid nanoparticles", "printing press Europe"]
    hits = 0
    for query in queries:
        tokens = tokenize(query)
        expected = BM25(sentences).top(tokens, 10)
        assert top_for_query(sentences, tokens, 10) == expected
        hits += bool(expected)
    assert hits > len(queries) // 2  # the queries really match sentences
