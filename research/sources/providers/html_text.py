"""HTML to plain text with the standard library: the fallback when trafilatura finds no article,
and the converter for small HTML fragments (Stack Exchange bodies).

Never returns the contents of script, style or other non-text elements.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Elements whose contents are never readable text.
_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe", "object"})
# Elements that end a line of text.
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "tr",
        "table",
        "section",
        "article",
        "header",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "dd",
        "dt",
        "hr",
        "title",
        "main",
    }
)
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "wbr"})


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skip_depth += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:  # <br/> must not open a skipped region
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """Readable text of an HTML document or fragment: one line per block, spaces collapsed."""
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    lines = (re.sub(r"[ \t\r\f\v\xa0]+", " ", line).strip() for line in "".join(collector.parts).split("\n"))
    return "\n".join(line for line in lines if line)
