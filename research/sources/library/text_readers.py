"""The parsing half of the Markdown and HTML readers, run inside the bounded child
(sandbox.py) so an upload is never parsed by the dashboard's own process.

Markdown is read by the CommonMark parser the sanitiser uses (no regex: a heading followed by
3,000 spaces took 40 s with the old pattern); HTML by the stdlib parser, with trafilatura's
main-content extraction when it keeps enough of the page. Every heading is a paragraph of its
own, so it never runs into the sentence after it.

Import-light on purpose: the child imports only this module and its parsers.
"""

from __future__ import annotations

import logging
from html.parser import HTMLParser
from typing import Any

from research.drafts.sanitiser import parse_tree, plain_text

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


class _HTMLText(HTMLParser):
    """Visible text of a page: no scripts, styles or other non-content elements."""

    _SKIP = {"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas", "title"}
    _BLOCKS = {"p", "div", "section", "article", "li", "ul", "ol", "br", "tr", "table", "blockquote",
               "pre", "h1", "h2", "h3", "h4", "h5", "h6", "header", "footer", "main", "nav", "aside",
               "dd", "dt", "figcaption", "hr"}  # fmt: skip

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self.h1 = ""
        self._skip_depth = 0
        self._in_title = False
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, opening=True)

    def handle_endtag(self, tag: str) -> None:
        self._tag(tag, opening=False)

    def _tag(self, tag: str, *, opening: bool) -> None:
        """An opening tag enters what its closing tag leaves; block tags break paragraphs either way."""
        if tag in self._SKIP:
            self._skip_depth = self._skip_depth + 1 if opening else max(0, self._skip_depth - 1)
        if tag == "title":
            self._in_title = opening
        if tag == "h1":
            self._in_h1 = opening
        if tag in self._BLOCKS and (not self.parts or self.parts[-1] != "\n\n"):
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._skip_depth:  # inside <title>, <script>, <style>...: never page text
            return
        if self._in_h1:
            self.h1 += data
        self.parts.append(data)

    def text(self) -> str:
        paragraphs = ("".join(self.parts)).split("\n\n")
        return "\n\n".join(p for p in (" ".join(x.split()) for x in paragraphs) if p)


def html_page(data: bytes) -> dict[str, Any]:
    """A page's title and its text, one paragraph per block (headings included)."""
    html = decode(data)
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    title = " ".join(parser.title.split()) or " ".join(parser.h1.split())
    text = parser.text()
    del parser
    try:  # trafilatura finds the main content (drops menus, footers); the stdlib parser is the floor
        import trafilatura

        extracted = trafilatura.extract(html, include_comments=False, include_tables=True)
        if extracted and len(extracted) >= 0.3 * len(text):
            # One element per line (a heading, a paragraph, an item): each its own paragraph.
            text = "\n\n".join(line.strip() for line in extracted.splitlines() if line.strip())
    except MemoryError:
        raise
    except Exception as exc:  # a parser failure: keep the stdlib text
        log.debug("trafilatura could not read the page: %s", exc)
    return {"title": title, "text": text}
