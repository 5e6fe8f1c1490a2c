"""Bounded memos for the pure text functions a run calls over and over on the same documents.

The analyst, the writer, the claim check and the router's relevance judge all tokenise and split
the same stored texts (each source once per question, per section, per check). On two shared
cores that repeated CPU work sits between the model calls on the critical path, so a text is
tokenised and split once and the answer reused. The functions are pure: a memo changes no
result, only when the work is done (tests/text/test_memo.py compares every cached answer with
the uncached one).

Bounded twice: short texts (sentences, titles, queries) and documents are kept apart, each up to a
length and a count (least recently used dropped first), and a longer text is never kept, so an
upload of hostile text cannot grow the memo: at most SHORT and LONG answers, about 25 MB.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# (answers kept, longest text kept): a run's sentences and its stored documents.
SHORT = (16_384, 512)
LONG = (512, 20_000)

_enabled = True
_clears: list[Callable[[], None]] = []
_sizes: list[Callable[[], int]] = []


def enabled() -> bool:
    return _enabled


@contextmanager
def uncached() -> Iterator[None]:
    """Compute everything afresh inside (to compare a run's output with and without the memos)."""
    global _enabled
    previous, _enabled = _enabled, False
    clear()
    try:
        yield
    finally:
        _enabled = previous


def clear() -> None:
    for cache_clear in _clears:
        cache_clear()


def kept() -> int:
    """How many answers the memos hold now (texts and words)."""
    return sum(size() for size in _sizes)


def memo_list(fn: Callable[[str], list[T]]) -> Callable[[str], list[T]]:
    """Memoise `fn(text) -> list`: each caller gets its own new list (callers may change theirs)."""

    def frozen(text: str) -> tuple[T, ...]:
        return tuple(fn(text))

    short = functools.lru_cache(maxsize=SHORT[0])(frozen)
    long = functools.lru_cache(maxsize=LONG[0])(frozen)
    _clears.extend((short.cache_clear, long.cache_clear))
    _sizes.extend((lambda: short.cache_info().currsize, lambda: long.cache_info().currsize))

    @functools.wraps(fn)
    def call(text: str) -> list[T]:
        if _enabled:
            if len(text) <= SHORT[1]:
                return list(short(text))
            if len(text) <= LONG[1]:
                return list(long(text))
        return fn(text)

    return call


def memo_pure(maxsize: int, max_chars: int = LONG[1]) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Memoise a pure function of strings whose answer is immutable (a frozen dataclass): calls
    whose strings add up to more than `max_chars` are computed and not kept."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        kept = functools.lru_cache(maxsize=maxsize)(fn)
        _clears.append(kept.cache_clear)
        _sizes.append(lambda: kept.cache_info().currsize)

        @functools.wraps(fn)
        def call(*args: str) -> R:
            if _enabled and sum(map(len, args)) <= max_chars:
                return kept(*args)
            return fn(*args)

        return call

    return wrap


class WordMemo:
    """A word -> key map for per-word functions called hundreds of thousands of times a run (stems):
    a plain dict lookup, cheaper than any wrapper. Full at `maxsize` words: then it keeps what it
    has and computes the rest; words over `max_chars` are never kept."""

    def __init__(self, fn: Callable[[str], str], maxsize: int = 200_000, max_chars: int = 40) -> None:
        self.fn = fn
        self.maxsize = maxsize
        self.max_chars = max_chars
        self.known: dict[str, str] = {}
        _clears.append(self.known.clear)
        _sizes.append(lambda: len(self.known))

    def __call__(self, word: str) -> str:
        key = self.known.get(word)
        if key is not None:
            return key
        key = self.fn(word)
        if _enabled and len(word) <= self.max_chars and len(self.known) < self.maxsize:
            self.known[word] = key
        return key
