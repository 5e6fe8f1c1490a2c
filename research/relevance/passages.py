"""What a run carries of one document: the whole text when it is small, else its best passages.

A 50 MiB document rode whole in every search hit and was stored again per run (52 MB a run, later
runs from 0.3 s to minutes). The library keeps the full text; hits and runs carry at most
`max_chars`: the opening window (title, abstract) plus the windows where the query's terms are
densest, in document order, with a marker where text was left out.
"""

from __future__ import annotations

import heapq
import re

from research.text import words

WINDOW_CHARS = 2_000
OMITTED = "\n\n[…]\n\n"
_PARAGRAPH = re.compile(r"\n\s*\n")


def _windows(text: str) -> list[str]:
    """Consecutive pieces of about WINDOW_CHARS, split at paragraph breaks where there are any."""
    out: list[str] = []
    current = ""
    for paragraph in _PARAGRAPH.split(text):
        while len(paragraph) > WINDOW_CHARS:  # one enormous paragraph: cut it
            if current:
                out.append(current)
                current = ""
            out.append(paragraph[:WINDOW_CHARS])
            paragraph = paragraph[WINDOW_CHARS:]
        if current and len(current) + len(paragraph) > WINDOW_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        out.append(current)
    return out


def carried_text(query: str, text: str, max_chars: int) -> str:
    """`text` itself when within `max_chars`, else the opening and the query's best windows."""
    if len(text) <= max_chars:
        return text
    windows = _windows(text)
    terms = list(dict.fromkeys(words(query or "")))[:16]
    budget = max_chars
    chosen = {0}
    budget -= len(windows[0]) + len(OMITTED)
    scored = ((sum(w.lower().count(t) for t in terms), -i, i) for i, w in enumerate(windows) if i and terms)
    for score, _neg, i in heapq.nlargest(max(1, max_chars // WINDOW_CHARS), scored):
        if score <= 0 or len(windows[i]) + len(OMITTED) > budget:
            continue
        chosen.add(i)
        budget -= len(windows[i]) + len(OMITTED)
    parts: list[str] = []
    for i in sorted(chosen):
        if parts and i - 1 not in chosen:
            parts.append(OMITTED.strip())
        parts.append(windows[i])
    if max(chosen) < len(windows) - 1:
        parts.append(OMITTED.strip())
    return "\n\n".join(parts)[:max_chars]
