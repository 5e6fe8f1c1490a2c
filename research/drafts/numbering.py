"""Which run source each [n] of a draft stands for, read from the draft's own Sources list.

A user may edit a draft (renumber, delete, add entries), so its Sources list, not the writer's
original citation map, is the truth for that version. Exports and revisions both read it here.
"""

from __future__ import annotations

import re

from research.schemas.state_shapes import Source
from research.schemas.urls import normalise_url

SOURCES_SECTION = re.compile(r"^#{1,3}\s*(Sources|References)\s*$", re.MULTILINE | re.IGNORECASE)
_ENTRY = re.compile(r"^[ \t]*\[(\d{1,3})\](.*)$", re.MULTILINE)  # one line at a time: no run of spaces backtracks
_URL = re.compile(r"<(https?://[^>\s]+)>|(https?://[^\s<>]+)")


def split_sources_section(markdown: str) -> tuple[str, str]:
    """(body, the Sources list after its heading); ("...", "") when the draft has none."""
    match = SOURCES_SECTION.search(markdown or "")
    if not match:
        return markdown or "", ""
    return markdown[: match.start()], markdown[match.end() :]


def source_entries(markdown: str) -> dict[int, str]:
    """[n] -> the entry text after the marker, from the draft's Sources list."""
    _, tail = split_sources_section(markdown)
    return {int(m.group(1)): m.group(2).strip() for m in _ENTRY.finditer(tail)}


def entry_url(entry: str) -> str | None:
    match = _URL.search(entry)
    return (match.group(1) or match.group(2)).rstrip(".,;") if match else None


def resolve_numbered_sources(
    markdown: str, sources: list[Source], citations: dict[str, str] | None = None
) -> dict[int, Source]:
    """[n] -> Source for every Sources entry that matches a run source (by URL, then title, then
    the writer's citation map `citations` {"n": source_id} when given). Unmatched entries are left out."""
    by_url = {normalise_url(s.url): s for s in sources if s.url}
    by_id = {s.id: s for s in sources}
    titled = sorted((s for s in sources if s.title), key=lambda s: -len(s.title))
    resolved: dict[int, Source] = {}
    for n, entry in source_entries(markdown).items():
        url = entry_url(entry)
        match = by_url.get(normalise_url(url)) if url else None
        if match is None:
            match = next((s for s in titled if entry.startswith(s.title)), None)
        if match is None and citations and str(n) in citations:
            match = by_id.get(citations[str(n)])
        if match is not None:
            resolved[n] = match
    return resolved
