"""Source lists in the shapes tools and providers actually hand back, made into Sources.

Flat:     [{"title", "url", "snippet"}, ...]  (or one such dict, or {"results": [...]})
Grouped:  [{"source": "GitHub", "details": [{"repo", "url", "stars", "updated"}, ...]}, ...]
          (or {"web": [...], "academic": [...]})
Field names vary by tool, so common aliases are read (repo/name -> title, link/href -> url,
content/summary/description/body -> snippet, updated/published/date -> year). Everything is
bounded: at most MAX_ITEMS records, MAX_DEPTH levels of nesting; unreadable items are counted,
not fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import RunWarning, Source
from research.sources.provider_base import Retrieval

MAX_ITEMS = 200
MAX_DEPTH = 3
_TITLE = ("title", "name", "repo", "full_name", "headline")
_URL = ("url", "link", "href", "html_url")
_SNIPPET = ("snippet", "content", "summary", "description", "body", "abstract", "text")
_YEAR = ("year", "published", "published_date", "updated", "updated_at", "date")
_AUTHORS = ("authors", "author", "owner", "by")
_GROUP_NAME = ("source", "provider", "group")
_GROUP_ITEMS = ("details", "results", "items", "sources", "hits")
_EXTRA_FACTS = ("stars", "language")  # shown in the snippet: a reader uses them to judge a repo
_YEAR_IN = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


@dataclass
class Coerced:
    sources: list[Source] = field(default_factory=list)
    skipped: int = 0  # items that were not readable as a source (no title, bad fields)


def coerce_sources(raw: object, *, kind: ResearcherKind, provider: str) -> Coerced:
    """Sources from a flat or grouped list (or dict) of records; see the module doc."""
    out = Coerced()
    _walk(raw, kind, provider, out, depth=0)
    return out


def _walk(raw: object, kind: ResearcherKind, provider: str, out: Coerced, depth: int) -> None:
    if len(out.sources) >= MAX_ITEMS or raw is None:
        return
    if isinstance(raw, Source):
        out.sources.append(raw)
    elif isinstance(raw, list | tuple):
        for item in raw[: MAX_ITEMS * 2]:
            _walk(item, kind, provider, out, depth + 1)
    elif isinstance(raw, dict):
        group = next((raw[k] for k in _GROUP_ITEMS if isinstance(raw.get(k), list)), None)
        if group is not None and depth < MAX_DEPTH:
            name = next((str(raw[k]) for k in _GROUP_NAME if isinstance(raw.get(k), str) and raw[k].strip()), provider)
            _walk(group, kind, name.strip().lower(), out, depth + 1)
        elif _first(raw, _TITLE) or _first(raw, _URL):
            _append(raw, kind, provider, out)
        elif depth < MAX_DEPTH and any(isinstance(v, list) for v in raw.values()):
            for value in raw.values():  # {"web": [...], "academic": [...]}
                if isinstance(value, list):
                    _walk(value, kind, provider, out, depth + 1)
        else:
            out.skipped += 1
    else:
        out.skipped += 1


def _append(item: dict[str, Any], kind: ResearcherKind, provider: str, out: Coerced) -> None:
    url = str(_first(item, _URL) or "")
    title = str(_first(item, _TITLE) or "").strip() or url
    if not title:
        out.skipped += 1
        return
    snippet = str(_first(item, _SNIPPET) or "")
    facts = [
        f"{k}: {item[k]}" for k in _EXTRA_FACTS if isinstance(item.get(k), int | float | str) and item.get(k) != ""
    ]
    if facts:
        snippet = (snippet + " (" + ", ".join(facts) + ")").strip()
    try:
        out.sources.append(
            Source(
                title=title[:500],
                url=url if url.startswith(("http://", "https://")) else "",
                kind=item.get("kind") if item.get("kind") in ("web", "academic", "book") else kind,
                provider=str(item.get("provider") or provider),
                snippet=snippet,
                authors=_authors(_first(item, _AUTHORS)),
                year=_year(_first(item, _YEAR)),
            )
        )
    except ValidationError:
        out.skipped += 1


def _first(item: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((item[n] for n in names if item.get(n) not in (None, "", [])), None)


def _authors(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()][:20] if value.strip() else []
    if isinstance(value, dict):  # {"login": "..."} or {"name": "..."}
        name = value.get("name") or value.get("login")
        return [str(name)] if name else []
    if isinstance(value, list):
        return [a for a in (_authors(v)[0] if _authors(v) else "" for v in value[:20]) if a]
    return []


def _year(value: Any) -> int | None:
    if isinstance(value, int) and 1500 <= value <= 2100:
        return value
    match = _YEAR_IN.search(str(value)) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def as_retrieval(raw: object, *, kind: ResearcherKind, provider: str, query: str = "") -> Retrieval:
    """A provider's or tool's raw answer as a Retrieval, with a warning for unreadable records."""
    coerced = coerce_sources(raw, kind=kind, provider=provider)
    retrieval = Retrieval(
        sources=[s.model_copy(update={"query": s.query or query or None}) for s in coerced.sources],
        providers_used=[provider],
    )
    if coerced.skipped:
        retrieval.warnings.append(
            RunWarning(
                source=provider,
                message=f"skipped {coerced.skipped} unreadable result(s) (no title or url)",
            )
        )
    return retrieval
