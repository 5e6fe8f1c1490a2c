"""Best sentences: the sentences of one or more texts that best match a query (BM25), and snippets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from research.text.bm25 import top_for_query
from research.text.sentences import split_sentences
from research.text.tokens import _fold, tokenize


class ScoredSentence(NamedTuple):
    text_index: int  # which of the given texts it came from
    sentence_index: int  # its position in that text
    sentence: str
    score: float


_PREFILTER_FROM = 64  # sentences; below this, ranking everything is cheaper than filtering


def _probe(token: str) -> str:
    """A substring every word that tokenizes to `token` contains (stems are prefixes, bar -ies -> -y)."""
    return token if len(token) <= 3 else token[:-1]


def _rank(query_tokens: list[str], located: list[tuple[int, int, str]], k: int) -> list[ScoredSentence]:
    candidates = located
    if len(located) >= _PREFILTER_FROM:
        # Long texts (books): tokenise only sentences that can hold a query term. Every sentence
        # with a query term survives, so document frequencies, and hence IDFs, stay exact.
        probes = {_probe(token) for token in query_tokens}
        candidates = [item for item in located if any(p in _fold(item[2]) for p in probes)]
    token_lists = [tokenize(sentence) for _, _, sentence in candidates]
    average = sum(map(len, token_lists)) / len(token_lists) if token_lists else 0.0
    ranking = top_for_query(token_lists, query_tokens, k, total_docs=len(located), avg_length=average)
    return [ScoredSentence(*candidates[i], score) for i, score in ranking]


def top_sentences(query: str, texts: Sequence[str], k: int = 5) -> list[ScoredSentence]:
    """The k sentences across `texts` that best match `query` by BM25, best first."""
    query_tokens = tokenize(query)
    if not query_tokens or k <= 0:
        return []
    located = [
        (text_index, sentence_index, sentence)
        for text_index, text in enumerate(texts)
        for sentence_index, sentence in enumerate(split_sentences(text))
    ]
    return _rank(query_tokens, located, k)


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars // 2 else cut).rstrip(" ,;:") + "…"


def best_snippet(query: str, text: str, *, max_chars: int = 600, max_sentences: int = 3) -> str:
    """The sentences of `text` that best match `query`, kept in reading order, within max_chars.

    Falls back to the opening of the text when no sentence shares a term with the query.
    """
    sentences = split_sentences(text)
    if not sentences:
        return ""
    query_tokens = tokenize(query)
    located = [(0, i, sentence) for i, sentence in enumerate(sentences)]
    ranked = _rank(query_tokens, located, max_sentences) if query_tokens and max_sentences > 0 else []
    if not ranked:
        return _clip(" ".join(sentences[:max_sentences]), max_chars)
    chosen: list[ScoredSentence] = []
    used = 0
    for item in ranked:  # best first, so the best sentence always gets in
        cost = len(item.sentence) + (1 if chosen else 0)
        if chosen and used + cost > max_chars:
            continue
        chosen.append(item)
        used += cost
    chosen.sort(key=lambda item: item.sentence_index)
    return _clip(" ".join(item.sentence for item in chosen), max_chars)
