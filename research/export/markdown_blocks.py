"""A small markdown reader for the exports: blocks (headings, paragraphs, lists, tables, code,
quotes) and inline runs (bold, italic, code, links).

Drafts are our own markdown (the writer's or a user's edit), so this covers what they use and
degrades to plain text for anything else; it never raises on odd input. Lines of the Sources list
("[3] Title. <url>") are separate paragraphs even without blank lines between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SOURCE_ENTRY = re.compile(r"^\s*\[\d{1,3}\]\s")
_ESCAPABLE = r"\\`*_{}\[\]()#+\-.!|<>"
_PLACEHOLDER_BASE = 0xF0000  # private-use code points stand in for escaped characters


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
    lines = scrub_surrogates(markdown).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    paragraph: list[str] = []
    i = 0

    def flush() -> None:
        if paragraph:
            blocks.append(Paragraph(" ".join(s.strip() for s in paragraph)))
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
        elif fence_match := _FENCE.match(line):
            flush()
            fence = fence_match.group(1)
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            blocks.append(CodeBlock("\n".join(body)))
            i += 1
        elif heading := _HEADING.match(line):
            flush()
            blocks.append(Heading(len(heading.group(1)), heading.group(2)))
            i += 1
        elif "|" in line and i + 1 < len(lines) and _TABLE_SEPARATOR.match(lines[i + 1]) and "|" in lines[i + 1] + line:
            flush()
            header = split_row(line)
            rows: list[list[str]] = []
            i += 2
            while i < len(lines) and lines[i].strip() and "|" in lines[i]:
                rows.append(split_row(lines[i]))
                i += 1
            blocks.append(Table(header, rows))
        elif _RULE.match(line):
            flush()
            blocks.append(Rule())
            i += 1
        elif line.lstrip().startswith(">"):
            flush()
            quoted: list[str] = []
            while i < len(lines) and lines[i].lstrip().startswith(">"):
                quoted.append(lines[i].lstrip()[1:].strip())
                i += 1
            blocks.append(Quote(" ".join(q for q in quoted if q)))
        elif _LIST_ITEM.match(line):
            flush()
            i = _read_list(lines, i, blocks)
        else:
            if _SOURCE_ENTRY.match(line):
                flush()  # each Sources entry is its own paragraph
            paragraph.append(line)
            i += 1
    flush()
    return blocks


def _read_list(lines: list[str], i: int, blocks: list[Block]) -> int:
    first = _LIST_ITEM.match(lines[i])
    assert first is not None  # the caller saw a list item here
    ordered = first.group(2)[0].isdigit()
    block = ListBlock(ordered=ordered, start=int(first.group(2)[:-1]) if ordered else 1)
    while i < len(lines):
        item = _LIST_ITEM.match(lines[i])
        if item:
            if item.group(2)[0].isdigit() != ordered and not item.group(1):
                break  # a top-level list of the other kind starts a new list
            nested = "  " if item.group(1) else ""  # nested items stay items (flattened, marked)
            block.items.append(f"{nested}{item.group(3).strip()}")
        elif lines[i].strip() and lines[i].startswith((" ", "\t")) and block.items:
            block.items[-1] += " " + lines[i].strip()  # a wrapped continuation line
        else:
            break
        i += 1
    blocks.append(block)
    return i


def split_row(line: str) -> list[str]:
    """Cells of a table row; `\\|` is a literal pipe inside a cell."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    cells = re.split(r"(?<!\\)\|", text)
    return [c.strip().replace("\\|", "|") for c in cells]


# --- inline runs ---------------------------------------------------------------------------------


@dataclass
class Run:
    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    url: str | None = None


_INLINE = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|\[(?P<label>[^\]\n]+)\]\((?P<href>https?://[^)\s]+)\)"
    r"|<(?P<auto>https?://[^>\s]+)>"
    r"|(?P<bare>https?://[^\s<>()\[\]]+[^\s<>()\[\].,;:!?'\"])"
    r"|\*\*(?P<b1>.+?)\*\*|__(?P<b2>.+?)__"
    r"|\*(?P<i1>[^\s*](?:.*?[^\s*])?)\*|(?<![\w])_(?P<i2>[^\s_](?:.*?[^\s_])?)_(?![\w])"
)


def parse_inline(text: str) -> list[Run]:
    """Inline markdown as runs. One level of emphasis nesting (bold inside italic) is supported."""
    protected = _protect_escapes(text or "")
    runs = _runs(protected, bold=False, italic=False)
    return [Run(_restore(r.text), r.bold, r.italic, r.code, r.url) for r in runs if r.text]


def _runs(text: str, *, bold: bool, italic: bool) -> list[Run]:
    out: list[Run] = []
    pos = 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            out.append(Run(text[pos : m.start()], bold, italic))
        if m.group("code") is not None:
            out.append(Run(m.group("code"), bold, italic, code=True))
        elif m.group("href") is not None:
            out.append(Run(m.group("label"), bold, italic, url=_restore(m.group("href"))))
        elif m.group("auto") or m.group("bare"):
            url = m.group("auto") or m.group("bare")
            out.append(Run(url, bold, italic, url=_restore(url)))
        elif m.group("b1") is not None or m.group("b2") is not None:
            out += _runs(m.group("b1") or m.group("b2"), bold=True, italic=italic)
        else:
            out += _runs(m.group("i1") or m.group("i2"), bold=bold, italic=True)
        pos = m.end()
    if pos < len(text):
        out.append(Run(text[pos:], bold, italic))
    return out


def plain_text(text: str) -> str:
    """Inline markdown with the markup removed (for table cells and headings)."""
    return "".join(run.text for run in parse_inline(text))


def _protect_escapes(text: str) -> str:
    return re.sub(rf"\\([{_ESCAPABLE}])", lambda m: chr(_PLACEHOLDER_BASE + ord(m.group(1))), text)


def _restore(text: str) -> str:
    return "".join(
        chr(ord(ch) - _PLACEHOLDER_BASE) if _PLACEHOLDER_BASE <= ord(ch) < _PLACEHOLDER_BASE + 128 else ch
        for ch in text
    )
