"""Shared text utilities: words, tokens, sentences, BM25 ranking and best-sentence snippets.

Pure Python and deterministic. The local library uses them for snippets; the offline brain uses
them to pick and rank sentences. `tokenize` is the one normaliser both sides of a comparison must
go through (query and document), so its light stemming only has to be consistent, not linguistic.

Kept hand-written after measuring the libraries (bench/libraries.py, README "Libraries we use"):
PyStemmer regroups words (other rankings, other relevance), bm25s scores the same but is slower on
these small corpora and has no exact-IDF prefilter, and pysbd splits the same cases ~190x slower.

The package: tokens (words, stopwords, stemming), sentences (splitting), bm25 (ranking) and
snippets (best sentences). Import from `research.text`; the names below are its interface.
"""

from __future__ import annotations

from research.text.bm25 import BM25
from research.text.sentences import _blocks as _blocks  # bench/libraries.py splits the same blocks with pysbd
from research.text.sentences import split_sentences
from research.text.snippets import ScoredSentence, best_snippet, top_sentences
from research.text.tokens import STOPWORDS, stem, tokenize, words

__all__ = [
    "BM25",
    "STOPWORDS",
    "ScoredSentence",
    "best_snippet",
    "split_sentences",
    "stem",
    "tokenize",
    "top_sentences",
    "words",
]
