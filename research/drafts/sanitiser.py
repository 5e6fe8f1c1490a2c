"""One Markdown sanitiser for every output: a CommonMark parser (markdown-it-py) reads the text and
this module writes it back with an allow-list, so what a browser or an export sees is only what
the allow-list emits.

Regex "neutralisers" missed the forms a real parser accepts (nested brackets in an image's alt
text, a newline before its destination, a reference definition inside a blockquote or a list
item, an escaped `]` in the label) and were quadratic on `![a` repeated. Here the parser decides
what is an image, a link or HTML, and the writer emits:

- headings, paragraphs, lists, quotes, tables, code, rules, emphasis, strikethrough;
- links only when their destination is http(s) (any other link keeps its text);
- images as their alt text; raw HTML, reference definitions and everything else as text.

Every piece of text is escaped on the way out, so no character of it can start markup; the
parser and this writer are linear in the input (nesting is capped by `maxNesting`).
"""

from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from research.drafts.markdown_bounds import skip_unclosable_openers

MAX_NESTING = 20  # deeper blocks or inline spans are cut off by the parser (hostile, never a draft)

_PARSER = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable(["table", "strikethrough"])
skip_unclosable_openers(_PARSER)  # linear either way; this spares the costliest scans
# The parser recognises every link and image (its own check would leave `[a](javascript:x)` as text
# that another renderer may still link); the writer below decides which survive.
_PARSER.validateLink = lambda url: True  # type: ignore[method-assign]

# Characters that could start inline markup anywhere in a line (`]`, `!`, `&` and `:` are handled
# where they matter: before a link opener, an entity or a Streamlit directive).
_ALWAYS = frozenset("\\`*_<~$|")
_LINE_START = re.compile(r"(?m)^( {0,3})([#>+=-]|\d{1,9}(?=[.)]))")
_DIRECTIVE = re.compile(r":[A-Za-z0-9_-]{1,40}(\[|\Z)")
_ICON = re.compile(r":material/[a-z0-9_]{1,60}:")
_LANGUAGE = re.compile(r"[A-Za-z0-9_+.#-]{1,30}")


def is_http_url(url: str) -> bool:
    """Only http(s) addresses with a host may be links (never javascript:, data:, file:)."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def escape_text(text: str, following: str = "", *, in_label: bool = False) -> str:
    """Literal text as Markdown that renders exactly as the text: no character starts markup.

    `following` is what the writer emits right after it (a `]` before a `(` would close a link);
    inside a link's label every bracket is escaped."""
    marked = _directive_positions(text)
    out: list[str] = []
    n = len(text)
    in_directive = False
    for i, ch in enumerate(text):
        nxt = text[i + 1] if i + 1 < n else following[:1]
        if ch in _ALWAYS or i in marked or (ch in "[]" and in_label):
            out.append("\\" + ch)
            in_directive = in_directive or (ch == "[" and i in marked)
        elif ch == "]" and (in_directive or nxt in ("(", "[", ":")):
            out.append("\\]")  # never closes a link label, a directive or a reference definition
            in_directive = False
        elif ch == "[" and nxt == "^":
            out.append("\\[")  # a footnote reference
        elif ch == "!" and nxt == "[":
            out.append("\\!")  # never opens an image
        elif ch == "&" and (nxt.isalnum() or nxt == "#"):
            out.append("\\&")  # never an entity
        elif ch == "@" and nxt != "\u200b":
            out.append("@\u200b")  # GFM would link an e-mail address (mailto:)
        else:
            out.append(ch)
    return "".join(out)


def _directive_positions(text: str) -> set[int]:
    """Where a Streamlit directive (`:red[`, a name just before a link) or icon (`:material/x:`)
    starts: those colons and brackets are escaped."""
    if ":" not in text:
        return set()
    marked: set[int] = set()
    for m in _DIRECTIVE.finditer(text):
        marked.add(m.start())
        if m.group(1):
            marked.add(m.end() - 1)
    for m in _ICON.finditer(text):
        marked.update((m.start(), m.end() - 1))
    return marked


