"""A Markdown reader for the exports: blocks (headings, paragraphs, lists, tables, code, quotes)
and inline runs (bold, italic, code, links), read by the same CommonMark parser as the sanitiser
(research/drafts/sanitiser.py), so the exports see the structure a browser sees, in linear time.

Anything the blocks below do not model degrades to plain text; it never raises on odd input.
Lines of the Sources list ("[3] Title. <url>") are separate paragraphs even without blank lines
between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it.tree import SyntaxTreeNode

from research.drafts.sanitiser import escape_text, inline_markdown, is_http_url, parse_inline_tree, parse_tree
from research.drafts.sanitiser import plain_text as node_text

_SOURCE_ENTRY = re.compile(r"\[\d{1,3}\]\s")


@dataclass
class Heading:
    level: int
    text: str


@dataclass
class Paragraph:
    text: str


@dataclass
class ListBlock:
    ordered: bool
    items: list[str] = field(default_factory=list)
    start: int = 1


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]

    @property
    def columns(self) -> int:
        return max([len(self.header), *(len(r) for r in self.rows)])  # never empty: the header counts

    def padded(self) -> tuple[list[str], list[list[str]]]:
        """Header and rows all `columns` wide (short rows filled with "")."""
        n = self.columns
        return self.header + [""] * (n - len(self.header)), [r + [""] * (n - len(r)) for r in self.rows]


@dataclass
class CodeBlock:
    text: str


@dataclass
class Quote:
    text: str


@dataclass
class Rule:
    pass


Block = Heading | Paragraph | ListBlock | Table | CodeBlock | Quote | Rule


def scrub_surrogates(text: str) -> str:
    """Lone UTF-16 surrogates (possible from JSON "\\ud83d" escapes) can be neither drawn nor
    encoded; they become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text or "")


_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_blocks(markdown: str) -> list[Block]:
    blocks: list[Block] = []
    for node in parse_tree(scrub_surrogates(markdown)).children:
        _add_block(node, blocks)
    return blocks


def _add_block(node: SyntaxTreeNode, blocks: list[Block]) -> None:
    kind = node.type
    if kind == "heading":
        blocks.append(Heading(int(node.tag[1]), _one_line(inline_markdown(node))))
    elif kind == "paragraph":
        blocks.extend(Paragraph(text) for text in _paragraphs(inline_markdown(node)))
    elif kind == "html_block":
        blocks.extend(Paragraph(text) for text in _paragraphs(escape_text(node.content.strip())))
    elif kind in ("bullet_list", "ordered_list"):
        ordered = kind == "ordered_list"
        block = ListBlock(ordered=ordered, start=int(str(node.attrs.get("start", 1))) if ordered else 1)
        _list_items(node, block.items, nested="")
        blocks.append(block)
    elif kind == "table":
        rows = [
            [_one_line(inline_markdown(cell)) for cell in tr.children] for part in node.children for tr in part.children
        ]
        if rows:
            blocks.append(Table(rows[0], rows[1:]))
    elif kind in ("fence", "code_block"):
        blocks.append(CodeBlock(node.content.rstrip("\n")))
    elif kind == "blockquote":
        blocks.append(Quote(" ".join(_texts(node))))
    elif kind == "hr":
        blocks.append(Rule())


def _paragraphs(inline: str) -> list[str]:
    """A paragraph's lines joined, except that each Sources entry starts a paragraph of its own."""
    groups: list[list[str]] = []
    for line in inline.split("\n"):
        line = line.removesuffix("\\").strip()
        if not groups or _SOURCE_ENTRY.match(line):
            groups.append([])
        if line:
            groups[-1].append(line)
    return [" ".join(group) for group in groups if group]


def _one_line(inline: str) -> str:
    return " ".join(line.removesuffix("\\").strip() for line in inline.split("\n"))


def _list_items(node: SyntaxTreeNode, items: list[str], *, nested: str) -> None:
    """Each item's text; nested items stay items (flattened, marked by two leading spaces)."""
    for item in node.children:
        texts = [
            _one_line(inline_markdown(child)) if child.type in ("paragraph", "heading") else " ".join(_texts(child))
            for child in item.children
            if child.type not in ("bullet_list", "ordered_list")
        ]
        items.append(nested + " ".join(t for t in texts if t))
        for child in item.children:
            if child.type in ("bullet_list", "ordered_list"):
                _list_items(child, items, nested="  ")


def _texts(node: SyntaxTreeNode) -> list[str]:
    """The inline texts of every paragraph-like block under a node (quotes, nested blocks)."""
    out: list[str] = []
    for child in node.children:
        if child.type in ("paragraph", "heading"):
            out.append(_one_line(inline_markdown(child)))
        elif child.type in ("fence", "code_block", "html_block"):
            out.append(escape_text(" ".join(child.content.split())))
        else:
            out.extend(_texts(child))
    return [t for t in out if t]


# --- inline runs ---------------------------------------------------------------------------------


@dataclass
class Run:
    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    url: str | None = None


def parse_inline(text: str) -> list[Run]:
    """Inline markdown as runs (emphasis nests; only http(s) links keep their address)."""
    runs: list[Run] = []
    _inline_runs(parse_inline_tree(text).children, runs, bold=False, italic=False, url=None)
    return [r for r in runs if r.text]


def _inline_runs(nodes: list[SyntaxTreeNode], out: list[Run], *, bold: bool, italic: bool, url: str | None) -> None:
    for node in nodes:
        kind = node.type
        if kind == "text":
            out.extend(
                _bare_links(node.content, bold, italic) if url is None else [Run(node.content, bold, italic, url=url)]
            )
        elif kind in ("softbreak", "hardbreak"):
            out.append(Run(" ", bold, italic, url=url))
        elif kind == "code_inline":
            out.append(Run(node.content, bold, italic, code=True, url=url))
        elif kind == "image":
            out.append(Run(node_text(node), bold, italic, url=url))
        elif kind == "html_inline":
            out.append(Run(node.content, bold, italic, url=url))
        elif kind == "link":
            href = str(node.attrs.get("href", ""))
            _inline_runs(node.children, out, bold=bold, italic=italic, url=href if is_http_url(href) else url)
        else:  # inline, strong, em, s and anything new: their children
            _inline_runs(
                node.children,
                out,
                bold=bold or kind == "strong",
                italic=italic or kind == "em",
                url=url,
            )


_URL_END = frozenset(" \t\n<>()[]")
_URL_TRAILING = ".,;:!?'\""


def _bare_links(text: str, bold: bool, italic: bool) -> list[Run]:
    """A text run with its bare http(s) addresses as links (a scan, no backtracking)."""
    runs: list[Run] = []
    pos = 0
    search = 0
    while (start := text.find("http", search)) != -1:
        scheme = 8 if text.startswith("https://", start) else 7 if text.startswith("http://", start) else 0
        end = start + scheme
        while scheme and end < len(text) and text[end] not in _URL_END and not text[end].isspace():
            end += 1
        url = text[start:end].rstrip(_URL_TRAILING)
        if scheme and len(url) > scheme:
            runs.append(Run(text[pos:start], bold, italic))
            runs.append(Run(url, bold, italic, url=url))
            pos = start + len(url)
        search = max(end, start + 4)
    runs.append(Run(text[pos:], bold, italic))
    return runs


def plain_text(text: str) -> str:
    """Inline markdown with the markup removed (for table cells and headings)."""
    return "".join(run.text for run in parse_inline(text))
