"""Sources as BibTeX: @online for web pages, @article for academic sources, @book for books.

Keys are ASCII ([a-z0-9]), unique within the file and stable for the same sources in the same
order (author surname or site + year + first title word). Field values escape LaTeX's special
characters; titles are double-braced so BibTeX styles keep their capitalisation. Non-Latin text
stays UTF-8 (biber and modern BibTeX read it).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from research.export.filenames import slugify
from research.schemas.state_shapes import Source

ENTRY_TYPES = {"web": "online", "academic": "article", "book": "book"}
_STOPWORDS = {"a", "an", "the", "of", "on", "in", "and", "to", "for", "from", "with", "how", "what", "why"}
_LATEX_SPECIALS = {
    # BibTeX counts every brace, escaped or not: "\{" alone unbalances the field. These balance.
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL = re.compile(r"[\\{}&%$#_~^]")


def bibtex_escape(text: str) -> str:
    """LaTeX-safe field text: specials escaped in one pass (so no escape is escaped again)."""
    flat = " ".join((text or "").split())
    return _SPECIAL.sub(lambda m: _LATEX_SPECIALS[m.group(0)], flat)


def bibtex_url(url: str) -> str:
    """URLs are verbatim in biblatex; only characters that break the .bib syntax are encoded."""
    return re.sub(r"[{}\\\s]", lambda m: f"%{ord(m.group(0)):02X}", url or "")


def surname(name: str) -> str:
    """ "Hans Müller" and "Müller, Hans" -> "Müller"."""
    name = name.strip()
    if "," in name:
        return name.split(",", 1)[0].strip()
    return name.split()[-1] if name.split() else ""


def citation_key(source: Source, taken: set[str]) -> str:
    surname_ = surname(source.authors[0]) if source.authors else ""
    who = slugify(surname_, 20).replace("-", "") or slugify(source.domain.split(".")[0], 20).replace("-", "")
    words = [w for w in slugify(source.title, 80).split("-") if w and w not in _STOPWORDS]
    base = f"{who or 'source'}{source.year or ''}{words[0] if words else ''}"[:40] or "source"
    key, n = base, 0
    while key in taken:
        n += 1
        key = f"{base}{_suffix(n)}"
    taken.add(key)
    return key


def _suffix(n: int) -> str:
    return chr(ord("a") + n - 1) if n <= 26 else str(n)


def _date(ts: float) -> str | None:
    """The UTC date of a timestamp, or None when no calendar holds it (1e17, inf, nan)."""
    try:
        return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d")
    except (OverflowError, ValueError, OSError):
        return None


def render_bibtex(sources: list[Source], *, accessed: float | None = None) -> str:
    """One entry per source, in the order given (the exporter puts cited sources first)."""
    urldate = _date(accessed) if accessed else None
    taken: set[str] = set()
    entries = []
    for source in sources:
        kind = ENTRY_TYPES.get(source.kind, "misc")
        fields: list[tuple[str, str]] = [("title", "{" + bibtex_escape(source.title) + "}")]
        if source.authors:
            fields.append(("author", " and ".join(bibtex_escape(a) for a in source.authors if a.strip())))
        if source.year:
            fields.append(("year", str(source.year)))
        if kind == "article" and source.provider == "arxiv":
            fields.append(("journal", "arXiv preprint"))
        if kind == "online" and source.url.startswith("http"):
            fields.append(("organization", bibtex_escape(source.domain)))
        if source.url:
            fields.append(("url", bibtex_url(source.url)))
            if urldate:
                fields.append(("urldate", urldate))
        fields.append(("note", bibtex_escape(f"Retrieved via {source.provider}")))
        if source.snippet:
            fields.append(("abstract", bibtex_escape(source.snippet)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{kind}{{{citation_key(source, taken)},\n{body}\n}}\n")
    return "\n".join(entries)
