"""Outside text made inert before it enters a draft, the Sources list or an export.

A source's text or title carrying `![t](http://host/track.png)` was copied by the offline writer and
fetched by every browser that opened the run (a tracking pixel); `:red[...]` rendered; a prompt-
injection sentence was quoted verbatim with a live link. Three tools, one concern:

- `clean_quoted_sentence` (research/text/quote.py, re-exported here): a sentence the offline writer
  may quote, stripped of markup, links and URLs, or None when it is an instruction to the reader;
- `md_literal`: a one-line field (title, author) as literal markdown text;
- `inert_markdown`: a whole draft with images, raw HTML, non-http(s) links and Streamlit directives
  neutralised, so nothing in it loads a remote resource or renders as markup it did not mean.
"""

from __future__ import annotations

import re

from research.text.quote import clean_quoted_sentence as clean_quoted_sentence

_IMAGE = re.compile(r"!\[([^\]\n]*)\]\s*(\([^)\n]*\)|\[[^\]\n]*\])")
_LINK = re.compile(r"\[([^\]\n]*)\]\s*\(([^)\s\n]*)(?:\s+\"[^\"\n]*\")?\)")
_REF_DEFINITION = re.compile(r"(?m)^ {0,3}\[[^\]\n]+\]:\s*\S+.*$")
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*)>")
_BARE_URL = re.compile(r"(?i)\b(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>()\[\]]+")
_HTML_TAG = re.compile(r"</?[A-Za-z!?][^>\n]*>?")
_DIRECTIVE = re.compile(r":([a-z]+(?:-[a-z]+)*)\[([^\]\n]*)\]")
_ICON = re.compile(r":material/[a-z0-9_]+:|:[a-z0-9_+-]+:")
_MARKUP_CHARS = re.compile(r"[`*_~|<>\[\]{}#$\\]")
_HTTP = re.compile(r"(?i)^https?://[^\s<>]+$")

# Inline markup a title could start (links, images, HTML, emphasis, code, LaTeX, tables) and a colon
# that opens a Streamlit directive (":red[", ":material/"). Plain punctuation stays readable.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>!~$|&])|:(?=[a-z-]+\[|material/)")


# GFM links a bare "https://..." or "www." even when escaped: a zero-width space after the
# scheme's colon, after "www" and after "@" keeps a URL in a title plain text.
_LINKIFIABLE = re.compile(r"(?i)(?<=[a-z]):(?=//)|(?<=\bwww)\.|@")


def md_literal(text: object) -> str:
    """A one-line field as literal markdown: no links, images, HTML, LaTeX, directives or emphasis."""
    escaped = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), " ".join(str(text or "").split()))
    return _LINKIFIABLE.sub(lambda m: m.group(0) + "\u200b", escaped)


def source_link(url: str) -> str:
    """A source's address for the Sources list: an autolink only when it is http(s); any other
    (library://...) is a code span, which no renderer turns into a link."""
    url = " ".join((url or "").split())
    if _HTTP.match(url):
        return f"<{url}>"
    return f"`{url.replace('`', '')}`"


def inert_markdown(markdown: str) -> str:
    """A draft with nothing that loads or runs: images become their alt text, raw HTML is shown as
    text, links keep their text (and stay links only when http(s)), directives are shown as text."""
    text = markdown or ""
    text = _IMAGE.sub(lambda m: md_literal(m.group(1)), text)
    text = _REF_DEFINITION.sub(lambda m: md_literal(m.group(0)), text)

    def link(m: re.Match[str]) -> str:
        label, target = m.group(1), m.group(2)
        return m.group(0) if _HTTP.match(target) else label

    text = _LINK.sub(link, text)
    text = _AUTOLINK.sub(lambda m: m.group(0) if _HTTP.match(m.group(1)) else md_literal(m.group(1)), text)
    text = _HTML_TAG.sub(lambda m: m.group(0) if _AUTOLINK.fullmatch(m.group(0)) else md_literal(m.group(0)), text)
    text = _DIRECTIVE.sub(lambda m: f"\\:{m.group(1)}\\[{m.group(2)}\\]", text)
    return re.sub(r"(?<!\\):(material/[a-z0-9_]+):", r"\\:\1\\:", text)
