"""HTML to plain text, read by libxml2 (lxml): the fallback when trafilatura finds no article,
the converter for small HTML fragments (Stack Exchange bodies) and the library's HTML reader.

The stdlib HTMLParser this replaced is quadratic on malformed input (`</` repeated: 14 s for
200 KB, holding the GIL); libxml2 is linear and caps nesting depth itself. Never returns the
contents of script, style or other non-text elements.
"""

from __future__ import annotations

import re
from typing import Any

# Elements whose contents are never readable text.
SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas"})
# Elements that end a line (or a paragraph) of text.
BLOCKS = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header", "footer", "h1", "h2",
     "h3", "h4", "h5", "h6", "pre", "blockquote", "dd", "dt", "hr", "title", "main", "nav", "aside",
     "figcaption", "body"}
)  # fmt: skip
_SPACES = re.compile(r"[ \t\r\f\v\xa0]+")


def parse_html(html: str) -> Any:
    """The page's element tree (None for a page with no elements)."""
    from lxml import etree

    parser = etree.HTMLParser(recover=True, no_network=True, remove_comments=True, remove_pis=True)
    try:
        return etree.fromstring(html.encode("utf-8", errors="replace"), parser)
    except etree.XMLSyntaxError:
        return None


def block_text(root: Any, *, skipped: frozenset[str] = SKIPPED, separator: str = "\n") -> list[str]:
    """The tree's text split at block elements (a scan with an explicit stack: no recursion)."""
    parts: list[str] = []
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        element, closing = stack.pop()
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if closing or tag in skipped:
            if tag in BLOCKS:
                parts.append(separator)
            if element is not root and element.tail:
                parts.append(element.tail)
            continue
        if tag in BLOCKS:
            parts.append(separator)
        if element.text:
            parts.append(element.text)
        stack.append((element, True))
        stack.extend((child, False) for child in reversed(element))
    return "".join(parts).split(separator)


def html_to_text(html: str) -> str:
    """Readable text of an HTML document or fragment: one line per block, spaces collapsed."""
    root = parse_html(html)
    if root is None:
        return ""
    lines = (_SPACES.sub(" ", line).strip() for line in block_text(root, skipped=SKIPPED | {"head"}))
    return "\n".join(line for line in lines if line)