def _escape_line_starts(text: str) -> str:
    """A line that starts like a heading, list, quote or setext underline stays a line of text."""
    return _LINE_START.sub(_escaped_start, text)


def _escaped_start(m: re.Match[str]) -> str:
    lead, mark = m.group(1), m.group(2)
    return f"{lead}{mark}\\" if mark[0].isdigit() else f"{lead}\\{mark}"


@functools.lru_cache(maxsize=64)
def sanitise_markdown(markdown: str) -> str:
    """The Markdown as the allow-list re-emits it (see the module docstring)."""
    text = "\n".join(_blocks(parse_tree(markdown).children)).strip("\n")
    return text + "\n" if text else ""


def parse_tree(markdown: str) -> SyntaxTreeNode:
    """The parser's syntax tree of a Markdown text (for readers of sanitised text: the exports)."""
    return SyntaxTreeNode(_bounded(_PARSER.parse(markdown or "")))


def parse_inline_tree(text: str) -> SyntaxTreeNode:
    """The syntax tree of one line of inline Markdown."""
    return SyntaxTreeNode(_bounded(_PARSER.parseInline(text or "")))


def _bounded(tokens: list[Token]) -> list[Token]:
    """Emphasis nests without the parser's `maxNesting` (`*` x 2000 then `*` x 1000 nests 500
    deep): spans deeper than MAX_NESTING become their markup as text, so nothing recurses far."""
    for token in tokens:
        if not token.children:
            continue
        depth = 0
        flattened: list[bool] = []
        for child in token.children:
            if child.nesting == 1:
                flat = depth >= MAX_NESTING
                flattened.append(flat)
                depth += 0 if flat else 1
            elif child.nesting == -1:
                flat = flattened.pop() if flattened else True
                depth -= 0 if flat else 1
            else:
                continue
            if flat:
                child.type, child.tag, child.nesting, child.content = "text", "", 0, child.markup
    return tokens


# --- blocks ---------------------------------------------------------------------------------------


def _blocks(nodes: list[SyntaxTreeNode], *, tight: bool = False) -> list[str]:
    lines: list[str] = []
    for node in nodes:
        block = _block(node)
        if not block:
            continue
        if lines and not tight:
            lines.append("")
        lines.extend(block)
    return lines


def _block(node: SyntaxTreeNode) -> list[str]:
    kind = node.type
    if kind == "paragraph":
        return _escape_line_starts(inline_markdown(node)).split("\n")
    if kind == "heading":
        return [f"{'#' * int(node.tag[1])} {inline_markdown(node).replace(chr(10), ' ')}"]
    if kind == "blockquote":
        return [f"> {line}" if line else ">" for line in _blocks(node.children)]
    if kind in ("bullet_list", "ordered_list"):
        return _list(node)
    if kind in ("fence", "code_block"):
        return _code(node)
    if kind == "hr":
        return ["---"]
    if kind == "table":
        return _table(node)
    if kind == "html_block":
        text = "\n".join(escape_text(line.strip()) for line in node.content.splitlines())
        return _escape_line_starts(text).split("\n")
    return _blocks(node.children) if node.children else [escape_text(node.content)] if node.content else []


def _list(node: SyntaxTreeNode) -> list[str]:
    ordered = node.type == "ordered_list"
    start = int(str(node.attrs.get("start", 1))) if ordered else 1
    tight = all(p.hidden for item in node.children for p in item.children if p.type == "paragraph")
    lines: list[str] = []
    for number, item in enumerate(node.children, start):
        marker = f"{number}." if ordered else "-"
        body = _blocks(item.children, tight=tight)
        if lines and not tight:
            lines.append("")
        if not body:
            lines.append(marker)
            continue
        pad = " " * (len(marker) + 1)
        lines.append(f"{marker} {body[0]}")
        lines.extend(f"{pad}{line}" if line else "" for line in body[1:])
    return lines


