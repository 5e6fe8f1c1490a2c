"""Markdown that a CommonMark renderer turns into a remote fetch or a live non-http link, each form
a regex "neutraliser" missed. `base` is the tracker's address."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token


def image_forms(base: str) -> dict[str, str]:
    return {
        "nested brackets in the alt text": f"A ![a [b] c]({base}/nested.png) pixel.",
        "a newline before the destination": f"A ![a](\n{base}/newline.png) pixel.",
        "a reference definition inside a blockquote": f"> [q]: {base}/quote.png\n> ![q]\n",
        "a reference definition inside a list item": f"- [l]: {base}/list.png\n- ![l]\n",
        "an escaped ] in the label": f"A ![a\\]b]({base}/escaped.png) pixel.",
    }


def data_link() -> str:
    return "Click [d [e] f](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) here."


def hostile_draft(base: str) -> str:
    """Every form in one draft, as a model or an edit could save it."""
    forms = "\n\n".join(image_forms(base).values())
    return f'# Draft\n\n{forms}\n\n{data_link()}\n\n[js](javascript:alert(1)) <img src="{base}/raw.png">\n'


_GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_GFM.validateLink = lambda url: True  # type: ignore[method-assign]  # every link a renderer might follow


def live_markup(markdown: str) -> list[str]:
    """What in a Markdown text a CommonMark renderer would load or link: images, raw HTML and
    links that are not http(s)."""
    found: list[str] = []

    def walk(tokens: list[Token]) -> None:
        for token in tokens:
            if token.type == "image":
                found.append(f"image {token.attrs.get('src')}")
            elif token.type in ("html_inline", "html_block"):
                found.append(f"html {token.content.strip()[:40]}")
            elif token.type == "link_open":
                href = str(token.attrs.get("href", ""))
                if not href.lower().startswith(("http://", "https://")):
                    found.append(f"link {href[:40]}")
            if token.children:
                walk(token.children)

    walk(_GFM.parse(markdown))
    return found
