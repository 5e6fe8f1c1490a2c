"""The parsing half of the Markdown and HTML readers, run inside the bounded child
(sandbox.py) so an upload is never parsed by the dashboard's own process.

Markdown is read by the CommonMark parser the sanitiser uses (no regex: a heading followed by
3,000 spaces took 40 s with the old pattern). HTML is read by libxml2 (lxml), linear on the inputs
that make the stdlib HTMLParser quadratic (`</` repeated: 14 s for 200 KB), with trafilatura's
main-content extraction on pages small enough for it. Every heading is a paragraph of its own,
so it never runs into the sentence after it.

Import-light on purpose: the child imports only this module and its parsers.
"""

from __future__ import annotations

import logging
from typing import Any

from research.drafts.sanitiser import parse_tree, plain_text
from research.sources.providers import html_text

log = logging.getLogger(__name__)


class NotText(ValueError):
    """Bytes that are not text in any encoding we read."""


def decode(data: bytes) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:4096]:
        raise NotText("binary data, not text")
    return data.decode("cp1252", errors="replace")  # old Windows text: never fails


# --- Markdown -------------------------------------------------------------------------------------


def markdown_body(body: str) -> dict[str, str]:
    """Plain reading text (markup removed, each block its own paragraph) and the first heading."""
    paragraphs: list[str] = []
    heading = ""
    stack = list(reversed(parse_tree(body).children))
    while stack:
        node = stack.pop()
        if node.type in ("paragraph", "heading"):
            text = "\n".join(" ".join(line.split()) for line in plain_text(node).split("\n")).strip()
            if text:
                paragraphs.append(text)
            if node.type == "heading" and not heading:
                heading = " ".join(text.split())
        elif node.type in ("fence", "code_block", "html_block"):
            if node.content.strip():
                paragraphs.append(node.content.strip("\n"))
        else:  # lists, quotes, tables: their blocks in order
            stack.extend(reversed(node.children))
    return {"text": "\n\n".join(paragraphs), "heading": heading}


# --- HTML -----------------------------------------------------------------------------------------


_SKIP = html_text.SKIPPED | {"title", "head"}
TRAFILATURA_MAX_TAGS = 20_000  # trafilatura costs ~150 us an element; bigger pages keep the floor text


def _visible_text(root: Any) -> str:
    """Visible text of a page, one paragraph per block."""
    paragraphs = html_text.block_text(root, skipped=_SKIP, separator="\n\n")
    return "\n\n".join(p for p in (" ".join(x.split()) for x in paragraphs) if p)


def _first_text(root: Any, tag: str) -> str:
    found = root.find(f".//{tag}")
    return " ".join("".join(found.itertext()).split()) if found is not None else ""


def html_page(data: bytes) -> dict[str, Any]:
    """A page's title and its text, one paragraph per block (headings included)."""
    html = decode(data)
    root = html_text.parse_html(html)
    if root is None:
        return {"title": "", "text": ""}
    title = _first_text(root, "title") or _first_text(root, "h1")
    text = _visible_text(root)
    tags = sum(1 for _ in root.iter())
    del root
    if tags > TRAFILATURA_MAX_TAGS:
        return {"title": title, "text": text}
    try:  # trafilatura finds the main content (drops menus, footers); the parser's text is the floor
        import trafilatura

        extracted = trafilatura.extract(html, include_comments=False, include_tables=True)
        if extracted and len(extracted) >= 0.3 * len(text):
            # One element per line (a heading, a paragraph, an item): each its own paragraph.
            text = "\n\n".join(line.strip() for line in extracted.splitlines() if line.strip())
    except MemoryError:
        raise
    except Exception as exc:  # a parser failure: keep the parser's text
        log.debug("trafilatura could not read the page: %s", exc)
    return {"title": title, "text": text}