def _code(node: SyntaxTreeNode) -> list[str]:
    content = node.content.rstrip("\n")
    fence = "`" * max(3, _longest_run(content, "`") + 1)
    info = node.info.strip().split(" ")[0] if node.type == "fence" else ""
    language = info if _LANGUAGE.fullmatch(info) else ""
    return [fence + language, *content.split("\n"), fence] if content else [fence + language, fence]


def _table(node: SyntaxTreeNode) -> list[str]:
    rows: list[list[str]] = []
    aligns: list[str] = []
    for section in node.children:
        for tr in section.children:
            cells = [inline_markdown(cell).replace("\n", " ") for cell in tr.children]
            if not rows:
                aligns = [str(cell.attrs.get("style", "")) for cell in tr.children]
            rows.append(cells)
    if not rows:
        return []
    width = len(rows[0])
    rule = [{"text-align:left": ":---", "text-align:right": "---:", "text-align:center": ":---:"}.get(a, "---")
            for a in aligns]  # fmt: skip
    out = [rows[0], rule] + [(r + [""] * width)[:width] for r in rows[1:]]
    return ["| " + " | ".join(cell or " " for cell in row) + " |" for row in out]


def _longest_run(text: str, ch: str) -> int:
    best = run = 0
    for c in text:
        run = run + 1 if c == ch else 0
        best = max(best, run)
    return best


# --- inline ---------------------------------------------------------------------------------------


def inline_markdown(node: SyntaxTreeNode) -> str:
    """A block's inline content re-emitted (a paragraph, heading or table cell node)."""
    return _run(_inline_children(node), "")


def _inline_children(node: SyntaxTreeNode) -> list[SyntaxTreeNode]:
    if node.type == "inline":
        return node.children
    return [grand for child in node.children for grand in (child.children if child.type == "inline" else [child])]


def _run(nodes: list[SyntaxTreeNode], following: str, *, in_label: bool = False) -> str:
    """Sibling inline nodes, written right to left so each knows what the writer puts after it."""
    pieces: list[str] = []
    for node in reversed(nodes):
        piece = _inline(node, following, in_label=in_label)
        pieces.append(piece)
        following = piece + following[:1] if piece else following
        following = following[:2]
    return "".join(reversed(pieces))


def _inline(node: SyntaxTreeNode, following: str, *, in_label: bool) -> str:
    kind = node.type
    if kind == "text":
        return escape_text(node.content, following, in_label=in_label)
    if kind == "softbreak":
        return "\n"
    if kind == "hardbreak":
        return "\\\n"
    if kind == "code_inline":
        return _code_span(node.content)
    if kind in ("em", "strong", "s"):
        mark = {"em": "*", "strong": "**", "s": "~~"}[kind]
        inner = _run(node.children, mark, in_label=in_label)
        return f"{mark}{inner}{mark}" if inner.strip() else inner
    if kind == "link":
        href = str(node.attrs.get("href", ""))
        if in_label or not is_http_url(href) or any(c.isspace() or c in "<>" for c in href):
            return _run(node.children, following, in_label=in_label)  # the text, never a link
        if node.markup == "autolink":
            return f"<{href}>"
        inner = _run(node.children, "]", in_label=True)
        destination = f"<{href}>" if "(" in href or ")" in href else href
        return f"[{inner}]({destination})" if inner.strip() else escape_text(href, following)
    if kind == "image":
        return escape_text(plain_text(node), following, in_label=in_label)
    if kind == "html_inline":
        return escape_text(node.content, following, in_label=in_label)
    if node.children:
        return _run(node.children, following, in_label=in_label)
    return escape_text(node.content, following, in_label=in_label)


def _code_span(content: str) -> str:
    ticks = "`" * (_longest_run(content, "`") + 1)
    pad = " " if content.startswith(("`", " ")) or content.endswith(("`", " ")) else ""
    return f"{ticks}{pad}{content}{pad}{ticks}"


def plain_text(node: SyntaxTreeNode) -> str:
    """The text of an inline node and everything under it, with no markup (an image's alt text)."""
    parts: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("text", "code_inline", "html_inline"):
            parts.append(current.content)
        elif current.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        stack.extend(reversed(current.children))
    return "".join(parts)
