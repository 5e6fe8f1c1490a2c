"""One work, one source: which records name the same work, and which of them to keep.

The same paper arrives as arXiv `abs/1706.03762`, as `abs/1706.03762v5`, as OpenAlex's
`doi.org/10.48550/arXiv.1706.03762` or its journal DOI, and under the same title and year from
another provider. Every record gets a set of identity keys (URL without arXiv version, arXiv id,
DOI, normalised title + year); records sharing any key are one work. The richest record is kept
(longer snippet or text, more authors, a year), with what it lacks filled in from the others.
The choice does not depend on arrival order, so the graph's reducer and the run view agree.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

from research.schemas.state_shapes import Source
from research.schemas.urls import normalise_url

T = TypeVar("T")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/((?:[a-z-]+(?:\.[a-z]{2})?/\d{7})|\d{4}\.\d{4,5})(?:v\d+)?", re.I)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+?)(?:v\d+)?$", re.I)
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.I)
_MIN_TITLE_WORDS = 4  # "Introduction" (2019) is many works; a four-word title and a year is one


def arxiv_id(source: Source) -> str | None:
    return _arxiv_id(source.url, getattr(source, "doi", None))


def _arxiv_id(url: str, doi: str | None) -> str | None:
    match = _ARXIV_URL.search(url or "")
    if match:
        return match.group(1).lower()
    for candidate in _dois_of(url, doi):
        arxiv = _ARXIV_DOI.match(candidate)
        if arxiv:
            return arxiv.group(1).lower()
    return None


def work_keys(source: Source) -> frozenset[str]:
    """Every key that identifies the work behind `source` (any shared key = the same work)."""
    return _keys(source.id, source.url, source.doi, source.title, source.year)


@functools.lru_cache(maxsize=16384)  # the reducer asks again for every source at every merge
def _keys(source_id: str, url: str, doi: str | None, title: str, year: int | None) -> frozenset[str]:
    keys: set[str] = set()
    arxiv = _arxiv_id(url, doi)
    if arxiv:
        keys.add(f"arxiv:{arxiv}")
    elif url:
        keys.add(f"url:{normalise_url(url)}")
    else:
        keys.add(f"id:{source_id}")
    keys.update(f"doi:{d}" for d in _dois_of(url, doi) if not _ARXIV_DOI.match(d))
    title = normalised_title(title)
    if year and len(title.split()) >= _MIN_TITLE_WORDS:
        keys.add(f"title:{title}|{year}")
    return frozenset(keys)


def normalised_title(title: str) -> str:
    folded = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode().lower()
    return " ".join(re.findall(r"[a-z0-9]+", folded))


def richness(source: Source, text_chars: int = 0) -> tuple[int, int, bool, str]:
    """Bigger is richer; ties broken by id so the pick never depends on arrival order."""
    return (max(len(source.snippet), text_chars), len(source.authors), source.year is not None, source.id)


def merge_records(records: list[Source], text_chars: Callable[[Source], int] | None = None) -> Source:
    """The richest record of one work, with authors and year filled in from the others."""
    size = text_chars or (lambda s: 0)
    best = max(records, key=lambda s: richness(s, size(s)))
    update: dict[str, Any] = {}
    if not best.authors:
        authors = next((s.authors for s in records if s.authors), [])
        if authors:
            update["authors"] = list(authors)
    if best.year is None:
        year = next((s.year for s in records if s.year is not None), None)
        if year is not None:
            update["year"] = year
    return best.model_copy(update=update) if update else best


@overload
def group_works(sources: Iterable[Source]) -> list[list[Source]]: ...
@overload
def group_works(sources: Iterable[T], source_of: Callable[[T], Source]) -> list[list[T]]: ...
def group_works(sources: Iterable[Any], source_of: Callable[[Any], Source] = lambda s: s) -> list[list[Any]]:
    """Items grouped by work, groups in order of first appearance (a record bridging two groups
    joins them)."""
    groups: list[list[Any] | None] = []
    key_group: dict[str, int] = {}
    for item in sources:
        keys = work_keys(source_of(item))
        hits = sorted({key_group[k] for k in keys if k in key_group})
        if not hits:
            groups.append([item])
            index = len(groups) - 1
        else:
            index = hits[0]
            group = groups[index]
            assert group is not None  # key_group points only at live groups (a joined group's keys are re-pointed)
            group.append(item)
            for other in hits[1:]:  # this record shows two groups are one work
                joined = groups[other]
                assert joined is not None  # live for the same reason
                group.extend(joined)
                groups[other] = None
                for key, g in key_group.items():
                    if g == other:
                        key_group[key] = index
        for key in keys:
            key_group[key] = index
        # keys of every member point at the surviving group
    return [g for g in groups if g]


def dedupe_works(sources: Iterable[Source], texts: dict[str, str] | None = None) -> list[Source]:
    """One record per work, in order of each work's first appearance."""
    chars = (lambda s: len(texts.get(s.id, ""))) if texts else None
    return [merge_records(group, chars) for group in group_works(sources)]


def add_works(existing: list[Source], new: Iterable[Source]) -> list[Source]:
    """`existing` (already one record per work) with `new` added: a record of a work already there
    merges into its place, any other is appended. Linear in the list, for the graph's reducer."""
    out = list(existing)
    index: dict[str, int] = {}
    for i, source in enumerate(out):
        for key in work_keys(source):
            index.setdefault(key, i)
    for source in new:
        keys = work_keys(source)
        hits = [index[k] for k in keys if k in index]
        if hits:
            at = min(hits)
            out[at] = merge_records([out[at], source])
        else:
            out.append(source)
            at = len(out) - 1
        for key in keys | work_keys(out[at]):
            index.setdefault(key, at)
    return out


def _dois_of(url: str, doi: str | None) -> list[str]:
    out = []
    match = _DOI_URL.match(url or "")
    if match:
        out.append(match.group(1).lower().rstrip("/"))
    if doi:
        out.append(re.sub(r"(?i)^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi.strip()).lower().rstrip("/"))
    return out


class WorkIndex:
    """The same rule, one record at a time (for folding a run's events into its view)."""

    def __init__(self) -> None:
        self._work_of: dict[str, str] = {}  # identity key -> id of the record kept for that work
        self._records: dict[str, Source] = {}
        self._keys: dict[str, set[str]] = {}

    def add(self, source: Source) -> tuple[Source, str | None]:
        """(the record kept for this work, the id it replaces or updates, None for a new work)."""
        keys = set(work_keys(source))
        same = next((self._work_of[k] for k in sorted(keys) if k in self._work_of), None)
        if same is None:
            self._register(source, keys)
            return source, None
        merged = merge_records([self._records[same], source])
        keys |= self._keys.pop(same)
        del self._records[same]
        self._register(merged, keys)
        return merged, same

    def _register(self, source: Source, keys: set[str]) -> None:
        self._records[source.id] = source
        self._keys[source.id] = keys
        for key in keys:
            self._work_of[key] = source.id
